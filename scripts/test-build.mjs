// Builds the tree the test run executes: a mirror of the checkout (outside it, in the system's temp
// dir) where every .ts file has a .js beside it, transpiled by esbuild the way tsx would (types
// stripped, nothing bundled, nothing type-checked: `npm run typecheck` does that). The test files,
// the gateway processes they spawn and simnet then run as plain JavaScript, with no loader hook in
// any process: tsx's hook costs about 1.5 s of CPU for each process that loads the gateway, and the
// suite starts a few hundred of them. The mirror is made afresh from the sources for every run, so a
// test never runs a stale build; everything else in it (docs, README, package.json, the .ts sources
// the source-reading tests read) is a hard link or a copy, and node_modules a symlink.
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join, relative } from 'node:path';
import { transform } from 'esbuild';

/** Top-level entries never mirrored: build output, data, VCS, and the dependencies (linked instead). */
const SKIP = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage']);

/** The file that tells bin/zapgate.js it runs in a test run's mirror. */
export const TREE_MARKER = '.zapgate-test-tree';

const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true, target: 'es2022' } };

function walk(dir, root, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (dir === root && (SKIP.has(entry.name) || entry.name.startsWith('.test-dist') || entry.name.startsWith('.dist.'))) continue;
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, root, out);
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

function place(from, to) {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/**
 * Mirrors `root` into a fresh directory and transpiles its TypeScript; returns the mirror's path.
 * bin/zapgate.js runs the mirror's transpiled sources when ZAPGATE_FROM_SOURCE=1 (what the process
 * tests ask for), so a spawned gateway needs no tsx either.
 */
export async function buildTestTree(root, { log = () => {} } = {}) {
  const started = performance.now();
  const out = join(tmpdir(), `zapgate-test-tree-${process.pid}`);
  rmSync(out, { recursive: true, force: true });
  const files = walk(root, root, []);
  const dirs = new Set(files.map((f) => join(out, relative(root, f), '..')));
  for (const d of dirs) mkdirSync(d, { recursive: true });
  const jobs = [];
  for (const file of files) {
    const target = join(out, relative(root, file));
    place(file, target);
    if (file.endsWith('.ts') && !file.endsWith('.d.ts')) {
      jobs.push(
        readFile(file, 'utf8').then(async (source) => {
          const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', tsconfigRaw: TSCONFIG, sourcefile: file });
          writeFileSync(target.slice(0, -3) + '.js', code);
        }),
      );
    }
  }
  await Promise.all(jobs);
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  // bin/zapgate.js sees this marker and, asked for the sources (ZAPGATE_FROM_SOURCE=1, what the
  // process tests ask), runs the transpiled ones beside it instead of registering tsx.
  writeFileSync(join(out, TREE_MARKER), 'a transpiled mirror of the checkout for one test run (scripts/test-build.mjs)\n');
  if (!existsSync(join(out, 'src', 'cli.js'))) throw new Error('test build: src/cli.js was not produced');
  log(`test tree: ${jobs.length} TypeScript files transpiled into ${out} in ${Math.round(performance.now() - started)} ms`);
  return { dir: out, close: () => rmSync(out, { recursive: true, force: true }) };
}
