// The store reads behind /metrics, on both dialects: messages still to send across instances (the
// queue depth), and webhook deliveries still to attempt with the oldest one's commit time (the lag).
import assert from 'node:assert/strict';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

storeTest('metrics: countAllWaiting counts queued and in-flight messages of every instance', async (store) => {
  assert.equal(await store.messages.countAllWaiting(), 0, 'empty store');
  const { instanceId: a } = await seedInstance(store);
  const { instanceId: b } = await seedInstance(store);
  for (const state of ['queued', 'queued', 'in_flight', 'sent', 'failed'] as const) await store.messages.enqueue({ row: messageRow(a, { state }), cap: 0 });
  await store.messages.enqueue({ row: messageRow(b), cap: 0 });
  assert.equal(await store.messages.countAllWaiting(), 4, 'sent and failed are not waiting');
  await store.messages.clearWaiting(a);
  assert.equal(await store.messages.countAllWaiting(), 2, 'the in-flight one and the other instance');
});

storeTest('metrics: the delivery backlog counts deliveries still to attempt and the oldest commit time', async (store) => {
  assert.deepEqual(await store.deliveries.backlog(), { pending: 0, oldestCreatedAt: null }, 'empty store');
  const { instanceId } = await seedInstance(store);
  const add = (id: string, at: number) =>
    store.deliveries.commit(
      [{ id: `e-${id}`, instanceId, type: 'ReceivedCallback', body: '{}', createdAt: at }],
      [{ id, eventId: `e-${id}`, instanceId, kind: 'received', url: 'https://a.example/', createdAt: at }],
    );
  await add('d1', 1000);
  await add('d2', 2000);
  await add('d3', 3000);
  assert.deepEqual(await store.deliveries.backlog(), { pending: 3, oldestCreatedAt: 1000 });
  const due = await store.deliveries.due(instanceId, 'https://a.example/', 10_000, 10);
  assert.deepEqual(due.map((d) => [d.id, d.createdAt]), [['d1', 1000], ['d2', 2000], ['d3', 3000]], 'due deliveries carry their commit time');
  await store.deliveries.record([
    { id: 'd1', result: 'delivered', httpStatus: 200, at: 4000 },
    { id: 'd2', result: 'retrying', httpStatus: 500, error: 'HTTP 500', nextAttemptAt: 9000, at: 4000 },
    { id: 'd3', result: 'failed', httpStatus: 500, error: 'HTTP 500', at: 4000 },
  ]);
  assert.deepEqual(await store.deliveries.backlog(), { pending: 1, oldestCreatedAt: 2000 }, 'only the retrying one is left');
});
