#!/usr/bin/env node
// Runs the test suite with Node's own test runner over TypeScript sources (via tsx).
// Usage: node scripts/test.mjs [dir-or-file ...] [--tier=fast|e2e|process[,…]] [--write-baseline]
//        (default: test/ and simnet/test/; other --flags go to the test files' node processes)
//
// Each file runs in its own process. The files are sorted into tiers (scripts/test-tiers.mjs) and
// run side by side by scripts/test-scheduler.mjs: the longest first (test/durations-baseline.json),
// as many at once as the CPUs hold, each tier within its cap. ZAPGATE_TEST_JOBS=N (or
// --test-concurrency=N) runs exactly N at once instead. The end of the output is a summary
// (scripts/test-summary.mjs): totals, the slowest files, files much slower than their baseline, and
// every failing test; --write-baseline records this run's times as the new baseline.
//
// PostgreSQL: ZAPGATE_TEST_PG_URL when set, else the server on 127.0.0.1:5432 when one answers,
// else a real PostgreSQL started here for this run (scripts/test-postgres.mjs), shared by every
// file, and stopped at the end. Tests spawn the gateway from the TypeScript sources
// (test/helpers/process-gateway.ts), never from a possibly stale dist/; test/e2e/cli-dist.test.ts
// compiles a fresh build and runs that.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { testPostgres } from './test-postgres.mjs';
import { TIERS, classify, collectTestFiles, REPO_ROOT } from './test-tiers.mjs';
import { readBaseline, summary, writeBaseline } from './test-summary.mjs';

const TEST_TIMEOUT_MS = 300_000;

function parseArgs(argv) {
  const opts = { roots: [], tiers: null, writeBaseline: false, testNamePatterns: undefined, only: false, jobs: null, nodeFlags: [] };
  for (const arg of argv) {
    let m;
    if (!arg.startsWith('--')) opts.roots.push(arg);
    else if ((m = /^--tier=(.+)$/.exec(arg))) opts.tiers = m[1].split(',');
    else if (arg === '--write-baseline') opts.writeBaseline = true;
    else if ((m = /^--test-name-pattern=(.+)$/.exec(arg))) (opts.testNamePatterns ??= []).push(m[1]);
    else if (arg === '--test-only') opts.only = true;
    else if ((m = /^--test-concurrency=(\d+)$/.exec(arg))) opts.jobs = Number(m[1]);
    else opts.nodeFlags.push(arg);
  }
  const unknown = (opts.tiers ?? []).filter((t) => !TIERS.includes(t));
  if (unknown.length > 0) throw new Error(`unknown tier ${unknown.join(', ')}: use ${TIERS.join(', ')}`);
  if (opts.jobs === null && process.env.ZAPGATE_TEST_JOBS) opts.jobs = Number(process.env.ZAPGATE_TEST_JOBS);
  return opts;
}

/** CPU time (ms) of this process's finished descendants, where /proc tells it. */
function childrenCpuMs() {
  try {
    // Fields 16 and 17 of /proc/self/stat (after the parenthesised name): cutime, cstime, in ticks.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

const startedAt = performance.now();
let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(`test.mjs: ${err.message}`);
  process.exit(2);
}
const baseline = readBaseline();
const cache = new Map();
const roots = opts.roots.length > 0 ? opts.roots.map((r) => resolve(r)) : [join(REPO_ROOT, 'test'), join(REPO_ROOT, 'simnet/test')];
const files = collectTestFiles(roots)
  .map((file) => {
    const rel = relative(REPO_ROOT, file).split('\\').join('/');
    return { file, rel, tier: classify(file, cache).tier, estimateMs: baseline[rel] ?? Number.MAX_SAFE_INTEGER };
  })
  .filter((f) => opts.tiers === null || opts.tiers.includes(f.tier));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

const log = (line) => console.error(`# test.mjs: ${line}`);
const postgres = await testPostgres({ log });
const work = mkdtempSync(join(tmpdir(), 'zapgate-test-run-'));
const planPath = join(work, 'plan.json');
const resultsPath = join(work, 'results.json');
writeFileSync(planPath, JSON.stringify({ files, timeoutMs: TEST_TIMEOUT_MS, testNamePatterns: opts.testNamePatterns, only: opts.only, jobs: opts.jobs }));
const child = spawn(
  process.execPath,
  // run() gives each test file's process these flags (tsx, the per-test timeout, the caller's flags).
  ['--import', 'tsx', `--test-timeout=${TEST_TIMEOUT_MS}`, ...opts.nodeFlags, join(REPO_ROOT, 'scripts/test-scheduler.mjs'), planPath, resultsPath],
  {
    stdio: 'inherit',
    env: { ...process.env, ...postgres.env, ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent' },
  },
);
// Ctrl-C reaches the scheduler too (same process group): it stops the files under way and reports
// what ran; the embedded server is stopped once it ends.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
const status = await new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
await postgres.stop();

let failed = status !== 0;
if (existsSync(resultsPath)) {
  const outcome = JSON.parse(readFileSync(resultsPath, 'utf8'));
  const wallMs = performance.now() - startedAt;
  console.log(summary({ ...outcome, baseline, wallMs, cpuMs: childrenCpuMs(), cores: availableParallelism() }).join('\n'));
  failed ||= outcome.results.some((r) => r.failures.length > 0) || outcome.notRun.length > 0;
  if (opts.writeBaseline) {
    const note = `${new Date().toISOString().slice(0, 10)}, a run of ${outcome.results.length} files on ${outcome.cores} cores (load ${loadavg()[0].toFixed(1)} at its end)`;
    const written = writeBaseline(outcome.results, { exists: (file) => existsSync(join(REPO_ROOT, file)), note });
    console.log(`# baseline: ${written} file times written to test/durations-baseline.json`);
  }
} else {
  console.log('# the scheduler ended without results (see above)');
  failed = true;
}
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
