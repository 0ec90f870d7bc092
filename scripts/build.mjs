#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install`/`npm ci` run it): compiles src/ and simnet/src/
// to dist/ with tsc (tsconfig.build.json; file by file, not bundled), after emptying dist/ so no
// output of a deleted source lingers, then copies the files tsc does not emit — anything beside the
// sources that is neither TypeScript nor JavaScript (an HTML page, a stylesheet, …), read at run
// time through import.meta.url — to the same place in dist/.
// Usage: node scripts/build.mjs [--out-dir DIR]   (default dist; test/e2e/cli-dist.test.ts builds elsewhere)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = process.argv.indexOf('--out-dir');
const outDir = resolve(root, at > 0 && process.argv[at + 1] ? process.argv[at + 1] : 'dist');
const SOURCES = ['src', 'simnet/src'];
/** What tsc compiles or emits itself (allowJs carries .js/.mjs along); everything else is an asset. */
const COMPILED = /\.(ts|mts|cts|js|mjs|cjs)$/;

rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);

let copied = 0;
for (const dir of SOURCES) {
  const from = join(root, dir);
  for (const entry of readdirSync(from, { recursive: true })) {
    const file = join(from, String(entry));
    if (COMPILED.test(file) || !statSync(file).isFile()) continue;
    const to = join(outDir, relative(root, file));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(file, to);
    copied += 1;
  }
}
if (copied > 0) console.log(`build: ${copied} asset file(s) copied to ${relative(root, outDir)}/`);
