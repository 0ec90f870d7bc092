// The event stream's reads on SQLite and PostgreSQL: commit order per instance and per account,
// where a Last-Event-ID resumes (also once that event is swept), and the retention of events kept
// for the stream alone next to the deliveries' own sweep.
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { timeOrderedId } from '../../src/outbox/sink.js';
import { RetentionSweeper } from '../../src/outbox/retention.js';
import type { Store } from '../../src/store/index.js';
import { accountRow, instanceRow, storeTest } from '../helpers/store-fixtures.js';

async function setup(store: Store): Promise<{ a1: string; a2: string; b1: string; accountA: string }> {
  const accA = accountRow();
  const accB = accountRow();
  await store.accounts.create(accA);
  await store.accounts.create(accB);
  const a1 = instanceRow(accA.id);
  const a2 = instanceRow(accA.id);
  const b1 = instanceRow(accB.id);
  for (const row of [a1, a2, b1]) await store.instances.create(row);
  return { a1: a1.id, a2: a2.id, b1: b1.id, accountA: accA.id };
}

/** Commits events (no deliveries) the way the outbox does: ids time-ordered, one batch per call. */
async function commit(store: Store, at: number, ...items: [instanceId: string, label: string][]): Promise<string[]> {
  const events = items.map(([instanceId, label]) => ({ id: timeOrderedId('msg_', at), instanceId, type: 'ReceivedCallback', body: JSON.stringify({ label }), createdAt: at }));
  await store.deliveries.commit(events, []);
  return events.map((e) => e.id);
}

function labels(rows: { payload: string }[]): string[] {
  return rows.map((r) => (JSON.parse(r.payload) as { label: string }).label);
}

storeTest('per instance and per account, in commit order, after a cursor', async (store) => {
  const { a1, a2, b1, accountA } = await setup(store);
  assert.equal(await store.streamEvents.lastSeq(), 0, 'empty');
  await commit(store, 1_000, [a1, 'a1-1'], [b1, 'b1-1'], [a2, 'a2-1']);
  await commit(store, 2_000, [a1, 'a1-2']);
  assert.deepEqual(labels(await store.streamEvents.forInstance(a1, 0, 10)), ['a1-1', 'a1-2'], 'one instance');
  assert.deepEqual(labels(await store.streamEvents.forAccount(accountA, 0, 10)), ['a1-1', 'a2-1', 'a1-2'], "the account's instances, not another account's");
  const all = await store.streamEvents.forAccount(accountA, 0, 10);
  assert.deepEqual(labels(await store.streamEvents.forAccount(accountA, all[0]!.seq, 10)), ['a2-1', 'a1-2'], 'after a cursor');
  assert.deepEqual(labels(await store.streamEvents.forAccount(accountA, 0, 2)), ['a1-1', 'a2-1'], 'bounded');
  assert.equal(await store.streamEvents.lastSeq(), all[2]!.seq, 'lastSeq is the newest');
});

storeTest('Last-Event-ID resumes after that event, and after where it was once it is gone', async (store) => {
  const { a1 } = await setup(store);
  const [first] = await commit(store, 1_000, [a1, 'one'], [a1, 'two']);
  await commit(store, 5_000, [a1, 'three']);
  const seqOf = async (id: string) => (await store.streamEvents.forInstance(a1, 0, 10)).find((r) => r.id === id)!.seq;
  assert.equal(await store.streamEvents.resumeAfter(first!), await seqOf(first!), 'a stored id resumes after itself');
  // An id that is no longer stored, from between the second and the third: resume before the third.
  const gone = timeOrderedId('msg_', 3_000);
  assert.deepEqual(labels(await store.streamEvents.forInstance(a1, (await store.streamEvents.resumeAfter(gone))!, 10)), ['three'], 'resumes at the first later event');
  assert.equal(await store.streamEvents.resumeAfter(timeOrderedId('msg_', 9_000)), null, 'nothing later: null (start from the end)');
});

storeTest('events kept for the stream alone are swept after its window; events with deliveries wait for both', async (store) => {
  const { a1 } = await setup(store);
  const now = Date.now();
  const day = 24 * 60 * 60_000;
  // Old and young stream-only events; an old event whose delivery was delivered long ago.
  await commit(store, now - 2 * day, [a1, 'old']);
  await commit(store, now - 1_000, [a1, 'young']);
  await store.deliveries.commit(
    [{ id: 'msg_delivered', instanceId: a1, type: 'ReceivedCallback', body: JSON.stringify({ label: 'delivered-old' }), createdAt: now - 2 * day }],
    [{ id: 'dlv_1', eventId: 'msg_delivered', instanceId: a1, kind: 'received', url: 'https://hooks.example.com/x', createdAt: now - 2 * day }],
  );
  await store.deliveries.record([{ id: 'dlv_1', result: 'delivered', httpStatus: 200, at: now - 2 * day }]);
  await store.deliveries.commit(
    [{ id: 'msg_delivered_young', instanceId: a1, type: 'ReceivedCallback', body: JSON.stringify({ label: 'delivered-young' }), createdAt: now - 2 * 60 * 60_000 }],
    [{ id: 'dlv_2', eventId: 'msg_delivered_young', instanceId: a1, kind: 'received', url: 'https://hooks.example.com/x', createdAt: now - 2 * 60 * 60_000 }],
  );
  await store.deliveries.record([{ id: 'dlv_2', result: 'delivered', httpStatus: 200, at: now - 2 * 60 * 60_000 }]);
  const sweeper = new RetentionSweeper(
    store.deliveries,
    systemClock(1),
    createLogger('silent'),
    createMetrics(false),
    { failedKeepMs: 7 * day, deliveredKeepMs: 60 * 60_000, sweepEveryMs: 60 * 60_000, streamKeepMs: day },
    store.streamEvents,
  );
  assert.equal(await sweeper.sweep(), 2, 'both delivered deliveries past the hour go');
  // The young delivered event outlives its delivery: the stream may still resume through it.
  assert.deepEqual(labels(await store.streamEvents.forInstance(a1, 0, 10)), ['young', 'delivered-young'], 'only what is inside the stream window is left');
});
