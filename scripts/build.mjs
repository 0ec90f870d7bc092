#!/usr/bin/env node
// `npm run build` (and `prepare`, so `npm install`/`npm ci` run it): compiles src/ and simnet/src/
// to dist/ with tsc (tsconfig.build.json; file by file, not bundled), then copies the files tsc does
// not emit — anything beside the sources that is neither TypeScript nor JavaScript (an HTML page, a
// stylesheet, …), read at run time through import.meta.url — to the same place.
// It builds into a fresh sibling directory and only then puts it in dist/'s place (two renames), so
// no output of a deleted source lingers, and an interrupted or failed build leaves the previous
// dist/ whole instead of empty (bin/zapgate.js would have nothing to run).
// `--if-stale` (what `prepare` runs) returns at once when the build is newer than every input (the
// sources, the tsconfigs, the lockfile, this script): `npx zapgate` installs the checkout into npm's
// npx cache, which runs `prepare`, and must not recompile everything to run a command.
// Usage: node scripts/build.mjs [--out-dir DIR] [--if-stale]   (default dist; test/e2e/cli-dist.test.ts builds elsewhere)
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = process.argv.indexOf('--out-dir');
const outDir = resolve(root, at > 0 && process.argv[at + 1] ? process.argv[at + 1] : 'dist');
const SOURCES = ['src', 'simnet/src'];
/** What tsc compiles or emits itself (allowJs carries .js/.mjs along); everything else is an asset. */
const COMPILED = /\.(ts|mts|cts|js|mjs|cjs)$/;
/** Written last: its mtime is when the build finished, its absence an unfinished or foreign dist/. */
const STAMP = '.build-complete';

/** The newest mtime among the build's inputs. */
function newestInput() {
  let newest = 0;
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json', 'scripts/build.mjs']) {
    if (existsSync(join(root, file))) newest = Math.max(newest, statSync(join(root, file)).mtimeMs);
  }
  for (const dir of SOURCES) {
    newest = Math.max(newest, statSync(join(root, dir)).mtimeMs); // a deleted file changes only its directory
    for (const entry of readdirSync(join(root, dir), { recursive: true })) newest = Math.max(newest, statSync(join(root, dir, String(entry))).mtimeMs);
  }
  return newest;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

// Leftovers of earlier interrupted builds (their process is gone: a pid is never reused while alive).
// A build killed between the swap's two renames left no dist/ but a complete build aside (old, or
// new with its stamp): that one is put back first, so dist/ is never missing for longer than a swap.
const prefix = `.${basename(outDir)}.`;
const leftovers = (existsSync(dirname(outDir)) ? readdirSync(dirname(outDir)) : [])
  .map((entry) => ({ path: join(dirname(outDir), entry), pid: Number(/^(?:new|old)-(\d+)$/.exec(entry.slice(prefix.length))?.[1] ?? NaN), entry }))
  .filter((x) => x.entry.startsWith(prefix) && Number.isInteger(x.pid) && !alive(x.pid));
if (!existsSync(outDir)) {
  const complete = leftovers.filter((x) => existsSync(join(x.path, STAMP))).sort((a, b) => statSync(join(b.path, STAMP)).mtimeMs - statSync(join(a.path, STAMP)).mtimeMs);
  if (complete[0]) {
    renameSync(complete[0].path, outDir);
    leftovers.splice(leftovers.indexOf(complete[0]), 1);
    console.log(`build: restored the complete build an interrupted swap left aside as ${relative(root, outDir)}/`);
  }
}
for (const x of leftovers) rmSync(x.path, { recursive: true, force: true });

if (process.argv.includes('--if-stale') && existsSync(join(outDir, STAMP)) && statSync(join(outDir, STAMP)).mtimeMs >= newestInput()) {
  console.log(`build: ${relative(root, outDir)}/ is up to date`);
  process.exit(0);
}

const staging = join(dirname(outDir), `${prefix}new-${process.pid}`);
rmSync(staging, { recursive: true, force: true });
process.on('exit', () => rmSync(staging, { recursive: true, force: true }));
// Ended by a signal: the staging directory goes (the exit handler), dist/ stays as it was.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) process.on(signal, () => process.exit(code));

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('build: TypeScript is not installed here: run `npm install` first (it builds dist/ too)');
  // Under `npx zapgate` in a checkout not installed yet, npm hides this script's output and a failure
  // would end npx silently; succeeding lets it run bin/zapgate.js, which says what to do.
  process.exit(process.env.npm_command === 'exec' ? 0 : 1);
}
const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staging], { stdio: 'inherit', cwd: root });
if (result.status !== 0) process.exit(result.status ?? 1);

let copied = 0;
for (const dir of SOURCES) {
  const from = join(root, dir);
  for (const entry of readdirSync(from, { recursive: true })) {
    const file = join(from, String(entry));
    if (COMPILED.test(file) || !statSync(file).isFile()) continue;
    const to = join(staging, relative(root, file));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(file, to);
    copied += 1;
  }
}

writeFileSync(join(staging, STAMP), '');

// The swap: the old build moves aside, the new one takes its name, the old one goes.
const old = join(dirname(outDir), `${prefix}old-${process.pid}`);
if (existsSync(outDir)) renameSync(outDir, old);
renameSync(staging, outDir);
rmSync(old, { recursive: true, force: true });
if (copied > 0) console.log(`build: ${copied} asset file(s) copied to ${relative(root, outDir)}/`);
