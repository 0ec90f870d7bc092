// Sorts test files into the tiers scripts/test.mjs runs side by side, each at its own concurrency:
//   fast     test/unit, test/http, test/store, simnet/test: one process per file, no gateway process
//   e2e      test/e2e files that run the gateway in-process (test/e2e/engine-harness.ts, createGateway)
//   process  test/e2e files that start processes: gateways (test/helpers/process-gateway.ts and the
//            harnesses over it), the CLI, a browser (playwright-core), tools run from the test
// A file's tier comes from its directory and its imports, so a new file lands in the right tier with
// no list to edit: a file outside the fast directories is `process` when it, or a test helper it
// imports (followed through test/ and simnet/test/, not into src/, the code under test), imports
// node:child_process or playwright-core; else `e2e`. OVERRIDES holds the exceptions, each with its reason.
// `node scripts/test-tiers.mjs [files or dirs]` prints each file's tier and why.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TIERS = ['fast', 'e2e', 'process'];
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const FAST_DIRS = ['test/unit/', 'test/http/', 'test/store/', 'simnet/test/'];
/** Imports that mean "this test starts processes of its own". */
const PROCESS_MODULES = new Set(['node:child_process', 'child_process', 'playwright-core']);
/** Where test helpers live: imports are followed only inside these. */
const HELPER_DIRS = ['test/', 'simnet/test/'];

/** Repo-relative path → { tier, reason }: files whose imports tell the wrong story. */
export const OVERRIDES = new Map([
  // test/helpers/media-tools.ts runs ffmpeg to make three tiny clips before the tests: a tool run to
  // completion, not a process that lives beside the in-process gateway.
  ['test/e2e/engine-media.test.ts', { tier: 'e2e', reason: 'ffmpeg clips only (test/helpers/media-tools.ts); gateway in-process' }],
  ['test/e2e/engine-newsletters.test.ts', { tier: 'e2e', reason: 'ffmpeg clips only (test/helpers/media-tools.ts); gateway in-process' }],
]);

const rel = (path) => relative(REPO_ROOT, resolve(path)).split(sep).join('/');

/** Module specifiers a source file imports (static, re-exports, side-effect and dynamic imports). */
export function importsOf(source) {
  const out = new Set();
  const patterns = [
    /\bimport\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /\bexport\s[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.add(m[1]);
  return out;
}

/** The file a relative specifier names (sources import './x.js' for './x.ts'), or null. */
function resolveRelative(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/**
 * Why `file` starts processes, or null: the first import of a PROCESS_MODULES entry found in the file
 * or in the test helpers it imports, as "helper.ts → module".
 */
function processSignal(file, cache = new Map(), seen = new Set()) {
  const abs = resolve(file);
  if (cache.has(abs)) return cache.get(abs);
  if (seen.has(abs)) return null;
  seen.add(abs);
  let found = null;
  for (const spec of importsOf(readFileSync(abs, 'utf8'))) {
    if (PROCESS_MODULES.has(spec)) {
      found = `imports ${spec}`;
      break;
    }
    if (!spec.startsWith('.')) continue;
    const target = resolveRelative(abs, spec);
    if (target === null || !HELPER_DIRS.some((d) => rel(target).startsWith(d))) continue;
    const inner = processSignal(target, cache, seen);
    if (inner !== null) {
      found = `${rel(target)} ${inner}`;
      break;
    }
  }
  cache.set(abs, found);
  return found;
}

/** { tier, reason } for one test file (path absolute or relative to the repo root). */
export function classify(file, cache = new Map()) {
  const path = rel(file);
  const override = OVERRIDES.get(path);
  if (override) return { tier: override.tier, reason: `override: ${override.reason}` };
  const dir = FAST_DIRS.find((d) => path.startsWith(d));
  if (dir) return { tier: 'fast', reason: `in ${dir}` };
  const signal = processSignal(resolve(REPO_ROOT, path), cache);
  if (signal !== null) return { tier: 'process', reason: signal };
  return { tier: 'e2e', reason: 'no process of its own' };
}

/** Every *.test.ts under the given files or directories, sorted; missing roots are skipped. */
export function collectTestFiles(roots) {
  const out = [];
  const walk = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      if (err.code === 'ENOENT') return;
      throw err;
    }
    if (st.isFile()) {
      if (path.endsWith('.test.ts')) out.push(path);
      return;
    }
    for (const entry of readdirSync(path).sort()) {
      if (entry === 'node_modules' || entry.startsWith('.')) continue;
      walk(join(path, entry));
    }
  };
  for (const root of roots) walk(root);
  return [...new Set(out)];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const files = collectTestFiles(args.length > 0 ? args : ['test', 'simnet/test']);
  const cache = new Map();
  const rows = files.map((f) => ({ file: rel(f), ...classify(f, cache) }));
  for (const tier of TIERS) {
    const inTier = rows.filter((r) => r.tier === tier);
    console.log(`${tier} (${inTier.length})`);
    for (const r of inTier) console.log(`  ${r.file}  ${r.reason}`);
  }
}
