// The pull API's queue and the event filters on SQLite and PostgreSQL (migration 027): the head is
// the first event after the stored ack position; only the head can be acknowledged, once, even by
// two consumers at the same time; filters round-trip and reach the outbox's delivery context.
import assert from 'node:assert/strict';
import { timeOrderedId } from '../../src/outbox/sink.js';
import type { Store } from '../../src/store/index.js';
import { accountRow, instanceRow, storeTest } from '../helpers/store-fixtures.js';

async function setup(store: Store): Promise<{ a: string; b: string }> {
  const acc = accountRow();
  await store.accounts.create(acc);
  const a = instanceRow(acc.id);
  const b = instanceRow(acc.id);
  await store.instances.create(a);
  await store.instances.create(b);
  return { a: a.id, b: b.id };
}

async function commit(store: Store, at: number, ...items: [instanceId: string, label: string][]): Promise<string[]> {
  const events = items.map(([instanceId, label]) => ({ id: timeOrderedId('msg_', at), instanceId, type: 'ReceivedCallback', body: JSON.stringify({ label }), createdAt: at }));
  await store.deliveries.commit(events, []);
  return events.map((e) => e.id);
}

storeTest('pull: the head moves only by acknowledging it, per instance', async (store) => {
  const { a, b } = await setup(store);
  assert.equal(await store.eventPull.head(a), null, 'empty');
  const [a1, b1, a2] = await commit(store, 1_000, [a, 'a1'], [b, 'b1'], [a, 'a2']);
  assert.equal((await store.eventPull.head(a))?.id, a1);
  assert.equal((await store.eventPull.head(a))?.id, a1, 'unacknowledged: the same again');
  assert.equal(await store.eventPull.ack(a, a2!, 2_000), 'not-next');
  assert.equal(await store.eventPull.ack(a, b1!, 2_000), 'unknown', "another instance's event");
  assert.equal(await store.eventPull.ack(a, 'msg_nothing', 2_000), 'unknown');
  assert.equal(await store.eventPull.ack(a, a1!, 2_000), 'acked');
  assert.equal(await store.eventPull.ack(a, a1!, 2_000), 'already');
  assert.equal((await store.eventPull.head(a))?.id, a2);
  assert.equal((await store.eventPull.head(b))?.id, b1, 'b has its own queue');
  // Two consumers acknowledging the head at once: it moves once, both are told it is done.
  const outcomes = await Promise.all([store.eventPull.ack(a, a2!, 3_000), store.eventPull.ack(a, a2!, 3_000)]);
  assert.deepEqual(outcomes.sort(), ['acked', 'already']);
  assert.equal(await store.eventPull.head(a), null);
  const [a3] = await commit(store, 4_000, [a, 'a3']);
  assert.equal((await store.eventPull.head(a))?.id, a3, 'a later commit is next');
});

storeTest('filters: stored per target, normalised, read into the delivery context; {} removes them', async (store) => {
  const { a, b } = await setup(store);
  await store.eventFilters.set(a, 'webhooks', { messageFilters: ['FILTER_FROM_GROUP'], callbackTypeFilters: [], includeChats: [], excludeChats: ['+55 11 98888-7777'] }, 1);
  await store.eventFilters.set(a, 'sink:nats', { messageFilters: [], callbackTypeFilters: ['FILTER_PRESENCE_CHAT_CALLBACK'], includeChats: ['120363019502650977-group'], excludeChats: [] }, 1);
  const ctx = await store.deliveries.contexts([a, b]);
  assert.deepEqual(ctx.get(a)?.filters?.get('webhooks')?.excludeChats, ['5511988887777']);
  assert.deepEqual(ctx.get(a)?.filters?.get('sink:nats')?.includeChats, ['120363019502650977-group']);
  assert.equal(ctx.get(b)?.filters, undefined, 'no filter: nothing');
  await store.eventFilters.set(a, 'webhooks', { messageFilters: [], callbackTypeFilters: [], includeChats: [], excludeChats: [] }, 2);
  const after = await store.deliveries.contexts([a]);
  assert.equal(after.get(a)?.filters?.get('webhooks'), undefined);
  assert.ok(after.get(a)?.filters?.get('sink:nats'), 'the other target keeps its own');
});
