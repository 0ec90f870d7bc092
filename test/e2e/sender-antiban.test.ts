// The anti-ban strategy through the real engine: the network refuses a message with a restriction
// nack (463), the sender pauses the instance, GET /status says why and until when, the received
// webhook gets the ANTIBAN_PAUSED notification, and after the pause the message goes out with its
// original id. With the strategy on, each message is preceded by "typing…".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511940000001';
const CONTACT = '5511940000002';

test('a restriction nack pauses the instance, is reported, and the message goes out after the pause', async () => {
  // A protocol pause of 60 s: the test jumps the clock to its end.
  const h = await startHarness({ env: { ZAPGATE_ANTIBAN_PAUSE_MS: '60000' } });
  try {
    const inst = await h.pairNew(OWNER);
    const on = await h.call('PUT', `${inst.prefix}/update-antiban`, { value: true });
    assert.deepEqual(on.json, { value: true, antiBanEnabled: true, workerSynced: true });
    await h.admin.injectFault(OWNER, { kind: 'nack', code: 463, count: 1 });

    const sent = await h.call('POST', `${inst.prefix}/send-text`, { phone: CONTACT, message: 'hello after the pause' });
    assert.equal(sent.status, 200);
    const messageId = String(sent.json.messageId);

    // The typing and the gap ahead of the send are protocol waits: jumped.
    const paused = await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.notification === 'ANTIBAN_PAUSED', 20_000, 'ANTIBAN_PAUSED'));
    assert.equal(paused.body.type, 'ReceivedCallback');
    assert.equal(paused.path, `/${inst.instanceId}`);
    const [reason, until] = paused.body.notificationParameters as [string, string];
    assert.match(reason, /463/);
    const status = (await h.call('GET', `${inst.prefix}/status`)).json;
    assert.deepEqual(status.antiban, { enabled: true, paused: true, reason, until: Number(until) });
    // Paused, the message waits in the queue (it was refused for the account, not for itself).
    assert.equal((await h.call('GET', `${inst.prefix}/queue/count`)).json.count, 1);

    // Nothing leaves before the pause ends: the clock goes to a moment before its end, and the
    // message is still queued (the lane's next timer is the pause's end, not a send).
    await h.clock.advanceTo(Number(until) - 1_000);
    assert.equal((await h.call('GET', `${inst.prefix}/queue/count`)).json.count, 1, 'still waiting just before the pause ends');
    assert.equal((await h.admin.received(CONTACT)).length, 0, 'nothing reached the contact during the pause');
    // Past its end (and the gap and the typing after it): the message goes.
    const got = await skipWaits(h.clock, h.admin.waitForReceived(CONTACT, (m) => m.id === messageId, 30_000), { horizonMs: 60_000 });
    assert.equal(got.text, 'hello after the pause');
    assert.ok(got.atMs >= Number(until), `the network took the message ${got.atMs - Number(until)} ms after the pause ended`);
    const delivered = await h.webhooks.waitFor((x) => x.body.type === 'DeliveryCallback' && x.body.messageId === messageId, 10_000, 'DeliveryCallback');
    assert.equal(delivered.body.error, undefined);
    // "typing…" went to the network ahead of the message (Baileys sends it as a chatstate stanza).
    assert.ok(((await h.admin.counters()).counters['in.chatstate'] ?? 0) >= 1, 'no typing presence was sent');
    // The pause is over and the account was never restricted further.
    const after = (await h.call('GET', `${inst.prefix}/status`)).json;
    assert.equal(after.status, 'connected');
    assert.deepEqual(after.antiban, { enabled: true, paused: false, reason: null, until: null });
  } finally {
    await h.close();
  }
});
