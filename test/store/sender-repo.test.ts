// The sender's queries on both dialects: claiming and settling messages (guarded state moves, FIFO
// head, in-flight recovery) and the anti-ban memory (strangers, cold sends, the pause).
import assert from 'node:assert/strict';
import { accountRow, instanceRow, messageRow, storeTest } from '../helpers/store-fixtures.js';
import type { Store } from '../../src/store/index.js';

async function setup(store: Store): Promise<string> {
  const account = accountRow();
  await store.accounts.create(account);
  const inst = instanceRow(account.id);
  await store.instances.create(inst);
  return inst.id;
}

async function enqueue(store: Store, instanceId: string, n: number): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await store.messages.enqueue({ row: messageRow(instanceId), cap: 0 });
    assert.ok(r.ok);
    seqs.push(r.seq);
  }
  return seqs;
}

storeTest('the head is the lowest seq still queued or in flight; claims and settlements are guarded', async (store) => {
  const id = await setup(store);
  const [a, b, c] = (await enqueue(store, id, 3)) as [number, number, number];
  assert.equal((await store.messages.nextToSend(id))?.seq, a);
  assert.equal(await store.messages.claim(a, 1), true);
  // In flight stays the head (a crash here resends it), and may be claimed again after a restart.
  assert.equal((await store.messages.nextToSend(id))?.seq, a);
  assert.equal(await store.messages.claim(a, 2), true);
  assert.equal((await store.messages.nextToSend(id))?.attempts, 2);
  assert.equal(await store.messages.markSent(a, 3), true);
  assert.equal(await store.messages.markSent(a, 3), false, 'only an in-flight message can be marked sent');
  assert.equal((await store.messages.nextToSend(id))?.seq, b);
  // Removed from the queue before the claim: the claim says so.
  assert.ok(await store.messages.removeWaiting(id, (await store.messages.nextToSend(id))?.zaap_id ?? ''));
  assert.equal(await store.messages.claim(b, 4), false);
  assert.equal(await store.messages.claim(c, 5), true);
  assert.equal(await store.messages.requeue(c, 6), true);
  const requeued = await store.messages.nextToSend(id);
  assert.equal(requeued?.seq, c);
  assert.equal(requeued?.state, 'queued');
  assert.equal(await store.messages.claim(c, 7), true);
  assert.equal(await store.messages.markFailed(c, 'recipient does not exist', 8), true);
  const failed = await store.messages.findByZaapId(id, requeued?.zaap_id ?? '');
  assert.equal(failed?.state, 'failed');
  assert.equal(failed?.error, 'recipient does not exist');
  assert.equal(await store.messages.nextToSend(id), undefined);
});

storeTest('instances with messages waiting include those left in flight', async (store) => {
  const x = await setup(store);
  const y = await setup(store);
  const z = await setup(store);
  const [sx] = (await enqueue(store, x, 1)) as [number];
  await enqueue(store, y, 2);
  const [sz] = (await enqueue(store, z, 1)) as [number];
  await store.messages.claim(sx, 1);
  await store.messages.claim(sz, 1);
  await store.messages.markSent(sz, 2);
  assert.deepEqual((await store.messages.instancesWithWaiting()).sort(), [x, y].sort());
});

storeTest('a number is a stranger until it writes or is written to; first sends to strangers are counted', async (store) => {
  const id = await setup(store);
  assert.equal(await store.antiban.isStranger(id, '5511911111111'), true);
  await store.antiban.recordInbound(id, ['5511911111111', '5511911111111'], 100);
  await store.antiban.recordInbound(id, ['5511911111111'], 500);
  assert.equal(await store.antiban.isStranger(id, '5511911111111'), false);
  await Promise.all([
    store.antiban.recordOutbound({ instanceId: id, phone: '5511911111111', at: 200 }),
    store.antiban.recordOutbound({ instanceId: id, phone: '5511922222222', at: 300 }),
    store.antiban.recordOutbound({ instanceId: id, phone: '5511933333333', at: 400 }),
  ]);
  await store.antiban.recordOutbound({ instanceId: id, phone: '5511922222222', at: 900 });
  assert.equal(await store.antiban.isStranger(id, '5511922222222'), false);
  // The one that had written first was no cold send; a repeat keeps the first time.
  assert.deepEqual(await store.antiban.coldSendsSince(id, 0), [300, 400]);
  assert.deepEqual(await store.antiban.coldSendsSince(id, 350), [400]);
  // A number that writes after the cold send does not undo it.
  await store.antiban.recordInbound(id, ['5511933333333'], 1000);
  assert.deepEqual(await store.antiban.coldSendsSince(id, 0), [300, 400]);
});

storeTest('the anti-ban pause is kept per instance and overwritten', async (store) => {
  const id = await setup(store);
  assert.equal(await store.antiban.pause(id), undefined);
  await store.antiban.savePause(id, { pausedUntil: 5000, reason: 'nack 463', restrictions: 1, lastRestrictionAt: 1000 }, 1000);
  await store.antiban.savePause(id, { pausedUntil: 9000, reason: 'nack 475', restrictions: 2, lastRestrictionAt: 2000 }, 2000);
  assert.deepEqual(await store.antiban.pause(id), { pausedUntil: 9000, reason: 'nack 475', restrictions: 2, lastRestrictionAt: 2000 });
});

storeTest('a retry keeps the attempt counted and stores when and why; a requeue gives the attempt back', async (store) => {
  const id = await setup(store);
  const [a] = (await enqueue(store, id, 1)) as [number];
  assert.equal(await store.messages.claim(a, 1), true);
  assert.equal(await store.messages.retryLater(a, 2, 5_000, 'image: download failed: HTTP 503', 'MEDIA_DOWNLOAD_FAILED'), true);
  await store.messages.drain();
  let head = await store.messages.nextToSend(id);
  assert.deepEqual([head?.state, head?.attempts, Number(head?.next_attempt_at), head?.error, head?.error_code], [
    'queued', 1, 5_000, 'image: download failed: HTTP 503', 'MEDIA_DOWNLOAD_FAILED',
  ]);
  assert.equal(await store.messages.claim(a, 6_000), true);
  assert.equal(await store.messages.requeue(a, 6_001), true);
  await store.messages.drain();
  head = await store.messages.nextToSend(id);
  assert.equal(head?.attempts, 1, 'the link was down: that attempt does not count');
  assert.equal(await store.messages.claim(a, 7_000), true);
  assert.equal(await store.messages.markFailed(a, 'gave up', 7_001, 'MEDIA_DOWNLOAD_FAILED'), true);
  await store.messages.drain();
  const failed = await store.messages.findByZaapId(id, head!.zaap_id);
  assert.deepEqual([failed?.state, failed?.attempts, failed?.next_attempt_at, failed?.error_code], ['failed', 2, null, 'MEDIA_DOWNLOAD_FAILED']);
});

storeTest('the head carries its payload only up to a size; a larger one is read on its own', async (store) => {
  const id = await setup(store);
  const small = messageRow(id);
  const large = messageRow(id, { payload: JSON.stringify({ content: { type: 'document', document: 'x'.repeat(5_000), extension: 'pdf' } }) });
  const a = await store.messages.enqueue({ row: small, cap: 0 });
  const b = await store.messages.enqueue({ row: large, cap: 0 });
  assert.ok(a.ok && b.ok);
  const first = await store.messages.nextHead(id, 1_000);
  assert.deepEqual([first?.seq, first?.payload, first?.payload_chars], [a.seq, small.payload, small.payload.length]);
  assert.equal(await store.messages.claim(a.seq, 1), true);
  assert.equal(await store.messages.markSent(a.seq, 2), true);
  await store.messages.drain();
  const second = await store.messages.nextHead(id, 1_000);
  assert.deepEqual([second?.seq, second?.payload, second?.payload_chars], [b.seq, null, large.payload.length]);
  assert.equal(await store.messages.payloadOf(b.seq), large.payload);
});

storeTest('sender: a settle submitted before the next claim (the lane defers it to that batch) lands with it; the head skips the message still settling', async (store) => {
  const id = await setup(store);
  const [ra, rb] = [messageRow(id), messageRow(id)];
  const a = await store.messages.enqueue({ row: ra, cap: 0 });
  const b = await store.messages.enqueue({ row: rb, cap: 0 });
  assert.ok(a.ok && b.ok);
  assert.equal(await store.messages.claim(a.seq, 1), true);
  // The lane's order: a's move to sent is submitted, the next head read, then b claimed.
  const sent = store.messages.markSent(a.seq, 2);
  assert.equal((await store.messages.nextHead(id, 1_000, Number.MAX_SAFE_INTEGER, a.seq))?.seq, b.seq);
  assert.deepEqual(await Promise.all([sent, store.messages.claim(b.seq, 3)]), [true, true]);
  const states = await Promise.all([ra, rb].map(async (r) => (await store.messages.findByZaapId(id, r.zaap_id))?.state));
  assert.deepEqual(states, ['sent', 'in_flight']);
});

storeTest('sender: a status advance moves the queue row and the chat copy together, never back; a remembered row of a deleted instance fails nothing', async (store) => {
  const id = await setup(store);
  const row = messageRow(id);
  const a = await store.messages.enqueue({ row, cap: 0 });
  assert.ok(a.ok);
  await store.chats.record({
    kind: 'message',
    message: { instance_id: id, chat_id: row.phone, message_id: row.message_id, from_me: 1, sender: null, at: 1, type: 'text', body: 'hi', media_id: null, status: 'PENDING' },
    chat: { jid: `${row.phone}@s.whatsapp.net`, isGroup: false, name: null },
    countsUnread: false,
  });
  const chatStatus = async (): Promise<string | null | undefined> => (await store.chats.listMessages(id, row.phone, 10)).find((m) => m.message_id === row.message_id)?.status;
  assert.deepEqual(await store.messages.advanceWaStatus(id, [row.message_id], 'RECEIVED', 5, { chatCopy: true }), [{ message_id: row.message_id, phone: row.phone }]);
  assert.equal((await store.messages.findByZaapId(id, row.zaap_id))?.wa_status, 'RECEIVED');
  assert.equal(await chatStatus(), 'RECEIVED');
  assert.deepEqual(await store.messages.advanceWaStatus(id, [row.message_id], 'SENT', 6, { chatCopy: false }), [], 'never back');
  assert.equal((await store.messages.findByZaapId(id, row.zaap_id))?.wa_status, 'RECEIVED');
  // A remembered row for an instance that is gone is dropped; the claim in the same batch still commits.
  const remembered = { instance_id: 'gone-instance', message_id: 'X1', remote_jid: 'x@s.whatsapp.net', from_me: 1, participant: null, message: '', meta: null, created_at: 1 };
  const [, claimed] = await Promise.all([store.messages.remember(remembered), store.messages.claim(a.seq, 7)]);
  assert.equal(claimed, true);
  await store.messages.remember({ ...remembered, instance_id: id });
  assert.equal((await store.waMessages.find(id, 'X1'))?.remote_jid, 'x@s.whatsapp.net');
});
