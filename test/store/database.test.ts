// Database opening on both dialects: migrations apply once and are recorded, ping works,
// foreign keys are enforced (SQLite needs them switched on per connection).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrate } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations/index.js';
import { instanceRow, storeTest } from '../helpers/store-fixtures.js';

storeTest('database: every migration is recorded once; running again applies nothing', async (store) => {
  const { db, capabilities } = store.database;
  const recorded = await sql<{ name: string }>`select name from zapgate_migrations order by name`.execute(db);
  assert.deepEqual(recorded.rows.map((r) => r.name), migrations.map((m) => m.name).sort());
  assert.deepEqual(await migrate(db, capabilities), []);
  await store.database.ping();
});

storeTest('database: foreign keys are enforced', async (store) => {
  await assert.rejects(store.instances.create(instanceRow('missing-account')));
});

storeTest('database: large text and millisecond timestamps round-trip exactly', async (store, dialect) => {
  const big = 'x'.repeat(200_000) + 'ção 🎉';
  const at = 1_795_000_000_123;
  await store.accounts.create({ id: 'a', name: big, token_hash: 'h', created_at: at });
  const row = await store.accounts.findById('a');
  assert.equal(row?.name, big);
  assert.equal(row?.created_at, at, `${dialect}: bigint comes back as a number`);
  assert.equal(typeof row?.created_at, 'number');
});

storeTest('database: runBatch runs a statement per parameter list in one transaction, all or nothing', async (store, dialect) => {
  const { db, capabilities } = store.database;
  const id = capabilities.autoIncrementType === 'bigserial' ? sql`bigserial primary key` : sql`integer primary key`;
  await sql`create table batch_t (id ${id}, v text not null unique)`.execute(db);
  // The statement as the dialect writes it: compiled by Kysely once, run per list.
  const compiled = sql`insert into batch_t (v) values (${'x'}) returning id, v`.compile(db).sql;
  const rows = await store.database.runBatch<{ id: number; v: string }>(compiled, [['a'], ['b'], ['c']]);
  assert.deepEqual(rows.map((r) => r.map((x) => x.v)), [['a'], ['b'], ['c']]);
  assert.deepEqual(rows.map((r) => Number(r[0]?.id)), [1, 2, 3]);
  // The third list breaks the unique constraint: the first two must not stay behind.
  await assert.rejects(store.database.runBatch(compiled, [['d'], ['e'], ['a']]));
  const left = await sql<{ v: string }>`select v from batch_t order by id`.execute(db);
  assert.deepEqual(left.rows.map((r) => r.v), ['a', 'b', 'c']);
  if (dialect !== 'sqlite') return;
  // SQLite's one connection: a transaction holding it is not joined; the batch runs after it.
  let inside = '';
  await Promise.all([
    db.transaction().execute(async (trx) => {
      await sql`insert into batch_t (v) values ('t1')`.execute(trx);
      await new Promise((r) => setTimeout(r, 20)); // the scenario: the transaction holds the connection a while
      inside = (await sql<{ n: number }>`select count(*) as n from batch_t`.execute(trx)).rows.map((r) => String(r.n))[0] ?? '';
    }),
    store.database.runBatch(compiled, [['late']]),
  ]);
  assert.equal(inside, '4');
});
