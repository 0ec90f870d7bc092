// WriteBatcher: same-tick writes share one flush, in arrival order, one flush at a time; and
// through MessagesRepo on both dialects: concurrent enqueues all commit, in order, with the cap
// honoured inside a single batch.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { WriteBatcher } from '../../src/store/write-batcher.js';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

describe('WriteBatcher', () => {
  test('items submitted in the same tick are flushed together, results matched by position', async () => {
    const batches: number[][] = [];
    const b = new WriteBatcher<number, string>(async (items) => {
      batches.push([...items]);
      return items.map((n) => `r${n}`);
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => b.submit(n)));
    assert.deepEqual(results, ['r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(batches, [[1, 2, 3, 4]]);
  });

  test('flushes run one after another, in arrival order, never overlapping', async () => {
    let running = 0;
    let maxRunning = 0;
    const order: number[] = [];
    const b = new WriteBatcher<number, number>(async (items) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await tick();
      await tick();
      order.push(...items);
      running--;
      return items;
    });
    const all: Promise<number>[] = [];
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3; i++) all.push(b.submit(round * 3 + i));
      await tick();
    }
    await Promise.all(all);
    assert.equal(maxRunning, 1);
    assert.deepEqual(order, Array.from({ length: 15 }, (_, i) => i));
  });

  test('a full batch is flushed at maxBatch items', async () => {
    const sizes: number[] = [];
    const b = new WriteBatcher<number, number>(async (items) => {
      sizes.push(items.length);
      return items;
    }, 10);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => b.submit(i)));
    assert.deepEqual(results, Array.from({ length: 25 }, (_, i) => i));
    assert.ok(sizes.every((s) => s <= 10), sizes.join(','));
    assert.equal(sizes.reduce((a, s) => a + s, 0), 25);
  });

  test('a failed flush rejects every item of that batch and only that batch', async () => {
    let calls = 0;
    const b = new WriteBatcher<number, number>(async (items) => {
      calls++;
      if (calls === 1) throw new Error('disk full');
      return items;
    });
    const first = [b.submit(1), b.submit(2)];
    const settled = await Promise.allSettled(first);
    assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected']);
    assert.match(String((settled[0] as PromiseRejectedResult).reason), /disk full/);
    assert.equal(await b.submit(3), 3);
  });

  test('drain waits for everything submitted so far', async () => {
    const done: number[] = [];
    const b = new WriteBatcher<number, number>(async (items) => {
      await tick();
      done.push(...items);
      return items;
    });
    void b.submit(1);
    void b.submit(2);
    await b.drain();
    assert.deepEqual(done, [1, 2]);
    await b.drain();
  });
});

storeTest('batched enqueue: 300 concurrent enqueues all commit, seqs follow submission order', async (store) => {
  const { instanceId } = await seedInstance(store);
  const rows = Array.from({ length: 300 }, () => messageRow(instanceId));
  const outcomes = await Promise.all(rows.map((row) => store.messages.enqueue({ row, cap: 0 })));
  assert.ok(outcomes.every((o) => o.ok));
  const seqs = outcomes.map((o) => (o.ok ? o.seq : -1));
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
  assert.equal(new Set(seqs).size, 300);
  const page = await store.messages.listWaiting(instanceId, 1000, null);
  assert.deepEqual(page.messages.map((m) => m.zaap_id), rows.map((r) => r.zaap_id));
});

storeTest('batched enqueue: the cap is honoured inside one batch, per instance', async (store) => {
  const { instanceId: a } = await seedInstance(store);
  const { instanceId: b } = await seedInstance(store);
  await store.messages.enqueue({ row: messageRow(a), cap: 0 });
  // Submitted in one tick: one batch, one transaction.
  const rowsA = Array.from({ length: 8 }, () => messageRow(a));
  const rowsB = Array.from({ length: 8 }, () => messageRow(b));
  const interleaved = rowsA.flatMap((r, i) => [r, rowsB[i]!]);
  const outcomes = await Promise.all(interleaved.map((row) => store.messages.enqueue({ row, cap: 3 })));
  const okA = interleaved.filter((r, i) => r.instance_id === a && outcomes[i]?.ok).map((r) => r.zaap_id);
  const okB = interleaved.filter((r, i) => r.instance_id === b && outcomes[i]?.ok).map((r) => r.zaap_id);
  // A had one already: two more fit, the first two submitted. B takes its first three.
  assert.deepEqual(okA, rowsA.slice(0, 2).map((r) => r.zaap_id));
  assert.deepEqual(okB, rowsB.slice(0, 3).map((r) => r.zaap_id));
  for (const [i, o] of outcomes.entries()) {
    if (!o.ok) assert.equal(o.reason, 'queue_full', `item ${i}`);
  }
  assert.equal(await store.messages.countWaiting(a), 3);
  assert.equal(await store.messages.countWaiting(b), 3);
});

storeTest('batched enqueue: a missing instance in the batch does not spoil the others', async (store) => {
  const { instanceId } = await seedInstance(store);
  const good = [messageRow(instanceId), messageRow(instanceId)];
  const [o1, o2, o3] = await Promise.all([
    store.messages.enqueue({ row: good[0]!, cap: 0 }),
    store.messages.enqueue({ row: messageRow('gone'), cap: 0 }),
    store.messages.enqueue({ row: good[1]!, cap: 0 }),
  ]);
  assert.equal(o1?.ok, true);
  assert.deepEqual(o2, { ok: false, reason: 'instance_gone' });
  assert.equal(o3?.ok, true);
  assert.equal(await store.messages.countWaiting(instanceId), 2);
});

storeTest('batched enqueue: a failing row fails its batch as one transaction, so no caller is told ok for a rolled-back row', async (store) => {
  const { instanceId } = await seedInstance(store);
  const dup = messageRow(instanceId);
  await store.messages.enqueue({ row: dup, cap: 0 });
  const innocent = messageRow(instanceId);
  const settled = await Promise.allSettled([
    store.messages.enqueue({ row: innocent, cap: 0 }),
    store.messages.enqueue({ row: { ...dup, message_id: '3EB0DUP' }, cap: 0 }),
  ]);
  assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected']);
  assert.equal(await store.messages.findByZaapId(instanceId, innocent.zaap_id), undefined, 'rolled back together');
  assert.equal((await store.messages.enqueue({ row: messageRow(instanceId), cap: 0 })).ok, true);
  await store.messages.drain();
  assert.equal(await store.messages.countWaiting(instanceId), 2);
});

storeTest('batched enqueue: an uncapped enqueue earlier in the batch does not hide the waiting count from a capped one', async (store) => {
  const { instanceId } = await seedInstance(store);
  for (let i = 0; i < 3; i++) await store.messages.enqueue({ row: messageRow(instanceId), cap: 0 });
  // Same tick: first while connected (no cap), then while disconnected (cap 3, already full).
  const [connected, disconnected] = await Promise.all([
    store.messages.enqueue({ row: messageRow(instanceId), cap: 0 }),
    store.messages.enqueue({ row: messageRow(instanceId), cap: 3 }),
  ]);
  assert.equal(connected?.ok, true);
  assert.deepEqual(disconnected, { ok: false, reason: 'queue_full' });
  assert.equal(await store.messages.countWaiting(instanceId), 4);
});
