// Scheduled sends in the queue, on both dialects: a scheduled row is the head only once its time has
// come, holds up nothing queued behind it, tells the lane when to wake, and cannot be claimed early.
import assert from 'node:assert/strict';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

storeTest('a scheduled message waits for its time without blocking the ones behind it', async (store) => {
  const { instanceId: id } = await seedInstance(store);
  const T = 1_800_000_000_000;
  const later = await store.messages.enqueue({ row: messageRow(id, { scheduled_at: T + 10_000 }), cap: 0 });
  const sooner = await store.messages.enqueue({ row: messageRow(id, { scheduled_at: T + 5_000 }), cap: 0 });
  const now = await store.messages.enqueue({ row: messageRow(id), cap: 0 });
  assert.ok(later.ok && sooner.ok && now.ok);

  // Before any time has come, the unscheduled message is the head; the lane should wake at T+5 s.
  assert.equal((await store.messages.nextHead(id, 1_000, T))?.seq, now.seq);
  assert.equal(await store.messages.nextScheduledAt(id, T), T + 5_000);
  // Claimed early (another node with a stale view): refused.
  assert.equal(await store.messages.claim(sooner.seq, T), false);
  assert.equal(await store.messages.claim(now.seq, T), true);
  assert.equal(await store.messages.markSent(now.seq, T), true);
  assert.equal(await store.messages.nextHead(id, 1_000, T), undefined, 'only scheduled messages wait');

  // At its time the scheduled message is the head, and is listed with its time.
  const head = await store.messages.nextHead(id, 1_000, T + 5_000);
  assert.equal(head?.seq, sooner.seq);
  assert.equal(Number(head?.scheduled_at), T + 5_000);
  assert.equal(await store.messages.nextScheduledAt(id, T + 5_000), T + 10_000);
  // Once both are due they go in the order they were accepted.
  assert.equal((await store.messages.nextHead(id, 1_000, T + 20_000))?.seq, later.seq);
  assert.equal(await store.messages.claim(later.seq, T + 20_000), true);
  const page = await store.messages.listWaiting(id, 10, null);
  assert.deepEqual(page.messages.map((m) => [m.seq, m.scheduled_at === null ? null : Number(m.scheduled_at)]), [[later.seq, T + 10_000], [sooner.seq, T + 5_000]]);

  // Cancelled before its time: gone, and nothing left to wake for.
  const sm = page.messages.find((m) => m.seq === sooner.seq)!;
  assert.equal((await store.messages.removeWaiting(id, sm.zaap_id))?.zaap_id, sm.zaap_id);
  assert.equal(await store.messages.nextScheduledAt(id, T), null);
  assert.deepEqual(await store.messages.instancesWithWaiting(), [id]);
});
