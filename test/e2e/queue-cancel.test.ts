// Deleting a message that is still in the queue, end to end: DELETE …/messages takes it out of the
// queue, the DeliveryCallback says it was cancelled, and the contact's phone on simnet never gets it,
// while the message queued behind it still goes. Against a lane sending at that very moment, each
// delete either cancels the message (never sent) or revokes it after it was sent: never both, never
// neither (docs/contract.md §6). The queue endpoints (DELETE /queue/{zaapId}, DELETE /queue) report
// what they take out the same way.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511900007001';
const CARLA = '5511900007002';

describe('deleting a queued message (gateway + sender + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    inst = await h.pairNew(OWNER, 'cancel');
  });
  after(async () => {
    await h?.close();
  });

  const send = async (message: string): Promise<string> => {
    const r = await h.call('POST', `${inst.prefix}/send-text`, { phone: CARLA, message });
    assert.equal(r.status, 200, r.body.toString());
    return String(r.json.messageId);
  };
  const del = (id: string) => h.call('DELETE', `${inst.prefix}/messages?messageId=${id}&phone=${CARLA}&owner=true`);
  const deliveries = (id: string) => h.webhooks.hits.filter((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id).map((w) => w.body);

  test('a message waiting in the queue is taken out: cancelled callback, never delivered; the next one goes', async () => {
    // Another client takes the session over (440): the instance stays down until restarted, so
    // what is sent now waits in the queue.
    await h.admin.injectFault(OWNER, { kind: 'stream-error', code: 440 });
    await h.waitForStatus(inst, 'replaced');
    const cancelled = await send('this one is deleted before it leaves');
    const kept = await send('this one is sent');
    assert.deepEqual((await h.call('GET', `${inst.prefix}/queue/count`)).json, { count: 2 }, 'both wait');

    const r = await del(cancelled);
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true });
    const hit = await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === cancelled, 15_000, 'the cancelled DeliveryCallback');
    assert.equal(hit.body.errorCode, 'CANCELLED');
    assert.match(String(hit.body.error), /cancelled/i);
    assert.equal(hit.body.phone, CARLA);
    assert.deepEqual((await h.call('GET', `${inst.prefix}/queue/count`)).json, { count: 1 }, 'only the other one waits');

    assert.equal((await h.call('POST', `${inst.prefix}/restart`)).status, 200);
    await h.waitForStatus(inst, 'connected');
    // The sender's pacing gap is protocol time: jumped.
    await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === kept, 20_000));
    // The queue is FIFO: had the cancelled message been sent, it would have arrived first.
    const got = await h.admin.received(CARLA);
    assert.equal(got.filter((m) => m.id === cancelled).length, 0, 'the cancelled message never reached the contact');
    assert.deepEqual(deliveries(cancelled).map((d) => d.errorCode), ['CANCELLED'], 'one callback, the cancellation, and no "sent" after it');
    await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === kept && !('error' in w.body), 15_000, 'the kept one was sent');
  });

  test('racing the lane: each delete either cancels (never sent) or revokes what was sent', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await send(`race ${i}`));
    const answers = await Promise.all(ids.map((id) => del(id)));
    for (const [i, a] of answers.entries()) assert.equal(a.status, 200, `delete ${i}: ${a.status} ${a.body.toString()}`);

    let cancelledCount = 0;
    for (const id of ids) {
      const hit = await skipWaits(h.clock, h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id, 20_000, `a DeliveryCallback for ${id}`));
      if (hit.body.errorCode === 'CANCELLED') {
        cancelledCount++;
        continue;
      }
      assert.equal('error' in hit.body, false, `sent: ${JSON.stringify(hit.body)}`);
      await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.type === 'revoke' && m.targetId === id, 15_000));
    }
    // A message queued now leaves after everything above (the queue is FIFO), and its callback is
    // delivered after theirs (one request at a time per URL, in order): once it has arrived and
    // been reported, no cancelled message can still arrive and no late callback can still come.
    const marker = await send('after the race');
    await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === marker, 20_000));
    await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === marker, 15_000, 'the marker\'s DeliveryCallback');
    const got = await h.admin.received(CARLA);
    for (const id of ids) {
      const callbacks = deliveries(id);
      assert.equal(callbacks.length, 1, `one DeliveryCallback for ${id}: ${JSON.stringify(callbacks)}`);
      const reached = got.some((m) => m.id === id);
      if (callbacks[0]!.errorCode === 'CANCELLED') assert.equal(reached, false, `${id} was cancelled and must not arrive`);
      else assert.equal(reached, true, `${id} was sent, then revoked`);
    }
    // Deleted right after enqueue with a paced lane, most are still waiting: the cancel path ran.
    assert.ok(cancelledCount >= 1, `at least one was cancelled (${cancelledCount})`);
  });

  test('the queue endpoints too: DELETE /queue/{zaapId} and DELETE /queue report each message cancelled, none is delivered', async () => {
    await h.admin.injectFault(OWNER, { kind: 'stream-error', code: 440 });
    await h.waitForStatus(inst, 'replaced');
    const queued: { zaapId: string; messageId: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await h.call('POST', `${inst.prefix}/send-text`, { phone: CARLA, message: `queued ${i}` });
      assert.equal(r.status, 200, r.body.toString());
      queued.push({ zaapId: String(r.json.zaapId), messageId: String(r.json.messageId) });
    }
    const one = await h.call('DELETE', `${inst.prefix}/queue/${queued[0]!.zaapId}`);
    assert.equal(one.status, 200, one.body.toString());
    const all = await h.call('DELETE', `${inst.prefix}/queue`);
    assert.equal(all.status, 200, all.body.toString());
    for (const q of queued) {
      const hit = await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === q.messageId, 15_000, `the cancelled callback of ${q.messageId}`);
      assert.deepEqual([hit.body.errorCode, hit.body.zaapId, hit.body.phone], ['CANCELLED', q.zaapId, CARLA]);
    }
    assert.equal((await h.call('POST', `${inst.prefix}/restart`)).status, 200);
    await h.waitForStatus(inst, 'connected');
    const marker = await send('after the cleared queue');
    await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === marker, 20_000));
    const got = await h.admin.received(CARLA);
    for (const q of queued) {
      assert.equal(got.some((m) => m.id === q.messageId), false, `${q.messageId} was taken out and never arrives`);
      assert.deepEqual(deliveries(q.messageId).map((d) => d.errorCode), ['CANCELLED'], 'one callback each');
    }
  });
});
