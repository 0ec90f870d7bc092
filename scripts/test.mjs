#!/usr/bin/env node
// Runs the test suite with Node's own test runner over TypeScript sources (via tsx).
// Node 20's runner has no glob support, so the files are collected here.
// Usage: node scripts/test.mjs [dir-or-file ...]   (default: test/ and simnet/test/)
//
// PostgreSQL: ZAPGATE_TEST_PG_URL when set, else the server on 127.0.0.1:5432 when one answers,
// else a real PostgreSQL started here for this run (scripts/test-postgres.mjs) and stopped at the end.
// Tests spawn the gateway from the TypeScript sources (test/helpers/process-gateway.ts), never from a
// possibly stale dist/; test/e2e/cli-dist.test.ts compiles a fresh build and runs that.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { testPostgres } from './test-postgres.mjs';

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

const postgres = await testPostgres({ log: (line) => console.error(`# test.mjs: ${line}`) });
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=3',
    '--test-timeout=300000',
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${new URL('./test-failures-reporter.mjs', import.meta.url).pathname}`,
    '--test-reporter-destination=stdout',
    ...passThrough,
    ...files,
  ],
  {
    stdio: 'inherit',
    env: { ...process.env, ...postgres.env, ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent' },
  },
);
// Ctrl-C reaches the runner too (same process group); the embedded server is stopped once it ends.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
await postgres.stop();
process.exit(status);
