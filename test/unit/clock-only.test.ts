// One clock (docs/design.md, "Time through one clock"): outside src/clock.ts and simnet/src/clock.ts
// nothing reads the wall clock or arms a timer, so a test owns time and a time-lapse run compresses
// every protocol wait at once. The lint rule in eslint.config.js says so; this checks that the rule
// catches each way in, that the clock modules themselves may use them, and that the tree keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');
/** The rules eslint.config.js uses for the clock-only rule (and for nothing else). */
const CLOCK_RULES = new Set(['no-restricted-properties', 'no-restricted-globals', 'no-restricted-syntax']);

const SNIPPET = [
  "import { setTimeout as sleep } from 'node:timers/promises';", // 1
  'export async function later(fn: () => void): Promise<number> {', // 2
  '  const timer = setTimeout(fn, 10);', // 3
  '  clearTimeout(timer);', // 4
  '  const every = globalThis.setInterval(fn, 10);', // 5
  '  clearInterval(every);', // 6
  '  await sleep(1);', // 7
  '  const started = new Date();', // 8
  '  return Date.now() - started.getTime();', // 9
  '}', // 10
  // What stays allowed: a given time, the event loop's own turns, measuring work.
  'export function allowed(ms: number): [string, number] {', // 11
  '  setImmediate(() => undefined);', // 12
  '  return [new Date(ms).toISOString(), performance.now()];', // 13
  '}', // 14
  '',
].join('\n');

async function clockMessages(eslint: ESLint, text: string, filePath: string): Promise<{ line: number; ruleId: string; message: string }[]> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, filePath) });
  assert.ok(result, `a result for ${filePath}`);
  return result.messages.filter((m) => m.ruleId !== null && CLOCK_RULES.has(m.ruleId)).map((m) => ({ line: m.line, ruleId: m.ruleId!, message: m.message }));
}

test('Date.now, new Date(), raw timers and the timers modules are reported in src/ and simnet/src/, each pointing at the clock', async () => {
  const eslint = new ESLint({ cwd: ROOT });
  for (const filePath of ['src/services/example.ts', 'simnet/src/server/example.ts']) {
    const found = await clockMessages(eslint, SNIPPET, filePath);
    const lines = [...new Set(found.map((m) => m.line))].sort((a, b) => a - b);
    assert.deepEqual(lines, [1, 3, 4, 5, 6, 8, 9], `${filePath}: every wall-clock read and raw timer, and nothing else (${JSON.stringify(found)})`);
    assert.ok(found.some((m) => m.line === 9 && m.ruleId === 'no-restricted-properties'), 'Date.now');
    assert.ok(found.some((m) => m.line === 8 && m.ruleId === 'no-restricted-syntax'), 'new Date() with no argument');
    assert.ok(found.some((m) => m.line === 5 && m.ruleId === 'no-restricted-properties'), 'globalThis.setInterval');
    assert.ok(found.some((m) => m.line === 3 && m.ruleId === 'no-restricted-globals'), 'setTimeout');
    for (const m of found) assert.match(m.message, /src\/clock\.ts/, `${filePath}:${m.line} says where time comes from`);
  }
});

test('the clock modules themselves may read the wall clock and arm timers', async () => {
  const eslint = new ESLint({ cwd: ROOT });
  for (const filePath of ['src/clock.ts', 'simnet/src/clock.ts']) {
    assert.deepEqual(await clockMessages(eslint, SNIPPET, filePath), [], filePath);
  }
});

// The whole tree, read with TypeScript's parser (ESLint over ~600 files costs ~40 s of CPU in every
// test run; `npm run lint` runs the rule itself): the same reads and timers the rule forbids.
const TREES = ['src', 'simnet/src'];
const CLOCK_MODULES = new Set(['src/clock.ts', 'simnet/src/clock.ts']);
const TIMERS = new Set(['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval']);

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function wallClockUses(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string): void => {
    found.push(`${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && node.expression.getText() === 'Date' && node.name.text === 'now') at(node, 'Date.now');
    else if (ts.isPropertyAccessExpression(node) && node.expression.getText() === 'globalThis' && TIMERS.has(node.name.text)) at(node, node.getText());
    else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && TIMERS.has(node.expression.text)) at(node, node.expression.text);
    else if (ts.isNewExpression(node) && node.expression.getText() === 'Date' && (node.arguments?.length ?? 0) === 0) at(node, 'new Date()');
    else if (ts.isImportDeclaration(node) && /^(node:)?timers(\/promises)?$/.test((node.moduleSpecifier as ts.StringLiteral).text)) at(node, 'timers import');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('no module but the clock reads the wall clock or arms a timer', () => {
  const files = TREES.flatMap((tree) => sourceFiles(join(ROOT, tree))).filter((f) => !CLOCK_MODULES.has(relative(ROOT, f)));
  assert.ok(files.length > 100, `the tree was read (${files.length} files)`);
  assert.deepEqual(files.flatMap(wallClockUses), []);
});

test('the tree check sees what the rule sees', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'zapgate-clock-')), 'example.ts');
  writeFileSync(file, SNIPPET);
  const lines = [...new Set(wallClockUses(file).map((w) => Number(w.split(' ')[0]!.split(':').at(-1))))];
  assert.deepEqual(lines, [1, 3, 4, 5, 6, 8, 9]);
});
