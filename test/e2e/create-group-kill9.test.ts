// A group creation interrupted by kill -9 creates its group once: the gateway answers create-group
// with a durable pending id and creates the group in the background; killed right after that 200
// (or a few milliseconds later, while the creation is on the wire), it finishes the creation after
// the restart. The phone must then show exactly one group per request, the one the pending id names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';
import { sleep, until } from '../helpers/wait.js';

const OWNER = '5511999997101';
const CONTACTS = ['5511988887101', '5511988887102'];
/** Milliseconds between the 200 and the kill, one round each: the creation's network round-trips fall among them. */
const KILL_DELAYS_MS = [0, 1, 2, 4, 6, 8, 12, 20];

describe('create-group across kill -9 (gateway process + Baileys + simnet)', () => {
  let h: ProcessHarness;

  before(async () => {
    // The answer does not wait for the group (ZAPGATE_CREATE_GROUP_WAIT_MS=0): the kills must be able
    // to land while the creation is still running.
    h = await startProcessHarness({ owner: OWNER, contacts: CONTACTS, env: { ZAPGATE_CREATE_GROUP_WAIT_MS: '0' } });
  });

  after(async () => {
    await h.close();
  });

  async function settled(pendingId: string): Promise<Record<string, unknown>> {
    const r = await until(`group creation ${pendingId} to settle`, () => h.api('GET', `${h.prefix}/groups/${pendingId}`), (g) => g.status === 200 && g.json.status !== 'pending');
    return r.json;
  }

  test('killed right after the 200 or while the creation runs: one group per request on the phone', async (t) => {
    const requests: { subject: string; pendingId: string }[] = [];
    for (const [round, delay] of KILL_DELAYS_MS.entries()) {
      const subject = `kill9 round ${round + 1}`;
      const res = await h.api('POST', `${h.prefix}/create-group`, { groupName: subject, phones: CONTACTS });
      assert.equal(res.status, 200, `create-group answered ${res.status} ${JSON.stringify(res.json)}`);
      // The scenario: the kill lands this long after the 200 (each round a different moment).
      if (delay > 0) await sleep(delay);
      await h.gateway().kill9();
      requests.push({ subject, pendingId: String(res.json.groupId) });
      await h.restart();
      await h.connected();
    }
    const outcomes = await Promise.all(requests.map((r) => settled(r.pendingId)));
    const onPhone = await h.admin.groups(OWNER);
    const counts = new Map<string, number>();
    for (const g of onPhone) counts.set(g.subject, (counts.get(g.subject) ?? 0) + 1);
    t.diagnostic(`${requests.length} requests, ${onPhone.length} groups on the phone: ${JSON.stringify(Object.fromEntries(counts))}`);
    for (const [i, r] of requests.entries()) {
      assert.equal(counts.get(r.subject) ?? 0, 1, `"${r.subject}" (killed ${KILL_DELAYS_MS[i]} ms after the 200) exists ${counts.get(r.subject) ?? 0} times on the phone`);
      const outcome = outcomes[i]!;
      assert.equal(outcome.status, 'created', `"${r.subject}" ended ${JSON.stringify(outcome)}`);
      const group = onPhone.find((g) => g.subject === r.subject);
      assert.equal(`${String(outcome.phone).replace(/-group$/, '')}@g.us`, group?.jid, `the pending id of "${r.subject}" names the group on the phone`);
      assert.deepEqual(group?.participants.map((p) => p.phone).sort(), [OWNER, ...CONTACTS].sort(), `"${r.subject}" has the owner and both contacts`);
    }
  });
});
