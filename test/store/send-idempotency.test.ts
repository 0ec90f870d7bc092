// Idempotency-Key at the store (store/messages-enqueue.ts, migration 026): the key is written in the
// message's own transaction, so requests racing with one key queue one message and all answer its
// ids; a different request under the key is refused; a key past its 24 hours names nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/index.js';
import { PG_URL } from '../helpers/databases.js';
import { messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

const DAY = 24 * 60 * 60_000;

storeTest('idempotency: racing requests with one key queue one message and answer its ids', async (store) => {
  const { instanceId } = await seedInstance(store);
  const rows = [1, 2, 3, 4].map(() => messageRow(instanceId, { created_at: 10 * DAY }));
  const idempotency = { key: 'order-42', hash: 'h1', notBefore: 9 * DAY };
  const outcomes = await Promise.all(rows.map((row, i) => store.messages.enqueue({ row, cap: i % 2 ? 0 : 100, idempotency })));
  assert.equal(outcomes.filter((o) => o.ok).length, 1, JSON.stringify(outcomes));
  const first = rows[outcomes.findIndex((o) => o.ok)]!;
  for (const o of outcomes.filter((x) => !x.ok)) assert.deepEqual(o, { ok: false, reason: 'replayed', zaapId: first.zaap_id, messageId: first.message_id });
  assert.equal(await store.messages.countWaiting(instanceId), 1);
  // Later, the same again: still the first message.
  assert.deepEqual(await store.messages.enqueue({ row: messageRow(instanceId, { created_at: 10 * DAY + 1 }), cap: 0, idempotency }), { ok: false, reason: 'replayed', zaapId: first.zaap_id, messageId: first.message_id });
  // Another request under the key: refused, nothing queued.
  assert.deepEqual(await store.messages.enqueue({ row: messageRow(instanceId), cap: 0, idempotency: { ...idempotency, hash: 'h2' } }), { ok: false, reason: 'key_reused' });
  assert.equal(await store.messages.countWaiting(instanceId), 1);
});

storeTest('idempotency: keys are per instance, forgotten after 24 hours, and a refused enqueue records none', async (store) => {
  const a = await seedInstance(store);
  const b = await seedInstance(store);
  const idempotency = { key: 'k', hash: 'h', notBefore: 0 };
  assert.equal((await store.messages.enqueue({ row: messageRow(a.instanceId, { created_at: DAY }), cap: 0, idempotency })).ok, true);
  assert.equal((await store.messages.enqueue({ row: messageRow(b.instanceId, { created_at: DAY }), cap: 0, idempotency })).ok, true, 'another instance, the same key: its own message');
  // A day and more later the key names nothing: a new message.
  assert.equal((await store.messages.enqueue({ row: messageRow(a.instanceId, { created_at: 2 * DAY + 1 }), cap: 0, idempotency: { ...idempotency, notBefore: DAY + 1 } })).ok, true);
  assert.equal(await store.messages.countWaiting(a.instanceId), 2);
  // A full queue refuses the message and keeps no key: the retry, once there is room, queues it.
  const full = { key: 'full', hash: 'h', notBefore: 0 };
  assert.deepEqual(await store.messages.enqueue({ row: messageRow(a.instanceId), cap: 2, idempotency: full }), { ok: false, reason: 'queue_full' });
  assert.equal((await store.messages.enqueue({ row: messageRow(a.instanceId), cap: 3, idempotency: full })).ok, true);
  // The sweep forgets old keys.
  assert.equal(await store.messages.pruneIdempotencyKeys(DAY + 1), 1, 'the key of day one that no send replaced');
});

test('postgres: two nodes (two connection pools) racing with one key: one message, every answer names it', async () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const one = await openDatabase({ dataDir: '', databaseUrl: PG_URL, pgSchema: schema });
  const two = await openDatabase({ dataDir: '', databaseUrl: PG_URL, pgSchema: schema });
  try {
    const [a, b] = [createStore(one), createStore(two)];
    const { instanceId } = await seedInstance(a);
    const idempotency = { key: 'race', hash: 'h', notBefore: 0 };
    const rows = Array.from({ length: 6 }, () => messageRow(instanceId));
    const outcomes = await Promise.all(rows.map((row, i) => (i % 2 ? a : b).messages.enqueue({ row, cap: 0, idempotency })));
    const winner = outcomes.findIndex((o) => o.ok);
    assert.equal(outcomes.filter((o) => o.ok).length, 1, JSON.stringify(outcomes));
    for (const o of outcomes.filter((x) => !x.ok)) assert.deepEqual(o, { ok: false, reason: 'replayed', zaapId: rows[winner]!.zaap_id, messageId: rows[winner]!.message_id });
    assert.equal(await b.messages.countWaiting(instanceId), 1);
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(one.db);
    await one.close();
    await two.close();
  }
});
