// Durable send-text accepts/s versus a bare Fastify route on the same machine (docs/design.md target:
// ratio ≥ 0.6 with p99 ≤ 10 ms). Both servers run as child processes (the gateway exactly as
// `zapgate serve`: SQLite WAL, synchronous=FULL, log level warn); autocannon drives both from this
// process with the same connections and duration, in the same run. Each target's line also gives
// the CPU its server process spent per accepted request over the measured rounds (/proc/<pid>/stat,
// bench/process-cpu.ts), beside this process's (autocannon's) per request.
// Run: node --import tsx bench/enqueue.ts   (ENQUEUE_BENCH_CONNECTIONS, ENQUEUE_BENCH_SECONDS)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { addSpans, cpuMark, cpuSince, formatCpuPer, type CpuSpan } from './process-cpu.js';
import { freePort, spawnGateway } from '../test/helpers/process-gateway.js';
import { gatewayBin } from './sender-harness.js';

const CONNECTIONS = Number(process.env.ENQUEUE_BENCH_CONNECTIONS ?? 50);
const SECONDS = Math.min(Number(process.env.ENQUEUE_BENCH_SECONDS ?? 10), 60);
/** The two targets alternate in short rounds, so a change in machine load hits both alike. */
const ROUNDS = 5;
const WARMUP_SECONDS = 3;

interface Figures {
  accepted: number;
  perSecond: number;
  /** Median and worst of the per-round p50 / p99 latencies (autocannon reports percentiles per run). */
  p50: number;
  p99: number;
  p99Worst: number;
  non2xx: number;
  errors: number;
  /** CPU over the measured rounds: the server process's and this process's (autocannon). */
  cpu: CpuSpan;
}

interface Round {
  accepted: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  cpu: CpuSpan;
}

/** One autocannon run against `url`, served by the process `pid` (whose CPU is read before and after). */
async function load(pid: number | undefined, url: string, headers: Record<string, string>, body: string, seconds: number): Promise<Round> {
  const mark = cpuMark(pid);
  const result = await autocannon({ url, method: 'POST', headers, body, connections: CONNECTIONS, duration: seconds });
  const cpu = cpuSince(mark);
  return { accepted: result['2xx'], p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts, cpu };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function combine(rounds: Round[], seconds: number): Figures {
  const accepted = rounds.reduce((n, r) => n + r.accepted, 0);
  return {
    accepted,
    perSecond: accepted / seconds,
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    p99Worst: Math.max(...rounds.map((r) => r.p99)),
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    cpu: addSpans(rounds.map((r) => r.cpu)),
  };
}

async function startBare(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./bare-fastify.ts', import.meta.url)), String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  for await (const line of lines) {
    if (line.startsWith('ready ')) break;
  }
  clearTimeout(timer);
  return { child, url: `http://127.0.0.1:${port}/x` };
}

function show(name: string, f: Figures, server: string): string {
  return `${name.padEnd(22)} ${f.perSecond.toFixed(0).padStart(8)} req/s accepted   p50 ${String(f.p50).padStart(3)} ms   p99 ${String(f.p99).padStart(3)} ms (worst round ${f.p99Worst} ms)   non-2xx ${f.non2xx}   errors ${f.errors}   CPU ${formatCpuPer(f.cpu, f.accepted, 'req', 'autocannon', server)}`;
}

const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bench-'));
const token = randomBytes(20).toString('hex');
// The build, as in production (sender-harness.ts gatewayBin; BENCH_FROM_SOURCE=1 for the sources);
// BENCH_GATEWAY_NODE_ARGS="--cpu-prof --cpu-prof-dir=…" profiles it.
const gateway = await spawnGateway({
  dataDir,
  bin: gatewayBin(),
  nodeArgs: process.env.BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  env: { ZAPGATE_CLIENT_TOKEN: token, ZAPGATE_LOG_LEVEL: 'warn', ZAPGATE_RATE_LIMIT: '0', ZAPGATE_QUEUE_MAX_DISCONNECTED: '0' },
});
const bare = await startBare();
try {
  const created = await fetch(`${gateway.url}/instances`, {
    method: 'POST',
    headers: { 'client-token': token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench' }),
  });
  const { instanceId, instanceToken } = (await created.json()) as { instanceId: string; instanceToken: string };
  const sendUrl = `${gateway.url}/instances/${instanceId}/token/${instanceToken}/send-text`;
  const sendHeaders = { 'client-token': token, 'content-type': 'application/json' };
  const sendBody = JSON.stringify({ phone: '5511999990000', message: 'Olá! Seu pedido #1234 saiu para entrega.' });
  const bareHeaders = { 'content-type': 'application/json' };

  // Warm both (JIT, SQLite page cache), then measure in alternating rounds with the same settings.
  const loadBefore = loadavg()[0] ?? 0;
  await load(bare.child.pid, bare.url, bareHeaders, sendBody, WARMUP_SECONDS);
  await load(gateway.child.pid, sendUrl, sendHeaders, sendBody, WARMUP_SECONDS);
  const bareRounds: Round[] = [];
  const gatewayRounds: Round[] = [];
  const roundSeconds = Math.max(1, Math.round(SECONDS / ROUNDS));
  for (let i = 0; i < ROUNDS; i++) {
    bareRounds.push(await load(bare.child.pid, bare.url, bareHeaders, sendBody, roundSeconds));
    gatewayRounds.push(await load(gateway.child.pid, sendUrl, sendHeaders, sendBody, roundSeconds));
  }
  const b = combine(bareRounds, roundSeconds * ROUNDS);
  const g = combine(gatewayRounds, roundSeconds * ROUNDS);
  const loadAfter = loadavg()[0] ?? 0;

  // Every accepted send must be on disk: count the rows the gateway committed.
  await gateway.stop();
  const db = new Database(join(dataDir, 'zapgate.db'), { readonly: true });
  const rows = (db.prepare('select count(*) as n from messages').get() as { n: number }).n;
  const mode = (db.pragma('journal_mode', { simple: true }) as string).toUpperCase();
  db.close();

  const ratio = g.perSecond / b.perSecond;
  const rounds = gatewayRounds.map((r, i) => (r.accepted / Math.max(1, bareRounds[i]?.accepted ?? 1)).toFixed(2)).join(' ');
  console.log(
    `enqueue bench: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${roundSeconds} s per target, after ${WARMUP_SECONDS} s warm-up; ` +
      `node ${process.version}, ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)} → ${loadAfter.toFixed(1)}`,
  );
  console.log(show('bare Fastify POST /x', b, 'Fastify'));
  console.log(show('zapgate send-text', g, 'gateway'));
  console.log(`per-round ratios: ${rounds}`);
  console.log(`ratio ${ratio.toFixed(2)} (target ≥ 0.60), gateway p99 ${g.p99} ms (target ≤ 10 ms): ${ratio >= 0.6 && g.p99 <= 10 ? 'MET' : 'MISSED'}`);
  console.log(`rows committed: ${rows} (journal ${mode}, synchronous=FULL; includes ${WARMUP_SECONDS} s of warm-up sends)`);
} finally {
  await gateway.stop();
  bare.child.kill('SIGTERM');
  if (bare.child.exitCode === null) await once(bare.child, 'exit');
  rmSync(dataDir, { recursive: true, force: true });
}
