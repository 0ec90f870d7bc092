// Cluster mode throughput and failover: 1, 2 and 3 real gateway processes on one PostgreSQL, each
// with its share of the instances, pacing off, simnet as the network (all on loopback).
// For each cluster size: accepted sends per second (requests spread over every node, so most are
// forwarded to their instance's owner) with latency percentiles, and end-to-end throughput (until
// the contact's phone has decrypted every message). Then, with the largest cluster, the failover
// time: kill -9 a node and time until each of its instances is connected on another. Per node, for
// sizing (docs/cluster.md, "Sizing"): its instances, and the most RSS and PostgreSQL connections it
// had while the sends ran and were delivered (sampled every 250 ms: /proc and `ss`).
//
// All processes share this machine's cores: on one small machine more nodes add forwarding and
// contention rather than capacity, and the ratios say what that costs; on separate machines each
// node brings its own cores. The nodes run the compiled build, as in production (rebuilt first when
// a source is newer; BENCH_FROM_SOURCE=1 runs the sources).
//
// Usage: node --import tsx bench/cluster.ts [--nodes 1,2,3] [--instances 6] [--messages 600]
//          [--concurrency 32] [--lease-ms 5000] [--heartbeat-ms 1000]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type ClusterHarness, type ClusterInstance } from '../test/helpers/cluster-harness.js';
import { gatewayBin, percentile } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: '1,2,3' },
    instances: { type: 'string', default: '6' },
    messages: { type: 'string', default: '600' },
    concurrency: { type: 'string', default: '32' },
    'lease-ms': { type: 'string', default: '5000' },
    'heartbeat-ms': { type: 'string', default: '1000' },
  },
});
const SIZES = values.nodes.split(',').map(Number);
const INSTANCES = Number(values.instances);
const MESSAGES = Number(values.messages);
const CONCURRENCY = Number(values.concurrency);
const CONTACT = '5511966690001';
const BIN = gatewayBin();
const owners = Array.from({ length: INSTANCES }, (_, i) => `55119777900${String(i + 1).padStart(2, '0')}`);

interface Row {
  nodes: number;
  acceptedPerSec: number;
  p50: number;
  p99: number;
  deliveredPerSec: number;
  forwarded: number;
  /** Per node: the most RSS (MB) and PostgreSQL connections seen while sending and delivering. */
  peaks: { rssMb: number; pgConnections: number }[];
}

/** A process's resident memory, MB (Linux). */
function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

/** Established TCP connections to PostgreSQL's port, per process id (Linux `ss`). */
function pgConnectionsByPid(pgPort: string): Map<number, number> {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established', `( dport = :${pgPort} )`], { encoding: 'utf8' });
  const byPid = new Map<number, number>();
  for (const m of out.matchAll(/pid=(\d+),/g)) byPid.set(Number(m[1]), (byPid.get(Number(m[1])) ?? 0) + 1);
  return byPid;
}

async function run(size: number, failover: boolean): Promise<{ row: Row; failoverMs: number[] }> {
  const h: ClusterHarness = await startCluster({
    owners,
    contacts: [CONTACT],
    heartbeatMs: Number(values['heartbeat-ms']),
    leaseMs: Number(values['lease-ms']),
    env: { ZAPGATE_PACING: 'off', ZAPGATE_QUEUE_MAX_DISCONNECTED: '100000' },
    ...(BIN ? { bin: BIN } : {}),
  });
  try {
    const names = Array.from({ length: size }, (_, i) => `n${i + 1}`);
    for (const n of names) await h.startNode(n);
    const instances: ClusterInstance[] = [];
    for (const [i, phone] of owners.entries()) instances.push(await h.pair(names[i % size]!, phone));
    const before = (await h.admin.received(CONTACT)).length;

    const pids = names.map((n) => h.nodes.get(n)!.child.pid!);
    const pgPort = new URL(h.databaseUrl).port || '5432';
    const peaks = pids.map(() => ({ rssMb: 0, pgConnections: 0 }));
    const sample = (): void => {
      const conns = pgConnectionsByPid(pgPort);
      pids.forEach((pid, i) => {
        peaks[i]!.rssMb = Math.max(peaks[i]!.rssMb, rssMb(pid));
        peaks[i]!.pgConnections = Math.max(peaks[i]!.pgConnections, conns.get(pid) ?? 0);
      });
    };
    const sampler = setInterval(sample, 250);

    const latencies: number[] = [];
    const ids: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = next++; i < MESSAGES; i = next++) {
          const inst = instances[i % instances.length]!;
          // Each round of INSTANCES requests goes to the next node, so a request reaches its
          // instance's owner only 1 time in N, as behind a load balancer: the rest are forwarded.
          const via = names[Math.floor(i / instances.length) % names.length]!;
          const t = performance.now();
          const r = await h.api(via, 'POST', `${inst.prefix}/send-text`, { phone: CONTACT, message: `bench ${i}` });
          latencies.push(performance.now() - t);
          if (r.status !== 200) throw new Error(`send ${r.status} ${JSON.stringify(r.json)}`);
          ids.push(String(r.json.messageId));
        }
      }),
    );
    const acceptedMs = performance.now() - started;
    const deadline = Date.now() + 300_000;
    while (Date.now() < deadline && (await h.admin.received(CONTACT)).length - before < MESSAGES) await sleep(100);
    const deliveredMs = performance.now() - started;
    clearInterval(sampler);
    sample();
    const got = (await h.admin.received(CONTACT)).length - before;
    if (got < MESSAGES) throw new Error(`only ${got} of ${MESSAGES} messages delivered`);
    latencies.sort((a, b) => a - b);
    let forwarded = 0;
    for (const n of names) {
      const text = await (await fetch(`${h.nodes.get(n)!.url}/metrics`)).text();
      const m = /zapgate_cluster_forwarded_requests_total\{result="ok"\} (\d+)/.exec(text);
      forwarded += Number(m?.[1] ?? 0);
    }
    const row: Row = {
      nodes: size,
      acceptedPerSec: MESSAGES / (acceptedMs / 1000),
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      deliveredPerSec: MESSAGES / (deliveredMs / 1000),
      forwarded,
      peaks,
    };

    const failoverMs: number[] = [];
    if (failover && size > 1) {
      const victim = names[0]!;
      const survivor = names[1]!;
      const theirs: ClusterInstance[] = [];
      for (const inst of instances) if ((await h.api(survivor, 'GET', `${inst.prefix}/status`)).json.ownerNode === victim) theirs.push(inst);
      const killedAt = Date.now();
      await h.nodes.get(victim)!.kill9();
      h.nodes.delete(victim);
      await Promise.all(
        theirs.map(async (inst) => {
          await h.connected(survivor, inst, 120_000, victim);
          failoverMs.push(Date.now() - killedAt);
        }),
      );
    }
    return { row, failoverMs };
  } finally {
    await h.close();
  }
}

const rows: Row[] = [];
let failover: number[] = [];
for (const [i, size] of SIZES.entries()) {
  const r = await run(size, i === SIZES.length - 1);
  rows.push(r.row);
  if (r.failoverMs.length > 0) failover = r.failoverMs;
}
const base = rows[0]!;
console.log(`cluster bench: ${INSTANCES} instances, ${MESSAGES} text sends over every node (concurrency ${CONCURRENCY}), pacing off, one PostgreSQL, simnet`);
console.log('nodes | accepted/s | vs 1 node | p50 ms | p99 ms | forwarded | end-to-end msg/s | vs 1 node');
for (const r of rows) {
  console.log(
    `${String(r.nodes).padStart(5)} | ${r.acceptedPerSec.toFixed(0).padStart(10)} | ${(r.acceptedPerSec / base.acceptedPerSec).toFixed(2).padStart(9)} | ${r.p50.toFixed(1).padStart(6)} | ${r.p99.toFixed(1).padStart(6)} | ${String(r.forwarded).padStart(9)} | ${r.deliveredPerSec.toFixed(0).padStart(16)} | ${(r.deliveredPerSec / base.deliveredPerSec).toFixed(2).padStart(9)}`,
  );
}
console.log('per node (most while sending and delivering): instances | RSS MB | PostgreSQL connections');
for (const r of rows) {
  console.log(`${r.nodes} node(s): ${r.peaks.map((p, i) => `n${i + 1} ${Math.round(INSTANCES / r.nodes)} | ${p.rssMb.toFixed(0)} | ${p.pgConnections}`).join('; ')}`);
}
if (failover.length > 0) {
  failover.sort((a, b) => a - b);
  console.log(
    `failover (kill -9 of one of ${SIZES[SIZES.length - 1]} nodes, lease ${values['lease-ms']} ms, heartbeat ${values['heartbeat-ms']} ms): ${failover.length} instances connected again after ${failover.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s (p50 ${(percentile(failover, 50) / 1000).toFixed(1)} s, max ${(failover[failover.length - 1]! / 1000).toFixed(1)} s)`,
  );
}
