#!/usr/bin/env node
// Runs the test suite with Node's own test runner over TypeScript sources (via tsx).
// Node 20's runner has no glob support, so the files are collected here.
// Usage: node scripts/test.mjs [dir-or-file ...]   (default: test/ and simnet/test/)
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passThrough = process.argv.slice(2).filter((a) => a.startsWith('--'));

function collect(path, out) {
  const st = statSync(path);
  if (st.isFile()) {
    if (path.endsWith('.test.ts')) out.push(path);
    return out;
  }
  for (const entry of readdirSync(path).sort()) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    collect(join(path, entry), out);
  }
  return out;
}

const files = [];
for (const root of roots.length > 0 ? roots : ['test', 'simnet/test']) {
  try {
    collect(root, files);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
}
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...passThrough, ...files],
  { stdio: 'inherit', env: { ...process.env, ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent' } },
);
process.exit(result.status ?? 1);
