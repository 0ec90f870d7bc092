// What 100,000 queued scheduled messages cost (docs/contract.md §12): one paired number (real
// gateway process, real Baileys, simnet), pacing on as deployed. Accepts SCHEDULED send-text
// requests with `scheduledAt` a day ahead (64 concurrent clients) and prints:
//   - the accept time and rate (overall and per tenth of the run), the gateway's CPU per accept;
//   - the gateway's RSS (VmRSS) before and after, and after a restart with them queued;
//   - the data dir on disk: in all, and the SQLite file, its WAL and shared-memory file;
//   - GET {prefix}/queue/count: its answer and latency (p50 / worst over 20 calls), before and after the restart;
//   - the restart with them queued: SIGTERM → exit, spawn → /readyz green, spawn → the number
//     `connected` again (its lane can send), beside the same restart done before they were accepted;
//   - the gateway's CPU over 10 s with them queued and nothing due (does anything walk them?);
//   - the lane's head lookup (src/store/messages-repo.ts nextHead: the oldest message that is due),
//     timed on a read-only connection to the same file with its query plan, beside the single
//     query it ran before issue #25: every send from that number runs it at least once;
//   - one message scheduled SOON_S seconds ahead, accepted last, just before the restart: when it
//     reaches its contact against its `scheduledAt` (its lateness).
//
// Usage: node --import tsx bench/scheduled.ts [--messages 100000] [--soon 20]
import { readFileSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import type { ReceivedMessage } from '../simnet/src/index.js';
import { cpuMark, cpuSince, formatCpuPer, readProcessCpu } from './process-cpu.js';
import { du } from './disk-usage.js';
import { percentile, startBench, type Inst } from './sender-harness.js';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '100000' }, soon: { type: 'string', default: '20' } } });
const SCHEDULED = Number(values.messages);
const SOON_S = Number(values.soon);
const CLIENTS = 64;
const OWNER = '5511952000001';
const SOON_TO = '5521953000001';
const mib = (n: number): string => (n / 1024 / 1024).toFixed(1);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

const bench = await startBench({ simnet: { timeScale: 1 } });
const arrived = new Map<string, number>();
bench.sim.net.events.on('received', (m: ReceivedMessage) => {
  if (!arrived.has(m.id)) arrived.set(m.id, Date.now());
});

try {
  console.log(`scheduled bench: ${SCHEDULED} send-text with scheduledAt +1 day, ${CLIENTS} clients; load average ${load()} at start`);
  const inst = await bench.pair(OWNER);
  // A first message to the contact that gets the due-soon one, so its Signal session exists and its
  // lateness is the schedule's, not a first-contact key fetch.
  const warm = await bench.call('POST', `${inst.prefix}/send-text`, { phone: SOON_TO, message: 'warm-up' });
  await until(() => arrived.has(String(warm.json.messageId)), 30_000, 'the warm-up message never arrived');

  console.log(`empty queue:  rss ${mib(rss())} MiB; ${disk()}; ${await countLatency(inst)}`);
  const empty = await restart(inst);
  console.log(`  restart with nothing queued: ${empty}`);

  const dayAhead = Date.now() + 86_400_000;
  const pid = bench.gateway().child.pid!;
  const acceptCpu = cpuMark(pid);
  const t0 = performance.now();
  let next = 0;
  let refused = 0;
  // The accept rate per tenth of the run: whether it falls as the queue grows.
  const tenths: { at: number; cpuMs: number }[] = [];
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < SCHEDULED) {
        const k = next++;
        const r = await bench.call('POST', `${inst.prefix}/send-text`, {
          phone: `55219540${String(k % 100_000).padStart(5, '0')}`,
          message: `Lembrete ${k}: sua consulta é amanhã às 10h.`,
          scheduledAt: dayAhead + k,
        });
        if (r.status !== 200) refused++;
        if (++done % Math.max(1, Math.floor(SCHEDULED / 10)) === 0) tenths.push({ at: performance.now(), cpuMs: readProcessCpu(pid).ms });
      }
    }),
  );
  const acceptS = (performance.now() - t0) / 1000;
  const spent = cpuSince(acceptCpu);
  const slice = Math.floor(SCHEDULED / 10);
  const prev = (i: number): { at: number; cpuMs: number } => (i === 0 ? { at: t0, cpuMs: acceptCpu.target.ms } : tenths[i - 1]!);
  const rates = tenths.map((t, i) => `${(slice / ((t.at - prev(i).at) / 1000)).toFixed(0)} (${((t.cpuMs - prev(i).cpuMs) / slice).toFixed(3)})`);
  console.log(
    `accepted ${SCHEDULED - refused} (refused ${refused}) in ${acceptS.toFixed(1)} s = ${((SCHEDULED - refused) / acceptS).toFixed(0)} req/s; per tenth of the run: ${rates.join(', ')} req/s (ms of gateway CPU/req); ` +
      `CPU ${formatCpuPer(spent, SCHEDULED, 'req', 'simnet + clients')}`,
  );
  console.log(`queued:       rss ${mib(rss())} MiB; ${disk()}; ${await countLatency(inst)}`);
  console.log(`  ${highWater()}`);
  console.log(`  ${await idleCpuLine()}`);
  console.log(`  ${headQuery(inst.id)}`);

  const soonAt = Date.now() + SOON_S * 1000;
  const soon = await bench.call('POST', `${inst.prefix}/send-text`, { phone: SOON_TO, message: 'due soon', scheduledAt: soonAt });
  if (soon.status !== 200) throw new Error(`due-soon message: ${soon.status} ${JSON.stringify(soon.json)}`);
  const full = await restart(inst);
  console.log(`  restart with ${SCHEDULED + 1} queued: ${full}`);
  console.log(`after restart: rss ${mib(rss())} MiB; ${disk()}; ${await countLatency(inst)}`);
  console.log(`  ${await idleCpuLine()}`);
  const soonId = String(soon.json.messageId);
  await until(() => arrived.has(soonId), SOON_S * 1000 + 120_000, 'the due-soon message never arrived');
  console.log(`due-soon message (scheduledAt +${SOON_S} s, accepted just before the restart): at its contact ${arrived.get(soonId)! - soonAt} ms after its scheduledAt`);
  console.log(`after it left: ${await countLatency(inst)}; load average ${load()} at the end`);
} finally {
  await bench.close();
}

/** SIGTERM → exit, then spawn → /readyz, then → the number connected again. */
async function restart(inst: Inst): Promise<string> {
  const s0 = performance.now();
  await bench.gateway().stop();
  const stopMs = performance.now() - s0;
  const t0 = performance.now();
  await bench.restart();
  const readyMs = performance.now() - t0;
  await bench.waitStatus(inst, 'connected', 120_000);
  const connectedMs = performance.now() - t0;
  return `stop ${stopMs.toFixed(0)} ms; spawn → /readyz ${readyMs.toFixed(0)} ms, → connected ${connectedMs.toFixed(0)} ms; rss ${mib(rss())} MiB`;
}

/** GET {prefix}/queue/count 20 times: its answer, p50 and worst latency. */
async function countLatency(inst: Inst): Promise<string> {
  const times: number[] = [];
  let count = NaN;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const r = await bench.call('GET', `${inst.prefix}/queue/count`);
    times.push(performance.now() - t0);
    count = Number(r.json.count);
  }
  times.sort((a, b) => a - b);
  return `queue/count = ${count} in p50 ${percentile(times, 50).toFixed(1)} ms, worst ${times.at(-1)!.toFixed(1)} ms`;
}

function rss(): number {
  const status = readFileSync(`/proc/${bench.gateway().child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) * 1024;
}


function disk(): string {
  const size = (f: string): string => {
    try {
      return mib(statSync(join(bench.dataDir, f)).size);
    } catch {
      return '0';
    }
  };
  return `data dir ${mib(du(bench.dataDir))} MiB (zapgate.db ${size('zapgate.db')}, -wal ${size('zapgate.db-wal')}, -shm ${size('zapgate.db-shm')})`;
}

function highWater(): string {
  return `gateway RSS high-water mark ${mib(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${bench.gateway().child.pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024)} MiB`;
}

async function idleCpuLine(): Promise<string> {
  const mark = cpuMark(bench.gateway().child.pid);
  await sleep(10_000);
  const span = cpuSince(mark);
  return `gateway CPU over 10 s with nothing due: ${(span.targetMs / span.wallMs).toFixed(3)} cores`;
}

/**
 * The lane's head lookups as src/store/messages-repo.ts nextHead runs them (the oldest unscheduled
 * waiting message, the oldest due scheduled one), on a read-only connection: time and plan; beside
 * them the single query it ran before (`scheduled_at is null or scheduled_at <= now`).
 */
function headQuery(instanceId: string): string {
  const db = new Database(join(bench.dataDir, 'zapgate.db'), { readonly: true, fileMustExist: true });
  const waiting = "select *, length(payload) from messages where instance_id = ? and state in ('queued', 'in_flight')";
  const shapes = {
    now: [`${waiting} and scheduled_at is null order by seq limit 1`, `${waiting} and scheduled_at <= ? order by seq limit 1`],
    before: [`${waiting} and (scheduled_at is null or scheduled_at <= ?) order by seq limit 1`],
  };
  try {
    const time = (queries: string[]): string => {
      const stmts = queries.map((q) => db.prepare(q));
      const run = (): void => void stmts.forEach((st, i) => (queries[i]!.includes('<= ?') ? st.get(instanceId, Date.now()) : st.get(instanceId)));
      run();
      const times: number[] = [];
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        run();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const plan = queries
        .map((q) => (db.prepare(`explain query plan ${q}`).all(...(q.includes('<= ?') ? [instanceId, Date.now()] : [instanceId])) as { detail: string }[]).map((r) => r.detail).join(', '))
        .join(' + ');
      return `p50 ${percentile(times, 50).toFixed(2)} ms, worst ${times.at(-1)!.toFixed(2)} ms (${plan})`;
    };
    return `the lane's head lookup with nothing due: ${time(shapes.now)}; the single query it ran before: ${time(shapes.before)}`;
  } finally {
    db.close();
  }
}

async function until(done: () => boolean, timeoutMs: number, message: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(message);
    await sleep(10);
  }
}
