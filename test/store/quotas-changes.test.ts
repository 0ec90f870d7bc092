// The store side of the hardening on both dialects: the instance cap holds under concurrent
// creations (PostgreSQL too, where two transactions could both count N-1), account rotations and
// deletions are logged for running servers, and waiting media and payload sizes are read per account.
import assert from 'node:assert/strict';
import { accountRow, instanceRow, messageRow, storeTest } from '../helpers/store-fixtures.js';

storeTest('instances: create with a cap refuses the one past it, also when created concurrently', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  const results = await Promise.all(Array.from({ length: 8 }, () => store.instances.create(instanceRow(a.id), 3)));
  assert.equal(results.filter(Boolean).length, 3, `created: ${results.join(',')}`);
  assert.equal((await store.instances.listByAccount(a.id)).length, 3);
  assert.equal(await store.instances.create(instanceRow(a.id), 0), true, 'no cap: always');
});

storeTest('accounts: rotations and deletions are logged, with the deleted instances', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  const i1 = instanceRow(a.id);
  const i2 = instanceRow(a.id);
  await store.instances.create(i1);
  await store.instances.create(i2);
  const before = await store.accounts.lastChange();
  assert.equal(await store.accounts.rotateToken(a.id, 'rotated-hash', 1_000), true);
  assert.equal((await store.accounts.findById(a.id))?.token_hash, 'rotated-hash');
  assert.equal(await store.accounts.rotateToken('missing', 'x', 1_000), false);
  assert.equal(await store.accounts.deleteRecorded(a.id, 2_000), true);
  assert.equal(await store.accounts.deleteRecorded(a.id, 2_000), false, 'already gone');
  assert.equal(await store.instances.findById(i1.id), undefined, 'instances went with it');
  const changes = await store.accounts.changesAfter(before);
  assert.deepEqual(
    changes.map((c) => [c.accountId, c.kind, [...c.instanceIds].sort()]),
    [
      [a.id, 'rotate', []],
      [a.id, 'delete', [i1.id, i2.id].sort()],
    ],
  );
  assert.equal(await store.accounts.lastChange(), changes[1]!.seq);
  assert.deepEqual(await store.accounts.changesAfter(changes[1]!.seq), []);
});

storeTest('messages: waiting media payloads and payload sizes, per account', async (store) => {
  const a = accountRow();
  const b = accountRow();
  await store.accounts.create(a);
  await store.accounts.create(b);
  const ia = instanceRow(a.id);
  const ib = instanceRow(b.id);
  await store.instances.create(ia);
  await store.instances.create(ib);
  const ref = `zapgate-media:${'a'.repeat(64)}:100`;
  const withMedia = messageRow(ia.id, { payload: JSON.stringify({ content: { type: 'image', image: ref } }), media_bytes: 100 });
  const text = messageRow(ia.id, { payload: '{"content":{"type":"text","message":"hi"}}' });
  const theirs = messageRow(ib.id, { payload: JSON.stringify({ content: { type: 'image', image: ref } }), media_bytes: 100 });
  for (const row of [withMedia, text, theirs]) assert.equal((await store.messages.enqueue({ row, cap: 0 })).ok, true);
  assert.deepEqual(await store.messages.waitingMediaPayloads(a.id), [withMedia.payload]);
  assert.equal((await store.messages.waitingMediaPayloads()).length, 2, 'every account');
  assert.equal(await store.messages.waitingPayloadChars(a.id), withMedia.payload.length + text.payload.length);
  assert.equal((await store.messages.clearWaiting(ia.id)).length, 2);
  assert.deepEqual(await store.messages.waitingMediaPayloads(a.id), []);
  assert.equal(await store.messages.waitingPayloadChars(a.id), 0);
});
