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
