#!/usr/bin/env node
// The `zapgate` command. It runs the compiled build in dist/ (`npm install` builds it through the
// `prepare` script; `npm run build` rebuilds it). ZAPGATE_FROM_SOURCE=1 runs the TypeScript sources
// through tsx instead (a development dependency): `npm run dev` and the test harness use it, so a
// test never runs a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';

/** In a checkout (sources beside dist/): a source newer than the build means a forgotten `npm run build`. */
function warnIfStale(entry) {
  const built = statSync(entry).mtimeMs;
  for (const dir of ['../src', '../simnet/src']) {
    const root = new URL(`${dir}/`, import.meta.url);
    if (!existsSync(root)) continue;
    for (const file of readdirSync(root, { recursive: true })) {
      if (!String(file).endsWith('.ts') && !String(file).endsWith('.mjs')) continue;
      if (statSync(new URL(String(file), root)).mtimeMs > built) {
        console.error(`zapgate: warning: ${dir.slice(3)}/${file} is newer than the build in dist/: run \`npm run build\` (or \`npm run dev\` to run the sources)`);
        return;
      }
    }
  }
}

if (process.env.ZAPGATE_FROM_SOURCE === '1' && existsSync(new URL('../.zapgate-test-tree', import.meta.url))) {
  // A test run's mirror of the checkout (scripts/test-build.mjs): its sources are already transpiled, fresh from this run.
  await import('../src/cli.js');
} else if (process.env.ZAPGATE_FROM_SOURCE === '1') {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error('zapgate: ZAPGATE_FROM_SOURCE=1 needs tsx, a development dependency (run npm install without --omit=dev)');
    process.exit(1);
  }
  register();
  await import('../src/cli.ts');
} else {
  const entry = new URL('../dist/src/cli.js', import.meta.url);
  if (!existsSync(entry)) {
    console.error('zapgate: no build in dist/: run `npm install` (it builds dist/), or `npm run build` once installed');
    process.exit(1);
  }
  warnIfStale(entry);
  await import(entry.href);
}
