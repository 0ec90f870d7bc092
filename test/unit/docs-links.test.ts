// The repository carries its own design, and its documents stay true to the tree:
// - every repository path that docs/*.md and README.md name (in backticks, code blocks or links)
//   exists, so a file moved without its documentation fails here;
// - every citation of a document under docs/ in the code names one that exists, and a section of it
//   that exists (`docs/contract.md §5`, `docs/whatsapp-protocol.md Part 1`);
// - nothing cites a document that is not in the repository (the specs this project started from).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const ROOT = resolve(import.meta.dirname, '../..');
// The test run executes a transpiled mirror of the tree (scripts/test-build.mjs): this file is its .ts.
const SELF = relative(ROOT, import.meta.filename).replace(/\.js$/, '.ts');

/** Top-level folders whose paths documents name. */
const PATH = /(?<![\w./@-])((?:src|simnet|test|bench|scripts|docs|bin)\/[\w./-]*)/g;

/** Where the specs outside the repository used to be cited; none of them is here to follow. */
// Spelled from parts so that this file does not cite them itself.
const OUTSIDE = [['\\.\\.', '\\/sha', 'red\\b'], ['\\bCON', 'TRACT\\b'], ['\\bDES', 'IGN\\.md\\b'], ['\\bZAPI-', 'SURFACE\\.md\\b'], ['\\bWHATSAPP-', 'PROTOCOL\\.md\\b']].map(
  (parts) => new RegExp(parts.join('')),
);

/** Folders that hold no source of this project: dependencies, builds, local state. */
const NOT_SOURCE = new Set(['.git', 'node_modules', 'dist', 'data', 'coverage']);

/** The repository's files: tracked, and new ones not ignored (a walk of the tree outside a git checkout). */
function repositoryFiles(): string[] {
  let listed: string[];
  try {
    listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  } catch {
    // Not a checkout (the test run's mirror): a .js beside its .ts is the transpiled copy, not a file of the repository.
    listed = walk(ROOT).filter((f) => !(f.endsWith('.js') && existsSync(join(ROOT, f.slice(0, -3) + '.ts'))));
  }
  return [...new Set(listed.filter((f) => f !== ''))].filter((f) => existsSync(join(ROOT, f)) && statSync(join(ROOT, f)).isFile());
}

function walk(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (NOT_SOURCE.has(entry.name) || entry.name.startsWith('.test-dist-')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(relative(ROOT, path));
  }
  return out;
}

/** The text of a file, or null for a binary one (a NUL byte in its first 8 KiB). */
function textOf(file: string): string | null {
  const bytes = readFileSync(join(ROOT, file));
  return bytes.subarray(0, 8192).includes(0) ? null : bytes.toString('utf8');
}

/** The documents whose paths are checked: README.md and every docs/*.md. */
function documents(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

/** Repository paths a document names: a file (with an extension) or a folder (a trailing slash). */
function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const [, raw] of text.matchAll(PATH)) {
    const path = raw!.replace(/[.,;:]+$/, ''); // the end of a sentence is not part of the path
    if (path.endsWith('/') || /\.[A-Za-z0-9]+$/.test(path.split('/').pop()!)) out.add(path);
  }
  return [...out];
}

/** The targets of a document's relative Markdown links, resolved from the document's folder. */
function linkTargets(doc: string, text: string): string[] {
  const out = new Set<string>();
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('#')) continue; // URLs and anchors in the same page
    const path = target!.split('#')[0]!;
    out.add(relative(ROOT, resolve(ROOT, dirname(doc), decodeURIComponent(path))));
  }
  return [...out];
}

/** The sections a document has, as citations name them: `§5`, `§1.2`, `Part 1`. */
function sectionsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.*)$/gm)) {
    for (const [name] of heading!.matchAll(/§\d+(?:\.\d+)*|Part \d+/g)) out.add(name);
  }
  return out;
}

test('every repository path and relative link in README.md and docs/*.md exists', () => {
  const missing: string[] = [];
  for (const doc of documents()) {
    const text = readFileSync(join(ROOT, doc), 'utf8');
    for (const path of namedPaths(text)) if (!existsSync(join(ROOT, path))) missing.push(`${doc}: ${path}`);
    for (const path of linkTargets(doc, text)) if (!existsSync(join(ROOT, path))) missing.push(`${doc}: link to ${path}`);
  }
  assert.deepEqual(missing, [], 'documents name paths that are not in the tree (moved or renamed?)');
});

test('every citation of a document under docs/ names one that exists, and a section it has', () => {
  const sections = new Map<string, Set<string> | null>();
  const wrong: string[] = [];
  for (const file of repositoryFiles()) {
    if (file === SELF) continue;
    const text = textOf(file);
    if (text === null) continue;
    for (const [, doc, section] of text.matchAll(/(?<![\w./-])(docs\/[\w.-]+\.md)(?: (§\d+(?:\.\d+)*|Part \d+))?/g)) {
      if (!sections.has(doc!)) sections.set(doc!, existsSync(join(ROOT, doc!)) ? sectionsOf(readFileSync(join(ROOT, doc!), 'utf8')) : null);
      const known = sections.get(doc!);
      if (known === null) wrong.push(`${file}: ${doc} does not exist`);
      else if (section !== undefined && !known!.has(section)) wrong.push(`${file}: ${doc} has no section ${section}`);
    }
  }
  assert.deepEqual(wrong, [], 'citations of documents or sections that are not there');
});

test('no file cites a document outside the repository', () => {
  const citing = repositoryFiles().filter((file) => {
    if (file === SELF) return false;
    const text = textOf(file);
    return text !== null && OUTSIDE.some((pattern) => pattern.test(text));
  });
  assert.deepEqual(citing, [], 'these files cite a document that is not in the repository: cite docs/ instead');
});

test('the checks find a missing path, a broken link, a section that does not exist and an outside citation', () => {
  const doc = 'See `src/no-such-file.ts`, `src/http/`, `src/http/server.ts`, [the design](design.md#principles), [gone](gone.md) and https://example.com/docs/x.md.';
  assert.deepEqual(namedPaths(doc), ['src/no-such-file.ts', 'src/http/', 'src/http/server.ts']);
  assert.deepEqual(linkTargets('docs/architecture.md', doc), ['docs/design.md', 'docs/gone.md']);
  assert.deepEqual([...sectionsOf('# Title\n## §1 Conventions\n### §1.2 messages\n## Part 3: x\nnot a heading §9\n')], ['§1', '§1.2', 'Part 3']);
  const outside = [`// see CON${'TRACT'} §5`, `// DES${'IGN'}.md target`, `bash ../sha${'red'}/tools/x.sh`, '// docs/contract.md §5'];
  assert.deepEqual(outside.map((line) => OUTSIDE.some((p) => p.test(line))), [true, true, true, false]);
});
