// No import circles in src/ or simnet/. A circle makes load order decide which module sees the
// other half-initialised, and even a type-only circle means two files share a declaration that
// belongs in a third: so every relative import counts here — `import type`, `export … from` and a
// dynamic `import('…')` with a literal path included. The layering test (layering.test.ts) ranks
// the folders of src/; this one catches the circles inside a folder that ranks cannot see.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'simnet/src', 'simnet/test'];

/** A graph of files: each file with the files it imports. */
type ImportGraph = ReadonlyMap<string, readonly string[]>;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** The .ts file an ESM specifier names: `x.js` → `x.ts`, a folder → its `index.ts`; null when none. */
function resolveSpecifier(fromFile: string, spec: string): string | null {
  const target = resolve(dirname(fromFile), spec);
  const candidates = [target.replace(/\.js$/, '.ts'), target, `${target}.ts`, join(target, 'index.ts')];
  for (const candidate of candidates) {
    if (candidate.endsWith('.ts') && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null; // JSON, assets, or a file outside the scanned .ts sources
}

/** The relative imports of one file, resolved to files (repository-relative). */
function importsOf(file: string, source: string): string[] {
  const out = new Set<string>();
  // preProcessFile sees static imports, re-exports, `import type` and dynamic import() alike.
  for (const { fileName: spec } of ts.preProcessFile(source, true, true).importedFiles) {
    if (!spec.startsWith('.')) continue; // packages and node: builtins
    const target = resolveSpecifier(file, spec);
    if (target !== null) out.add(relative(ROOT, target));
  }
  return [...out];
}

function repositoryGraph(): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const dir of SCANNED) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      graph.set(relative(ROOT, file), importsOf(file, readFileSync(file, 'utf8')));
    }
  }
  return graph;
}

/**
 * The strongly connected components of more than one file, or of one file that imports itself
 * (Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack). Each component
 * comes back sorted, and the list sorted by its first file, so the result is stable.
 */
function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;

  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfImport = component.length === 1 && edges.includes(frame.node);
      if (component.length > 1 || selfImport) components.push(component.sort());
    }
  }
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * One circle through a component, as a readable path `a → b → a`: a shortest way back to the
 * component's first file, found breadth-first inside the component.
 */
function cyclePath(graph: ImportGraph, component: readonly string[]): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let at: string | undefined = node; at !== undefined && at !== start; at = previous.get(at)) path.push(at);
        return [start, ...path.slice(1).reverse(), start].join(' → ');
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return component.join(' ↔ '); // unreachable for a real component
}

/** How a component reads in a failure message: its size, one circle through it, and its files. */
function describe(graph: ImportGraph, component: readonly string[]): string {
  const files = component.length > 6 ? `${component.slice(0, 6).join(', ')}, … (${component.length} files)` : component.join(', ');
  return `  ${cyclePath(graph, component)}\n    files: ${files}`;
}

test('no import circle in src/ or simnet/ (type-only imports included)', () => {
  const graph = repositoryGraph();
  const cycles = importCycles(graph);
  assert.equal(cycles.length, 0, `import circles (move the shared declaration into a leaf file both sides import):\n${cycles.map((c) => describe(graph, c)).join('\n')}`);
});

test('the scan reads the source tree and resolves its `.js` imports to `.ts` files', () => {
  const graph = repositoryGraph();
  assert.ok(graph.size > 100, 'the scan found the source tree');
  assert.ok(
    [...graph.values()].some((edges) => edges.length > 0),
    'imports resolve to files (`.js` specifiers name `.ts` sources)',
  );
});

test('the check finds a circle of type imports, re-exports and dynamic imports, and reads it as a path', () => {
  const dir = join(ROOT, 'src', 'example');
  const sources: Record<string, string> = {
    'a.ts': "import type { B } from './b.js';\nimport { leaf } from './leaf.js';",
    'b.ts': "export { c } from './c.js';",
    'c.ts': "const a = await import('./a.js');",
    'leaf.ts': "import { readFileSync } from 'node:fs';",
    'self.ts': "import './self.js';",
  };
  const graph = new Map<string, string[]>();
  for (const [name, source] of Object.entries(sources)) {
    const file = join(dir, name);
    const edges: string[] = [];
    for (const { fileName: spec } of ts.preProcessFile(source, true, true).importedFiles) {
      if (spec.startsWith('.')) edges.push(relative(ROOT, resolve(dirname(file), spec.replace(/\.js$/, '.ts'))));
    }
    graph.set(relative(ROOT, file), edges);
  }
  const cycles = importCycles(graph);
  assert.deepEqual(cycles, [
    ['src/example/a.ts', 'src/example/b.ts', 'src/example/c.ts'],
    ['src/example/self.ts'],
  ]);
  assert.equal(cyclePath(graph, cycles[0]!), 'src/example/a.ts → src/example/b.ts → src/example/c.ts → src/example/a.ts');
  assert.equal(cyclePath(graph, cycles[1]!), 'src/example/self.ts → src/example/self.ts');
});

test('directory imports resolve to index.ts and `.js` specifiers to `.ts` sources', () => {
  const from = join(ROOT, 'src', 'main.ts');
  assert.equal(resolveSpecifier(from, './outbox/index.js'), join(ROOT, 'src', 'outbox', 'index.ts'));
  assert.equal(resolveSpecifier(from, './outbox'), join(ROOT, 'src', 'outbox', 'index.ts'));
  assert.equal(resolveSpecifier(from, './no-such-file.js'), null);
});
