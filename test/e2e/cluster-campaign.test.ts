// A campaign in cluster mode (two gateway processes on one PostgreSQL, real Baileys, simnet): each
// node steps only the numbers it owns, so when the node running one of the campaign's numbers is
// killed with kill -9 mid-run, the node that takes the number over goes on with its recipients.
// Every recipient the cap allows gets exactly one message (counted on each contact's phone), from
// its own number; the campaign's pacing and daily cap hold across the failover. Its changes of state
// (started, paused, resumed), requested through either node, reach both numbers' webhooks once each.
import { after, before, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type ClusterHarness, type ClusterInstance } from '../helpers/cluster-harness.js';
import { metricValue } from '../helpers/process-gateway.js';
import { holds, settle, until } from '../helpers/wait.js';

const TIME_SCALE = 0.05;
const OWNERS = ['5511977720001', '5511977720002'];
const PER_NUMBER = 45;
/** Below PER_NUMBER: the cap stops each number on the (one) day the test lasts. */
const CAP = 40;
/** Protocol seconds between two of the campaign's messages from one number: 500 ms real. */
const PACE_S = 10;
const contact = (i: number): string => `55119820${String(i).padStart(5, '0')}`;
const N = OWNERS.length * PER_NUMBER;

let h: ClusterHarness;
const insts: ClusterInstance[] = [];

before(async () => {
  h = await startCluster({ owners: OWNERS, contacts: Array.from({ length: N }, (_, i) => contact(i)), timeScale: TIME_SCALE });
  await h.startNodes('n1', 'n2');
  for (const phone of OWNERS) insts.push(await h.pair('n1', phone));
});

after(async () => {
  await h?.close();
});

test('cluster: a campaign runs across a kill -9 of the node owning one of its numbers, none twice, none skipped, pacing and cap held', async (t) => {
  try {
    await campaignAcrossFailover(t);
  } catch (err) {
    for (const [name, node] of h.nodes) t.diagnostic(`${name}: ${node.stderr().slice(-1500)} ${node.stdout().split("\n").filter((l) => /campaign|error/i.test(l)).slice(-10).join("\n")}`);
    throw err;
  }
});

async function campaignAcrossFailover(t: TestContext): Promise<void> {
  const began = Date.now();
  const created = await h.api('n1', 'POST', '/campaigns', {
    name: 'cluster',
    message: 'Hi {{name}} #{{n}}',
    instanceIds: insts.map((i) => i.id),
    recipients: Array.from({ length: N }, (_, i) => ({ phone: contact(i), vars: { name: `C${i}`, n: String(i) } })),
    dailyCap: CAP,
    paceSeconds: PACE_S,
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const id = String(created.json.id);
  assert.equal((await h.api('n2', 'POST', `/campaigns/${id}/start`)).status, 200);

  // Each change is reported on both numbers' webhooks, once, whichever node the request reached:
  // the pause through a node that does not own the first number, the resume through one that does
  // not own the second (the owner of each reports it, docs/contract.md §12).
  const owners = [await h.connected('n1', insts[0]!), await h.connected('n1', insts[1]!)];
  const notOwning = (k: number): string => (owners[k] === 'n1' ? 'n2' : 'n1');
  t.diagnostic(`numbers run on ${owners.join(' and ')}; pause through ${notOwning(0)}, resume through ${notOwning(1)}`);
  await campaignEvents(id, ['CAMPAIGN_STARTED']);
  assert.equal((await h.api(notOwning(0), 'POST', `/campaigns/${id}/pause`)).status, 200);
  await campaignEvents(id, ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED']);
  assert.equal((await h.api(notOwning(1), 'POST', `/campaigns/${id}/resume`)).status, 200);
  await campaignEvents(id, ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED', 'CAMPAIGN_RESUMED']);
  // No write of any node's was refused by its fence: each node wrote only for what it owns.
  for (const name of ['n1', 'n2']) assert.equal(await refusals(name), 0, `${name}: no write refused`);

  type Progress = Record<'pending' | 'queued' | 'sent' | 'skipped' | 'failed', number>;
  const progress = async (via: string): Promise<Progress> => (await h.api(via, 'GET', `/campaigns/${id}`)).json.progress as Progress;

  // Kill the node running the first number once it has sent some of the campaign.
  const victim = await h.connected('n1', insts[0]!);
  const survivor = victim === 'n1' ? 'n2' : 'n1';
  t.diagnostic(`numbers run on ${await h.connected(survivor, insts[0]!)} and ${await h.connected(survivor, insts[1]!)}; killing ${victim}`);
  await until('some of the campaign sent before the kill', () => progress(survivor), (p) => p.sent >= 20, { pollMs: 200 });
  // Each node queued only for the number it owns: its fenced connections refuse any other (ZG001).
  for (const name of ['n1', 'n2']) assert.equal(await refusals(name), 0, `${name}: no campaign write refused`);
  const killedAt = Date.now();
  await h.nodes.get(victim)!.kill9();
  h.nodes.delete(victim);
  await h.connected(survivor, insts[0]!, undefined, victim);
  t.diagnostic(`number taken over by ${survivor} after ${((Date.now() - killedAt) / 1000).toFixed(1)} s`);

  // Until the cap stops both numbers; then nothing more leaves: watched for 3 s, six of the
  // campaign's paces, in which a number the cap did not stop would queue its next recipient.
  await until('the campaign to reach its cap', () => progress(survivor), (q) => q.sent + q.failed >= OWNERS.length * CAP && q.queued === 0, { timeoutMs: 180_000, pollMs: 200 });
  const p = await holds('nothing more queued or sent once capped', () => progress(survivor), (q) => q.sent + q.queued + q.failed <= OWNERS.length * CAP, { forMs: 3_000, pollMs: 200 });
  assert.deepEqual([p.sent, p.queued, p.failed, p.pending], [OWNERS.length * CAP, 0, 0, N - OWNERS.length * CAP], `the cap holds: ${JSON.stringify(p)}`);

  const rows = (await h.api(survivor, 'GET', `/campaigns/${id}/recipients?pageSize=1000`)).json.recipients as { position: number; phone: string; instanceId: string; outcome: string; queuedAt: number | null }[];
  // On the phones: exactly one message each for those the cap allowed, from their own number.
  const served = new Map<string, number>();
  let resent = 0;
  for (let i = 0; i < N; i++) {
    // Sent means acknowledged by the network; the phone's decrypted copy may follow a moment later.
    const queued = rows.find((r) => r.phone === contact(i))?.outcome !== 'pending';
    const got = await until(
      `${contact(i)}'s campaign message on its phone`,
      async () => (await h.admin.received(contact(i))).filter((m) => (m.text ?? '').startsWith('Hi ')),
      (g) => !queued || g.length > 0,
    );
    const ids = new Set(got.map((m) => m.id));
    // A message in flight at the kill goes again under the same id (docs/contract.md §6): shown once.
    resent += got.length - ids.size;
    assert.ok(ids.size <= 1, `${contact(i)} got ${ids.size} campaign messages`);
    if (!got[0]) continue;
    assert.equal(got[0].text, `Hi C${i} #${i}`);
    assert.equal(got[0].from, OWNERS[i % 2], 'served by its number');
    served.set(got[0].from, (served.get(got[0].from) ?? 0) + 1);
  }
  assert.deepEqual(OWNERS.map((o) => served.get(o) ?? 0), [CAP, CAP], 'each number served up to the cap: none skipped, none twice');

  // The recipients in list order per number: the first CAP of each served, none after a gap;
  // consecutive ones queued at least the campaign's pace apart, across the failover too.
  for (const inst of insts) {
    const mine = rows.filter((r) => r.instanceId === inst.id).sort((a, b) => a.position - b.position);
    assert.deepEqual(mine.map((r) => r.outcome === 'pending'), mine.map((_, k) => k >= CAP), 'served in list order up to the cap');
    const at = mine.flatMap((r) => (r.queuedAt === null ? [] : [r.queuedAt]));
    const gaps = at.slice(1).map((x, k) => x - at[k]!);
    assert.ok(Math.min(...gaps) >= PACE_S * 1000, `paced ${PACE_S * 1000} ms apart at least: ${Math.min(...gaps)} ms`);
  }
  assert.equal(await refusals(survivor), 0, `${survivor}: no campaign write refused`);
  // The takeover reported no change again.
  await campaignEvents(id, ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED', 'CAMPAIGN_RESUMED']);
  t.diagnostic(`campaign with failover ${((Date.now() - began) / 1000).toFixed(1)} s; ${resent} resent under the same id`);
}

/**
 * Waits until each number's webhook got `expected` of the campaign's notifications (by webhook-id:
 * a delivery repeated after a crash is the same one) and every node's outbox has nothing left to
 * deliver, so nothing more can come; then checks they are exactly those.
 */
async function campaignEvents(id: string, expected: string[]): Promise<void> {
  const seen = (inst: ClusterInstance): string[] => {
    const byId = new Map<string, string>();
    for (const p of h.posts) {
      const b = p.body;
      if (b.instanceId !== inst.id || !String(b.notification ?? '').startsWith('CAMPAIGN_') || (b.notificationParameters as string[])[0] !== id) continue;
      assert.equal(b.phone, inst.phone, 'reported with the number\'s own phone');
      byId.set(p.webhookId, String(b.notification));
    }
    return [...byId.values()];
  };
  const pending = async (): Promise<number> => (await Promise.all([...h.nodes.values()].map((n) => metricValue(n.url, 'zapgate_webhook_pending')))).reduce((a, b) => a + b, 0);
  await settle(
    async () => ({ seen: insts.map((i) => seen(i).length), pending: await pending() }),
    (v) => v.seen.every((n) => n >= expected.length) && v.pending === 0,
    { pollMs: 100 },
  );
  for (const inst of insts) assert.deepEqual(seen(inst), expected, `${inst.phone}: the campaign's changes, each once`);
}

/** Writes of the node's that its fence refused: the runner's, were it to queue for a number it does not own. */
async function refusals(node: string): Promise<number> {
  const metrics = await (await fetch(`${h.nodes.get(node)!.url}/metrics`)).text();
  assert.match(metrics, /^zapgate_failures_total\{component="campaigns"\} 0$/m, `${node}: no campaign step failed`);
  return Number(/^zapgate_cluster_fencing_refusals_total (\d+)$/m.exec(metrics)?.[1]);
}
