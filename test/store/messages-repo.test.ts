// MessagesRepo (the durable queue) on both dialects: batched enqueue with per-instance caps,
// paging, counting, removal and lookups.
import assert from 'node:assert/strict';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

storeTest('messages: enqueue stores the row as given and returns its seq', async (store) => {
  const { instanceId } = await seedInstance(store);
  const row = messageRow(instanceId, { delay_message: 3, delay_typing: 2, phone: '120363000000000001-group', kind: 'location' });
  const out = await store.messages.enqueue({ row, cap: 0 });
  assert.equal(out.ok, true);
  const stored = await store.messages.findByZaapId(instanceId, row.zaap_id);
  assert.ok(stored && out.ok);
  assert.equal(stored.seq, out.seq);
  assert.equal(typeof stored.seq, 'number');
  const { seq: _seq, attempts, next_attempt_at, error_code, media_bytes, ...rest } = stored;
  assert.equal(attempts, 0);
  // The retry columns (006-sending) start empty.
  assert.deepEqual([next_attempt_at, error_code, Number(media_bytes)], [null, null, 0]);
  assert.deepEqual(rest, row);
});

storeTest('messages: enqueue for a missing instance → instance_gone, nothing stored', async (store) => {
  const row = messageRow('no-such-instance');
  assert.deepEqual(await store.messages.enqueue({ row, cap: 0 }), { ok: false, reason: 'instance_gone' });
  assert.deepEqual(await store.messages.enqueue({ row: messageRow('no-such-instance'), cap: 5 }), { ok: false, reason: 'instance_gone' });
  assert.equal(await store.messages.countWaiting('no-such-instance'), 0);
});

storeTest('messages: the cap counts queued and in-flight messages only; 0 means no cap', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.messages.enqueue({ row: messageRow(instanceId, { state: 'sent' }), cap: 0 });
  await store.messages.enqueue({ row: messageRow(instanceId, { state: 'failed' }), cap: 0 });
  await store.messages.enqueue({ row: messageRow(instanceId, { state: 'in_flight' }), cap: 0 });
  assert.equal((await store.messages.enqueue({ row: messageRow(instanceId), cap: 2 })).ok, true);
  assert.deepEqual(await store.messages.enqueue({ row: messageRow(instanceId), cap: 2 }), { ok: false, reason: 'queue_full' });
  assert.equal((await store.messages.enqueue({ row: messageRow(instanceId), cap: 3 })).ok, true);
  assert.equal((await store.messages.enqueue({ row: messageRow(instanceId), cap: 0 })).ok, true);
  assert.equal(await store.messages.countWaiting(instanceId), 4);
});

storeTest('messages: listWaiting pages oldest first, skipping sent and failed', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  const waiting: string[] = [];
  for (let i = 0; i < 7; i++) {
    const state = i === 2 ? 'sent' : i === 4 ? 'failed' : i === 5 ? 'in_flight' : 'queued';
    const row = messageRow(instanceId, { state });
    await store.messages.enqueue({ row, cap: 0 });
    await store.messages.enqueue({ row: messageRow(other), cap: 0 });
    if (state === 'queued' || state === 'in_flight') waiting.push(row.zaap_id);
  }
  const seen: string[] = [];
  let state: string | null = null;
  let pages = 0;
  do {
    const page = await store.messages.listWaiting(instanceId, 2, state);
    assert.ok(page.messages.length <= 2);
    seen.push(...page.messages.map((m) => m.zaap_id));
    state = page.pagingState;
    pages++;
  } while (state !== null && pages < 10);
  assert.deepEqual(seen, waiting);
  assert.equal(pages, 3);
  const all = await store.messages.listWaiting(instanceId, 100, null);
  assert.deepEqual(all.messages.map((m) => m.zaap_id), waiting);
  assert.equal(all.pagingState, null);
  // An exact fit has no next page.
  assert.equal((await store.messages.listWaiting(instanceId, waiting.length, null)).pagingState, null);
  // An unreadable cursor starts from the beginning rather than failing.
  assert.deepEqual((await store.messages.listWaiting(instanceId, 100, '%%%not-base64')).messages.map((m) => m.zaap_id), waiting);
  assert.deepEqual(await store.messages.listWaiting('nobody', 10, null), { messages: [], pagingState: null });
});

storeTest('messages: clearWaiting removes queued messages only and returns them', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  for (const state of ['queued', 'queued', 'in_flight', 'sent'] as const) await store.messages.enqueue({ row: messageRow(instanceId, { state }), cap: 0 });
  await store.messages.enqueue({ row: messageRow(other), cap: 0 });
  const cleared = await store.messages.clearWaiting(instanceId);
  assert.equal(cleared.length, 2);
  assert.ok(cleared.every((r) => typeof r.zaap_id === 'string' && typeof r.message_id === 'string'), 'enough to report each cancelled');
  assert.equal(await store.messages.countWaiting(instanceId), 1, 'the in-flight one stays');
  assert.equal(await store.messages.countWaiting(other), 1);
  assert.equal((await store.messages.clearWaiting(instanceId)).length, 0);
});

storeTest('messages: removeWaiting removes one queued message of that instance', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  const queued = messageRow(instanceId);
  const flying = messageRow(instanceId, { state: 'in_flight' });
  await store.messages.enqueue({ row: queued, cap: 0 });
  await store.messages.enqueue({ row: flying, cap: 0 });
  assert.equal(await store.messages.removeWaiting(other, queued.zaap_id), undefined, 'not from another instance');
  assert.equal(await store.messages.removeWaiting(instanceId, flying.zaap_id), undefined, 'not once sending started');
  assert.equal(await store.messages.removeWaiting(instanceId, 'unknown'), undefined);
  assert.deepEqual((await store.messages.removeWaiting(instanceId, queued.zaap_id))?.message_id, queued.message_id);
  assert.equal(await store.messages.removeWaiting(instanceId, queued.zaap_id), undefined);
  assert.equal(await store.messages.findByZaapId(instanceId, queued.zaap_id), undefined);
  assert.equal((await store.messages.findByZaapId(instanceId, flying.zaap_id))?.state, 'in_flight');
});

storeTest('messages: findByZaapId and findByMessageId are scoped to the instance', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  const row = messageRow(instanceId);
  await store.messages.enqueue({ row, cap: 0 });
  assert.equal((await store.messages.findByZaapId(instanceId, row.zaap_id))?.message_id, row.message_id);
  assert.equal((await store.messages.findByMessageId(instanceId, row.message_id))?.zaap_id, row.zaap_id);
  assert.equal(await store.messages.findByZaapId(other, row.zaap_id), undefined);
  assert.equal(await store.messages.findByMessageId(other, row.message_id), undefined);
  assert.equal(await store.messages.findByMessageId(instanceId, '3EB0NOPE'), undefined);
});

storeTest('messages: zaap ids are unique', async (store) => {
  const { instanceId } = await seedInstance(store);
  const row = messageRow(instanceId);
  await store.messages.enqueue({ row, cap: 0 });
  await assert.rejects(store.messages.enqueue({ row: { ...row, message_id: '3EB0OTHER' }, cap: 0 }));
  assert.equal(await store.messages.countWaiting(instanceId), 1);
});

storeTest('messages: in one batch, uncapped requests before a capped one count toward its cap exactly once', async (store) => {
  const { instanceId } = await seedInstance(store);
  // Same tick, so one batch: two uncapped, then two capped at 3 — the third message fits, the fourth does not.
  const outcomes = await Promise.all([
    store.messages.enqueue({ row: messageRow(instanceId), cap: 0 }),
    store.messages.enqueue({ row: messageRow(instanceId), cap: 0 }),
    store.messages.enqueue({ row: messageRow(instanceId), cap: 3 }),
    store.messages.enqueue({ row: messageRow(instanceId), cap: 3 }),
  ]);
  assert.deepEqual(outcomes.map((o) => o.ok), [true, true, true, false]);
  assert.equal(await store.messages.countWaiting(instanceId), 3);
  const seqs = outcomes.flatMap((o) => (o.ok ? [o.seq] : []));
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'accepted in arrival order');
});
