// The closing summary of a test run (scripts/test.mjs prints it after the TAP) and the baseline of
// file durations it compares against. CI keeps only the tail of a run's output: the summary names
// every failing test with its file and the first line of its error (a failure among ~1,200 passing
// tests would otherwise go unnamed), the slowest files, and each file that became much slower.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './test-tiers.mjs';

export const BASELINE_PATH = join(REPO_ROOT, 'test/durations-baseline.json');
const SLOWEST = 10;
/** A file is reported SLOWER when it takes more than this times its baseline… */
const SLOWER_FACTOR = 2;
/** …and its baseline is at least this long: shorter files vary too much with the machine's load. */
const SLOWER_MIN_BASELINE_MS = 5_000;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const clock = (ms) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;

/** { file: ms } from the baseline file; empty when there is none. */
export function readBaseline(path = BASELINE_PATH) {
  if (!existsSync(path)) return {};
  return JSON.parse(readFileSync(path, 'utf8')).files ?? {};
}

/**
 * Rewrites the baseline with this run's times: files that ran and passed take their new time, files
 * that failed keep the old one when there is one (a timeout or an early failure is a poor measure,
 * though better than none), files that no longer exist are dropped.
 */
export function writeBaseline(results, { exists, note }, path = BASELINE_PATH) {
  const before = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const files = Object.fromEntries(Object.entries(before.files ?? {}).filter(([file]) => exists(file)));
  let written = 0;
  for (const r of results) {
    if (r.failures.length > 0 && r.file in files) continue;
    files[r.file] = r.ms;
    written++;
  }
  const sorted = Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b)));
  // A partial run says which times it rewrote, and keeps how the others were measured.
  const measured = written < Object.keys(sorted).length && before.measured ? `${before.measured}; ${written} files rewritten: ${note}` : note;
  const doc = {
    about: 'Wall time (ms) of each test file in the run that wrote this file (`node scripts/test.mjs --write-baseline`). ' +
      'scripts/test.mjs starts the longest files first and warns about a file taking more than twice its time here.',
    measured,
    files: sorted,
  };
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return written;
}

/** How many files ran at once: on average over the run, and at most. */
function atOnce(results) {
  const edges = results.flatMap((r) => [[r.startMs, 1], [r.startMs + r.ms, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  const span = edges.at(-1)[0] - edges[0][0];
  const busy = results.reduce((sum, r) => sum + r.ms, 0);
  return `${span > 0 ? (busy / span).toFixed(1) : '1.0'} on average, ${peak} at most`;
}

/** The lines of the closing summary, each a TAP comment. */
export function summary({ results, notRun = [], baseline = {}, wallMs, cpuMs, cores }) {
  const lines = [];
  const total = Object.fromEntries(['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'].map((k) => [k, 0]));
  const tiers = {};
  for (const r of results) {
    for (const k of Object.keys(total)) total[k] += r.counts[k] ?? 0;
    const t = (tiers[r.tier] ??= { files: 0, ms: 0, cpuMs: 0 });
    t.files++;
    t.ms += r.ms;
    t.cpuMs += r.cpuMs ?? 0;
  }
  const cpu = cpuMs === undefined ? '' : `, CPU ${clock(cpuMs)} (${(cpuMs / wallMs).toFixed(1)} of ${cores} cores)`;
  lines.push(`# ${total.tests} tests: ${total.pass} passed, ${total.fail} failed, ${total.skipped} skipped, ${total.todo} todo, ${total.cancelled} cancelled`);
  lines.push(`# ${results.length} files in ${clock(wallMs)}${cpu}`);
  for (const [tier, t] of Object.entries(tiers)) {
    lines.push(`#   ${tier}: ${t.files} files, ${clock(t.ms)} in all${t.cpuMs > 0 ? `, CPU ${clock(t.cpuMs)}` : ''}`);
  }
  if (results.length > 1) lines.push(`# files at once: ${atOnce(results)}`);
  if (notRun.length > 0) lines.push(`# not run (interrupted): ${notRun.length} files`);

  const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST);
  if (slowest.length > 1) {
    lines.push('# slowest files:');
    for (const r of slowest) lines.push(`#   ${seconds(r.ms).padStart(8)}  ${r.file} (${r.tier}${r.cpuMs === undefined ? '' : `, CPU ${seconds(r.cpuMs)}`})`);
  }
  const compared = results.filter((r) => baseline[r.file] >= SLOWER_MIN_BASELINE_MS);
  for (const r of compared) {
    if (r.ms > SLOWER_FACTOR * baseline[r.file]) lines.push(`# SLOWER: ${r.file} ${seconds(baseline[r.file])} → ${seconds(r.ms)}`);
  }
  // When most files are slower, the machine is the likelier cause than each file.
  const ratios = compared.map((r) => r.ms / baseline[r.file]).sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)];
  if (ratios.length >= 5 && median >= 1.5) lines.push(`# the median file took ${median.toFixed(1)}× its baseline time: a machine busy with other work?`);
  for (const r of results) {
    if ((r.leftBehind ?? []).length > 0) lines.push(`# LEFT RUNNING: ${r.file} ended with ${r.leftBehind.length} of its processes running (killed): ${r.leftBehind[0]}${r.leftBehind.length > 1 ? ', …' : ''}`);
  }
  const failures = results.flatMap((r) => r.failures);
  if (failures.length > 0) {
    lines.push(`# failing tests (${failures.length}):`);
    for (const f of failures) lines.push(`#   ${f.file} > ${f.name}: ${f.message}`);
  }
  return lines;
}
