// A rolling deploy of a cluster, end to end: three real gateway processes on one PostgreSQL, real
// Baileys, simnet. Under steady two-way traffic (sends through any node, messages from a contact
// to every number), each node in turn is stopped with SIGTERM (it drains: hands its instances over,
// then exits) and started again, the way a new version is shipped. Nothing accepted is lost, every
// incoming message reaches the webhook, no device is ever logged in twice, every instance is
// handed over (none waits for its lease to run out), and each instance's offline time — as the
// network sees it — and each node's drain time are measured and reported (docs/cluster.md,
// "Rolling deploys"; service levels, also measured by bench/service-levels.ts). Six instances, two
// per node: after each restart the share is even again before the next node goes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertOneSocketPerDevice, startCluster, type ClusterHarness, type ClusterInstance } from '../helpers/cluster-harness.js';
import { settle, sleep, until } from '../helpers/wait.js';

const OWNERS = ['5511977720001', '5511977720002', '5511977720003', '5511977720004', '5511977720005', '5511977720006'];
const CONTACT = '5511966620001';
const NODES = ['n1', 'n2', 'n3'];
/** Instances per node once shared evenly. */
const SHARE = OWNERS.length / NODES.length;
/**
 * Longer than the harness's 10 s, so that an instance left to its lease (not handed over) cannot
 * pass for a slow handover on a loaded machine: it would be offline this long at least. Nothing
 * dies in this test, so the lease's length changes nothing else.
 */
const LEASE_MS = 30_000;
/** What a supervisor waits after SIGTERM before it kills (a drain must end well before). */
const SUPERVISOR_GRACE_MS = 60_000;

describe('cluster mode: a rolling restart of every node under two-way traffic', () => {
  let h: ClusterHarness;
  const instances: ClusterInstance[] = [];

  before(async () => {
    h = await startCluster({ owners: OWNERS, contacts: [CONTACT], leaseMs: LEASE_MS });
    await h.startNodes(...NODES);
    for (const phone of OWNERS) instances.push(await h.pair(NODES[Math.floor(Math.random() * NODES.length)] ?? 'n1', phone));
    await assertOneSocketPerDevice(h.admin, OWNERS, 'after pairing through random nodes');
  });

  after(async () => {
    await h?.close();
  });

  async function owners(): Promise<Record<string, number>> {
    const via = [...h.nodes.keys()][0] ?? 'n1';
    const c: Record<string, number> = {};
    for (const inst of instances) {
      const s = await h.api(via, 'GET', `${inst.prefix}/status`).catch(() => null);
      const owner = s?.json.connected === true && typeof s.json.ownerNode === 'string' ? s.json.ownerNode : 'none';
      c[owner] = (c[owner] ?? 0) + 1;
    }
    return c;
  }

  test('each node stopped (SIGTERM) and started again in turn: 0 lost either way, one socket per device, offline time per instance measured', async (t) => {
    const startedAt = Date.now();
    // The network's view of each number: offline spells, sampled every 100 ms (the measurement's
    // resolution, not a wait).
    const offline = new Map<string, number[]>(OWNERS.map((p) => [p, []]));
    const offlineSince = new Map<string, number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        for (const phone of OWNERS) {
          const online = (await h.admin.user(phone)).devices.some((d) => d.online);
          const since = offlineSince.get(phone);
          if (!online && since === undefined) offlineSince.set(phone, Date.now());
          if (online && since !== undefined) {
            offline.get(phone)?.push(Date.now() - since);
            offlineSince.delete(phone);
          }
        }
        await sleep(100); // the sampling interval
      }
    })();

    // Steady traffic: a send per instance through a node picked at random among those running
    // (the one draining included: it answers or refuses, and what it accepted must arrive), and a
    // message from the contact to every number.
    const accepted = new Map<string, string>();
    const incoming = new Map<string, string>();
    const failures: string[] = [];
    let refused = 0;
    let stop = false;
    let round = 0;
    const traffic = (async () => {
      while (!stop) {
        round++;
        for (const inst of instances) {
          const running = [...h.nodes.keys()];
          const via = running[Math.floor(Math.random() * running.length)] ?? 'n1';
          const r = await h.api(via, 'POST', `${inst.prefix}/send-text`, { phone: CONTACT, message: `rolling ${round} from ${inst.phone}` }).catch(() => null);
          if (r?.status === 200 && typeof r.json.messageId === 'string') accepted.set(r.json.messageId, inst.phone);
          else if (r === null || r.status === 503) refused++; // not accepted: a client retries it
          else failures.push(`send via ${via}: ${r.status} ${JSON.stringify(r.json)}`);
          const sent = await h.admin.sendAsContact({ from: CONTACT, to: inst.phone, type: 'text', text: `to ${inst.phone} round ${round}` });
          incoming.set(sent.messageId, inst.phone);
        }
        await sleep(250); // the traffic's own pace
      }
    })();

    await until('a few rounds of traffic before the first stop', () => round, (r) => r >= 2);
    const drains: string[] = [];
    for (const name of NODES) {
      const proc = h.nodes.get(name);
      assert.ok(proc, `${name} runs`);
      const t0 = Date.now();
      // The drain must end before the supervisor's kill (stop() sends SIGKILL then, and the exit
      // code is no longer 0); how long it took is a service level, printed below.
      await proc.stop(SUPERVISOR_GRACE_MS);
      const drainedMs = Date.now() - t0;
      assert.equal(await proc.exited, 0, `${name} drained and exited cleanly after SIGTERM (${drainedMs} ms)`);
      assert.doesNotMatch(proc.stdout(), /could not be stopped|leaving was cut short/, `${name} handed every instance over (none left to its lease)`);
      h.nodes.delete(name);
      drains.push(`${name} ${(drainedMs / 1000).toFixed(1)} s`);
      await h.startNode(name);
      // Ready, then the instances spread over every node again before the next node goes.
      const c = await settle(owners, (o) => NODES.every((n) => o[n] === SHARE), { pollMs: 250 });
      assert.deepEqual(c, Object.fromEntries(NODES.map((n) => [n, SHARE])), `after ${name} came back, every instance is connected and shared evenly`);
      await assertOneSocketPerDevice(h.admin, OWNERS, `after ${name}'s restart`);
    }
    const roundAtEnd = round;
    await until('a few rounds of traffic after the last restart', () => round, (r) => r >= roundAtEnd + 2);
    stop = true;
    await traffic;
    watching = false;
    await watcher;
    assert.deepEqual(failures, [], 'every send was accepted, or refused with 503 / a closed connection');
    assert.deepEqual([...offlineSince.keys()], [], 'every number is online at the end');

    // Every accepted send reaches the contact.
    const got = await settle(async () => new Set((await h.admin.received(CONTACT)).map((m) => m.id)), (g) => [...accepted.keys()].every((id) => g.has(id)), { timeoutMs: 90_000, pollMs: 500 });
    const lost = [...accepted.keys()].filter((id) => !got.has(id));
    assert.deepEqual(lost, [], `${lost.length} of ${accepted.size} accepted sends never reached the contact`);
    // Every message the contact sent reaches the received webhook.
    const reported = (): Set<string> => new Set(h.posts.filter((p) => p.body.type === 'ReceivedCallback').map((p) => String(p.body.messageId)));
    const seen = await settle(reported, (r) => [...incoming.keys()].every((id) => r.has(id)), { timeoutMs: 90_000, pollMs: 500 });
    const missing = [...incoming.keys()].filter((id) => !seen.has(id));
    assert.deepEqual(missing, [], `${missing.length} of ${incoming.size} incoming messages never reached the webhook`);

    await assertOneSocketPerDevice(h.admin, OWNERS, 'after the rolling restart');

    const spells = [...offline.values()].flat().sort((a, b) => a - b);
    const worst = new Map([...offline].map(([phone, list]) => [phone, Math.max(0, ...list)]));
    const fmt = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    t.diagnostic(`rolling restart (${NODES.length} nodes, ${OWNERS.length} instances, heartbeat 1 s, ${((Date.now() - startedAt) / 1000).toFixed(0)} s): drained in ${drains.join(', ')}; ${accepted.size} sends accepted and delivered (${refused} refused while a node stopped), ${incoming.size} incoming messages reported`);
    t.diagnostic(`offline per instance, worst: ${[...worst].map(([p, ms]) => `${p.slice(-4)} ${fmt(ms)}`).join(', ')}; all ${spells.length} spells: ${spells.map(fmt).join(', ')}`);
    // Handed over, not waited out: an instance left to its lease would be offline at least that
    // long. How short the spells are is a service level (printed above).
    const maxOffline = Math.max(0, ...worst.values());
    assert.ok(maxOffline < LEASE_MS, `no instance offline as long as the lease (${fmt(LEASE_MS)}) at once (worst ${fmt(maxOffline)})`);
  });
});
