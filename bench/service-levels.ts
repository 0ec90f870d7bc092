// Service levels: how soon things happen that the process tests only assert do happen (a test
// asserts the behaviour, never how fast a loaded machine manages it; test/helpers/wait.ts). One
// run measures, with the real gateway processes (real Baileys), simnet and PostgreSQL on loopback:
//
//   1. scheduled sends across a crash: one paired number (production time scale, pacing on),
//      messages scheduled a few seconds apart, the gateway killed with kill -9 right after
//      accepting them and restarted: each one's lateness, its arrival at the contact (simnet's
//      clock) minus its `scheduledAt` (test/e2e/scheduled-kill9.test.ts);
//   2. API keys across two cluster nodes: a key cached on node B, revoked on node A — the ms until
//      B refuses it (the account_changes poll); a key rotated on A with a 1 s overlap — how long
//      after the overlap ends B refuses the old secret (test/e2e/cluster-keys.test.ts);
//   3. failover and drain in a two-node cluster (lease 10 s, heartbeat 1 s, the tests' settings):
//      kill -9 of the node running instances — ms until the network sees its sockets close, and
//      until each instance is connected on the other node (test/e2e/cluster-failover.test.ts);
//      SIGTERM of such a node — the drain (SIGTERM → exit) and each instance's time offline as the
//      network sees it (test/e2e/cluster-rolling.test.ts).
//
// Percentiles over the samples of one run (a few each: this is a check of the figures the tests
// print, not a load test). The gateways run the compiled build, as in production (rebuilt first when
// a source is newer; BENCH_FROM_SOURCE=1 runs the sources).
//
// Usage: node --import tsx bench/service-levels.ts [--scheduled 8] [--keys 20] [--rotations 5] [--rounds 2]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startCluster, type ClusterHarness, type ClusterInstance } from '../test/helpers/cluster-harness.js';
import { sleep, until, waitFor } from '../test/helpers/wait.js';
import { gatewayBin, percentile, startBench } from './sender-harness.js';

const { values } = parseArgs({
  options: {
    scheduled: { type: 'string', default: '8' },
    keys: { type: 'string', default: '20' },
    rotations: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2' },
  },
});
const SCHEDULED = Number(values.scheduled);
const KEYS = Number(values.keys);
const ROTATIONS = Number(values.rotations);
const ROUNDS = Number(values.rounds);
const BIN = gatewayBin();

/** "p50 / p90 / max" of `samples` in ms (or s with `unit` 's'). */
function summary(samples: readonly number[], unit: 'ms' | 's' = 'ms'): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const f = (ms: number): string => (unit === 's' ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
  return `p50 ${f(percentile(sorted, 50))} / p90 ${f(percentile(sorted, 90))} / max ${f(sorted[sorted.length - 1] ?? NaN)} (n=${sorted.length})`;
}

const results: string[] = [];
const report = (line: string): void => {
  results.push(line);
  console.log(line);
};

// 1. Scheduled sends across a kill -9 and restart ---------------------------------------------

async function scheduledAcrossCrash(): Promise<void> {
  const OWNER = '5511970000091';
  const CONTACTS = ['5511980000091', '5511980000092'];
  const bench = await startBench();
  try {
    await bench.admin.createUser({ phone: OWNER, pushName: 'owner' });
    for (const c of CONTACTS) await bench.admin.createUser({ phone: c, pushName: `contact ${c.slice(-2)}` });
    const inst = await bench.pair(OWNER);
    // A first message to each contact, so the scheduled ones need no new Signal session.
    for (const c of CONTACTS) {
      const r = await bench.call('POST', `${inst.prefix}/send-text`, { phone: c, message: 'hello' });
      await bench.admin.waitForReceived(c, (m) => m.id === String(r.json.messageId), 60_000);
    }
    // 4 s apart, beyond the pacing's longest gap (3 s): each one's lateness is its own. The first
    // is due well after the restart.
    const t0 = Date.now();
    const due: { id: string; to: string; at: number }[] = [];
    for (let i = 0; i < SCHEDULED; i++) {
      const at = t0 + 20_000 + i * 4_000;
      const to = CONTACTS[i % CONTACTS.length]!;
      const r = await bench.call('POST', `${inst.prefix}/send-text`, { phone: to, message: `scheduled ${i}`, scheduledAt: at });
      if (r.status !== 200) throw new Error(`send-text: ${r.status} ${JSON.stringify(r.json)}`);
      due.push({ id: String(r.json.messageId), to, at });
    }
    const killedAt = performance.now();
    await bench.gateway().kill9();
    await bench.restart();
    const readyMs = performance.now() - killedAt;
    await bench.waitStatus(inst, 'connected');
    const connectedMs = performance.now() - killedAt;
    if (Date.now() >= due[0]!.at) throw new Error('the restart took longer than the first message\'s schedule: nothing to measure');
    const lateness = await Promise.all(
      due.map(async (d) => {
        const got = await bench.admin.waitForReceived(d.to, (m) => m.id === d.id, d.at - Date.now() + 120_000);
        return got.atMs - d.at;
      }),
    );
    const early = lateness.filter((ms) => ms < 0);
    if (early.length > 0) throw new Error(`${early.length} scheduled messages arrived before their time`);
    report(`scheduled sends after a kill -9 and restart (time scale 1, pacing on, ${SCHEDULED} messages 4 s apart): restart → /readyz ${(readyMs / 1000).toFixed(1)} s, → connected ${(connectedMs / 1000).toFixed(1)} s; lateness after scheduledAt ${summary(lateness)}`);
  } finally {
    await bench.close();
  }
}

// 2. API keys across two nodes ------------------------------------------------------------------

async function keysAcrossNodes(): Promise<void> {
  const h = await startCluster({ owners: [], contacts: [], ...(BIN ? { bin: BIN } : {}) });
  try {
    await h.startNode('a');
    await h.startNode('b');
    const use = async (node: string, key: string): Promise<number> => (await h.api(node, 'GET', '/instances', undefined, { 'client-token': key })).status;
    const create = async (name: string): Promise<{ id: string; key: string }> => {
      const r = await h.api('a', 'POST', '/keys', { scopes: ['read'], name });
      if (r.status !== 201) throw new Error(`POST /keys: ${r.status} ${JSON.stringify(r.json)}`);
      return { id: String(r.json.id), key: String(r.json.key) };
    };
    const revocation: number[] = [];
    for (let i = 0; i < KEYS; i++) {
      const { id, key } = await create(`revoked ${i}`);
      if ((await use('b', key)) !== 200) throw new Error('the key does not work on the other node');
      const r = await h.api('a', 'DELETE', `/keys/${id}`);
      if (r.status !== 200) throw new Error(`DELETE /keys: ${r.status}`);
      const t = performance.now();
      await until('B to refuse the revoked key', () => use('b', key), (s) => s === 401, { pollMs: 5 });
      revocation.push(performance.now() - t);
    }
    report(`API key revoked on node A, cached on node B: B refuses it ${summary(revocation)} after A answered the revocation`);

    const overlapEnd: number[] = [];
    for (let i = 0; i < ROTATIONS; i++) {
      const { id, key } = await create(`rotated ${i}`);
      if ((await use('b', key)) !== 200) throw new Error('the key does not work on the other node');
      const rotatedAt = Date.now();
      const r = await h.api('a', 'POST', `/keys/${id}/rotate`, { overlapSeconds: 1 });
      if (r.status !== 200) throw new Error(`rotate: ${r.status} ${JSON.stringify(r.json)}`);
      await until('B to refuse the old secret', () => use('b', key), (s) => s === 401, { pollMs: 5 });
      overlapEnd.push(Date.now() - rotatedAt - 1_000);
    }
    report(`API key rotated on node A with a 1 s overlap: B refuses the old secret ${summary(overlapEnd)} after the overlap ends (timed from the rotation request)`);
  } finally {
    await h.close();
  }
}

// 3. Failover and drain -------------------------------------------------------------------------

async function failoverAndDrain(): Promise<void> {
  const OWNERS = ['5511977790091', '5511977790092', '5511977790093', '5511977790094'];
  const h: ClusterHarness = await startCluster({ owners: OWNERS, contacts: [], heartbeatMs: 1_000, leaseMs: 10_000, ...(BIN ? { bin: BIN } : {}) });
  try {
    const NODES = ['n1', 'n2'];
    for (const n of NODES) await h.startNode(n);
    const instances: ClusterInstance[] = [];
    for (const [i, phone] of OWNERS.entries()) instances.push(await h.pair(NODES[i % NODES.length]!, phone));
    const online = async (phone: string): Promise<boolean> => (await h.admin.user(phone)).devices.some((d) => d.online);
    const ownerOf = async (inst: ClusterInstance, via: string): Promise<string> => String((await h.api(via, 'GET', `${inst.prefix}/status`)).json.ownerNode);
    const balanced = async (): Promise<void> => {
      await until(
        'the instances shared evenly and connected',
        async () => {
          const c: Record<string, number> = {};
          for (const inst of instances) {
            const s = (await h.api('n1', 'GET', `${inst.prefix}/status`).catch(() => null))?.json;
            const o = s?.connected === true ? String(s.ownerNode) : 'none';
            c[o] = (c[o] ?? 0) + 1;
          }
          return c;
        },
        (c) => NODES.every((n) => c[n] === OWNERS.length / NODES.length),
        { timeoutMs: 120_000, pollMs: 250 },
      );
    };
    const closedSeen: number[] = [];
    const takeover: number[] = [];
    const drain: number[] = [];
    const offline: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await balanced();
      // kill -9 of the node running instances; the other takes them over once the lease runs out.
      const victim = NODES[round % NODES.length]!;
      const survivor = NODES[(round + 1) % NODES.length]!;
      const theirs: ClusterInstance[] = [];
      for (const inst of instances) if ((await ownerOf(inst, survivor)) === victim) theirs.push(inst);
      const killedAt = performance.now();
      await h.nodes.get(victim)!.kill9();
      h.nodes.delete(victim);
      await Promise.all(
        theirs.map(async (inst) => {
          await waitFor(`the network to see ${inst.phone}'s socket close`, async () => !(await online(inst.phone)), { pollMs: 10 });
          closedSeen.push(performance.now() - killedAt);
          await h.connected(survivor, inst, 120_000, victim);
          takeover.push(performance.now() - killedAt);
        }),
      );
      await h.startNode(victim);
      await balanced();

      // SIGTERM: the node hands its instances over, then exits.
      const leaving = NODES[(round + 1) % NODES.length]!;
      const staying = NODES[round % NODES.length]!;
      const handed: ClusterInstance[] = [];
      for (const inst of instances) if ((await ownerOf(inst, staying)) === leaving) handed.push(inst);
      const spells = new Map<string, number>();
      let watching = true;
      // Sampled every 20 ms: the figure's resolution.
      const watcher = Promise.all(
        handed.map(async (inst) => {
          let since: number | null = null;
          while (watching) {
            const on = await online(inst.phone);
            if (!on && since === null) since = performance.now();
            if (on && since !== null) {
              spells.set(inst.phone, Math.max(spells.get(inst.phone) ?? 0, performance.now() - since));
              since = null;
            }
            await sleep(20);
          }
        }),
      );
      const stoppedAt = performance.now();
      const proc = h.nodes.get(leaving)!;
      await proc.stop(60_000);
      drain.push(performance.now() - stoppedAt);
      if ((await proc.exited) !== 0) throw new Error(`${leaving} did not exit cleanly: ${String(await proc.exited)}`);
      h.nodes.delete(leaving);
      for (const inst of handed) await h.connected(staying, inst, 120_000, leaving);
      await waitFor('the handed-over numbers online', async () => (await Promise.all(handed.map((i) => online(i.phone)))).every(Boolean), { pollMs: 20 });
      watching = false;
      await watcher;
      for (const inst of handed) offline.push(spells.get(inst.phone) ?? 0);
      await h.startNode(leaving);
    }
    report(`kill -9 of a node (lease 10 s, heartbeat 1 s): the network sees its sockets close ${summary(closedSeen)}; its instances connected on the other node ${summary(takeover, 's')}`);
    report(`SIGTERM of a node: drained and exited ${summary(drain, 's')}; each handed-over instance offline ${summary(offline, 's')}`);
  } finally {
    await h.close();
  }
}

const started = performance.now();
const load = loadavg()[0]!.toFixed(1);
console.log(`service levels (${BIN ? 'compiled build' : 'sources'}; load average ${load} at the start)`);
await scheduledAcrossCrash();
await keysAcrossNodes();
await failoverAndDrain();
console.log(`\nsummary (${((performance.now() - started) / 1000).toFixed(0)} s; load average ${load} at the start, ${loadavg()[0]!.toFixed(1)} at the end):`);
for (const line of results) console.log(`- ${line}`);
