// AccountsRepo on both dialects: create, lookups, listing order, token rotation, deletion.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { accountRow, instanceRow, storeTest } from '../helpers/store-fixtures.js';

storeTest('accounts: create, find by token hash and by id', async (store) => {
  const a = accountRow({ name: 'Loja' });
  await store.accounts.create(a);
  assert.deepEqual(await store.accounts.findByTokenHash(a.token_hash), a);
  assert.deepEqual(await store.accounts.findById(a.id), a);
  assert.equal(await store.accounts.findByTokenHash('nope'), undefined);
  assert.equal(await store.accounts.findById('nope'), undefined);
});

storeTest('accounts: token hashes are unique', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  await assert.rejects(store.accounts.create(accountRow({ token_hash: a.token_hash })));
  assert.equal(await store.accounts.count(), 1);
});

storeTest('accounts: list is ordered by creation; count', async (store) => {
  assert.equal(await store.accounts.count(), 0);
  assert.deepEqual(await store.accounts.list(), []);
  const late = accountRow({ created_at: 3_000 });
  const early = accountRow({ created_at: 1_000 });
  const mid = accountRow({ created_at: 2_000 });
  for (const a of [late, early, mid]) await store.accounts.create(a);
  assert.deepEqual((await store.accounts.list()).map((a) => a.id), [early.id, mid.id, late.id]);
  assert.equal(await store.accounts.count(), 3);
});

storeTest('accounts: setTokenHash replaces the hash; unknown id → false', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  assert.equal(await store.accounts.setTokenHash(a.id, 'new-hash'), true);
  assert.equal(await store.accounts.findByTokenHash(a.token_hash), undefined);
  assert.equal((await store.accounts.findByTokenHash('new-hash'))?.id, a.id);
  assert.equal(await store.accounts.setTokenHash('missing', 'x'), false);
});

storeTest('accounts: delete removes the account and, by cascade, its instances', async (store) => {
  const a = accountRow();
  const b = accountRow();
  await store.accounts.create(a);
  await store.accounts.create(b);
  const ia = instanceRow(a.id);
  const ib = instanceRow(b.id);
  await store.instances.create(ia);
  await store.instances.create(ib);
  assert.equal(await store.accounts.delete(a.id), true);
  assert.equal(await store.accounts.delete(a.id), false);
  assert.equal(await store.accounts.findById(a.id), undefined);
  assert.equal(await store.instances.findById(ia.id), undefined);
  assert.equal((await store.instances.findById(ib.id))?.id, ib.id);
  assert.equal(await store.accounts.count(), 1);
});

storeTest('accounts: createFirst creates one first account however many callers race (cluster nodes starting together)', async (store) => {
  // Five connections open first (PostgreSQL), so the five calls run side by side, not one per new connection.
  await Promise.all(Array.from({ length: 5 }, () => sql`select 1`.execute(store.database.db)));
  const rows = Array.from({ length: 5 }, () => accountRow({ name: 'default' }));
  const created = await Promise.all(rows.map((r) => store.accounts.createFirst(r)));
  assert.equal(created.filter(Boolean).length, 1, `one caller created it: ${JSON.stringify(created)}`);
  assert.equal(await store.accounts.count(), 1);
  assert.equal((await store.accounts.list())[0]?.id, rows[created.indexOf(true)]?.id, 'the one that said so');
  assert.equal(await store.accounts.createFirst(accountRow()), false, 'not once there is one');
});
