// Runs the test files scripts/test.mjs planned, each in its own process (node:test's run(), one
// file per call), as many at once as the machine holds. scripts/test.mjs starts this under
// `--import tsx`, which run() passes on to every test file's process.
//
// Admission: a target number of files runs at once, and a file that ends is replaced at once. The
// target starts at `cores + 1`; it grows by one while the CPUs were at least half a core idle over the
// last two seconds, and shrinks by one (never below `cores + 1`) while they were fully busy, one step
// every two seconds at most (a new file's start-up takes that long to show), up to `3 × cores`; no
// tier goes beyond its cap. Files that spend their time waiting (a gateway process restarting, a
// peer's answer) thus leave room for others, and a machine busy with other work is not overloaded
// further. Next is always the longest
// file left (test/durations-baseline.json; a file it does not know counts as longest) of a tier with
// room: the long process-level files start first and the short ones fill the end.
//
// Output: each file's TAP, whole, when it ends (files never interleave), test numbers continuing
// across files; then a results file for scripts/test.mjs's closing summary.
// Usage: node --import tsx scripts/test-scheduler.mjs <plan.json> <results.json>
/* global AbortController */
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { FileProcesses } from './test-processes.mjs';

const COUNTERS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const SUMMARY_LINE = new RegExp(`^(${[...COUNTERS, 'duration_ms'].join('|')}) [\\d.]+$`);
const SAMPLE_MS = 500;
const WINDOW_SAMPLES = 4;
const STEP_GAP_MS = 2_000;
/** Idle CPU (in cores) over the window above which the target grows, and below which it shrinks. */
const GROW_IDLE = 0.5;
const SHRINK_IDLE = 0.1;

/** How much of the machine is idle, from the CPUs' own counters over the last WINDOW_SAMPLES. */
class IdleMeter {
  samples = [];

  sample() {
    const list = cpus();
    let idle = 0;
    let total = 0;
    for (const { times } of list) {
      idle += times.idle;
      total += times.user + times.nice + times.sys + times.idle + times.irq;
    }
    this.samples.push({ idle, total });
    if (this.samples.length > WINDOW_SAMPLES + 1) this.samples.shift();
  }

  /** Idle cores (0 … cores) over the window; null until there is a window (or no CPU counters). */
  idleCores(cores) {
    if (this.samples.length < 2) return null;
    const first = this.samples[0];
    const last = this.samples.at(-1);
    const total = last.total - first.total;
    return total > 0 ? ((last.idle - first.idle) / total) * cores : null;
  }
}

/** Limits for a machine of `cores` CPUs; `jobs` (ZAPGATE_TEST_JOBS, --test-concurrency) fixes the number. */
export function limitsFor(cores, jobs) {
  if (jobs) return { min: jobs, max: jobs, tier: { fast: jobs, e2e: jobs, process: jobs }, adaptive: false };
  return { min: cores + 1, max: 3 * cores, tier: { fast: 2 * cores, e2e: cores, process: cores + 1 }, adaptive: true };
}

/**
 * The next file to start: the longest left whose tier has room. Process-level files never take every
 * slot while other files wait: they spend much of their time waiting on their gateways, and an
 * in-process file beside them keeps the CPUs busy (the longest files are all process-level, so
 * longest-first alone would start only those).
 */
function pickNext(pending, running, limits, target) {
  const othersWaiting = pending.some((f) => f.tier !== 'process');
  const cap = (tier) => (tier === 'process' && othersWaiting ? Math.max(1, Math.min(limits.tier.process, target - 1)) : limits.tier[tier]);
  let best = -1;
  for (let i = 0; i < pending.length; i++) {
    const f = pending[i];
    if ((running.get(f.tier) ?? 0) >= cap(f.tier)) continue;
    if (best === -1 || f.estimateMs > pending[best].estimateMs) best = i;
  }
  return best === -1 ? null : pending.splice(best, 1)[0];
}

/** Renumbers a file's TAP into the run's sequence and drops what only a whole run has (header, plan). */
function renumber(text, next) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line === 'TAP version 13' || /^1\.\.\d+$/.test(line)) continue;
    const m = /^(not ok|ok) \d+( - .*)?$/.exec(line);
    out.push(m ? `${m[1]} ${next()}${m[2] ?? ''}` : line);
  }
  return out.join('\n');
}

/** One file: its TAP (buffered), its counters, its failures, its wall time. */
async function runFile(entry, options) {
  const started = performance.now();
  const result = { file: entry.rel, tier: entry.tier, ms: 0, counts: Object.fromEntries(COUNTERS.map((c) => [c, 0])), failures: [] };
  result.startMs = Math.round(started - options.t0);
  const stream = run({ files: [entry.file], timeout: options.timeoutMs, testNamePatterns: options.testNamePatterns, only: options.only, signal: options.signal });
  async function* observe(source) {
    for await (const event of source) {
      const data = event.data ?? {};
      if (event.type === 'test:diagnostic' && data.nesting === 0 && SUMMARY_LINE.test(data.message)) {
        const [key, value] = data.message.split(' ');
        if (key in result.counts) result.counts[key] += Number(value);
        continue; // the run's totals are printed once, by scripts/test.mjs
      }
      if (event.type === 'test:plan' && data.nesting === 0) continue;
      if (event.type === 'test:fail' && !data.todo) {
        const error = data.details?.error;
        // A test whose only failure is a failing subtest is named through that subtest.
        if (error?.failureType !== 'subtestsFailed') {
          const message = String(error?.cause?.message ?? error?.cause ?? error?.message ?? error).split('\n')[0];
          result.failures.push({ file: entry.rel, name: data.name === entry.file ? '(the file)' : data.name, message });
        }
      }
      yield event;
    }
  }
  let text = '';
  for await (const chunk of tap(observe(stream))) text += chunk;
  result.ms = Math.round(performance.now() - started);
  // A file that failed outside any test (an import error, a crash) counts as one failure.
  if (result.failures.length > 0 && result.counts.fail === 0) result.counts.fail = 1;
  return { result, text };
}

export async function runPlan(plan, { write = (s) => process.stdout.write(s) } = {}) {
  const cores = Math.max(1, availableParallelism());
  const limits = limitsFor(cores, plan.jobs);
  const pending = [...plan.files];
  const running = new Map();
  const results = [];
  const abort = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => abort.abort());
  let number = 0;
  const next = () => ++number;
  /** Files running, and files running or being wound up (their left-over processes reaped). */
  let active = 0;
  let inFlight = 0;
  let target = limits.min;
  let lastStep = -Infinity;
  const t0 = performance.now();
  const meter = new IdleMeter();
  meter.sample();
  const processes = process.platform === 'linux' ? new FileProcesses() : null;
  write(`TAP version 13\n`);
  write(`# test.mjs: ${plan.files.length} files on ${cores} cores: ${limits.adaptive ? `${limits.min} at once, up to ${limits.max} while the CPUs have room` : `${limits.max} at once`}` +
    ` (per tier at most ${Object.entries(limits.tier).map(([t, n]) => `${t} ${n}`).join(', ')}), longest first\n`);

  await new Promise((resolveAll) => {
    let timer = null;
    const finish = () => {
      if (inFlight > 0 || (pending.length > 0 && !abort.signal.aborted)) return;
      clearInterval(timer);
      resolveAll();
    };
    const start = (entry) => {
      inFlight++;
      active++;
      running.set(entry.tier, (running.get(entry.tier) ?? 0) + 1);
      const startedAt = performance.now();
      processes?.start(entry.file);
      runFile(entry, { ...plan, signal: abort.signal, t0 })
        .catch((err) => ({
          result: { file: entry.rel, tier: entry.tier, startMs: Math.round(startedAt - t0), ms: Math.round(performance.now() - startedAt), counts: { tests: 0, fail: 1 }, failures: [{ file: entry.rel, name: '(the runner)', message: String(err?.message ?? err) }] },
          text: `not ok 1 - ${entry.rel} # the runner failed: ${String(err?.message ?? err).split('\n')[0]}\n`,
        }))
        .then(async ({ result, text }) => {
          active--;
          running.set(entry.tier, running.get(entry.tier) - 1);
          admit();
          try {
            Object.assign(result, (await processes?.end(entry.file)) ?? {});
          } finally {
            results.push(result);
            const cpu = result.cpuMs === undefined ? '' : `, CPU ${(result.cpuMs / 1000).toFixed(1)} s`;
            write(`# file: ${entry.rel} (${entry.tier}, ${(result.ms / 1000).toFixed(1)} s${cpu})\n${renumber(text, next)}`);
            for (const command of result.leftBehind ?? []) write(`# left running by ${entry.rel}, killed: ${command}\n`);
            inFlight--;
            finish();
          }
        });
    };
    const admit = () => {
      if (abort.signal.aborted) return finish();
      while (pending.length > 0 && active < target) {
        const entry = pickNext(pending, running, limits, target);
        if (entry === null) return;
        start(entry);
      }
    };
    /** One step of the target towards what the CPUs hold, judged on the last window. */
    const steer = () => {
      if (!limits.adaptive || performance.now() - lastStep < STEP_GAP_MS) return;
      const idle = meter.idleCores(cores);
      if (idle === null) return;
      if (idle >= GROW_IDLE && target < limits.max && active >= target) target++;
      else if (idle < SHRINK_IDLE && target > limits.min) target--;
      else return;
      lastStep = performance.now();
    };
    timer = setInterval(() => {
      meter.sample();
      processes?.sample();
      steer();
      admit();
    }, SAMPLE_MS);
    admit();
  });
  write(`1..${number}\n`);
  return { results, notRun: pending.map((f) => f.rel), cores, limits };
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const [planPath, resultsPath] = process.argv.slice(2);
  const plan = JSON.parse(readFileSync(planPath, 'utf8'));
  const outcome = await runPlan(plan);
  writeFileSync(resultsPath, JSON.stringify(outcome));
}
