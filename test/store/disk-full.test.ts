// A write refused for space becomes the domain's disk_full error (HTTP 507), through a Kysely
// transaction (SQLite rolls it back itself: Kysely's own rollback must not replace the error with
// "cannot rollback - no transaction is active") and through runBatch, and opens one disk-full
// episode. SQLite's max_page_count makes the database "full" without a full disk; PostgreSQL's
// SQLSTATE 53100 is checked through the same guard with a driver that answers it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type DatabaseConnection, type Driver } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { DomainError, isDiskFull } from '../../src/errors.js';
import { guardDialect } from '../../src/store/guarded-dialect.js';
import { StorageHealth } from '../../src/store/storage-health.js';
import { openPostgres } from '../../src/store/dialects/postgres.js';
import { openSqlite } from '../../src/store/dialects/sqlite.js';
import { PG_URL } from '../helpers/databases.js';

test('sqlite: a full database answers disk_full, once per episode, in transactions and batches', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-full-'));
  const database = await openDatabase({ dataDir: dir });
  try {
    const changes: boolean[] = [];
    database.storage.onChange((full) => changes.push(full));
    const { db } = database;
    await sql`create table filler (v blob not null)`.execute(db);
    const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(db)).rows[0]?.page_count ?? 0;
    await sql.raw(`pragma max_page_count = ${pages + 4}`).execute(db);

    const big = Buffer.alloc(64 * 1024);
    const inTransaction = db.transaction().execute(async (trx) => {
      for (let i = 0; i < 10; i++) await sql`insert into filler (v) values (${big})`.execute(trx);
    });
    const err = await inTransaction.then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof DomainError, `a DomainError, got ${String(err)}`);
    assert.equal(err.code, 'disk_full');
    assert.match(err.detail ?? '', /^the disk is full: /);
    assert.equal(database.storage.full, true, 'the episode is open');

    const insert = sql`insert into filler (v) values (${'x'})`.compile(db).sql;
    await assert.rejects(database.runBatch(insert, [[big], [big], [big], [big], [big]]), (e: unknown) => isDiskFull(e));
    assert.deepEqual(changes, [true], 'one change for two failures');

    // The connection is still usable: reads and small writes work, nothing half-written is left.
    const left = (await sql<{ n: number }>`select count(*) as n from filler`.execute(db)).rows[0]?.n;
    assert.equal(left, 0, 'the failed transaction and batch left nothing');
  } finally {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('postgres SQLSTATE 53100 and SQLite SQLITE_FULL/ENOSPC are disk_full; other errors pass through unchanged', async () => {
  const failing = (code: string): Driver => {
    const connection: DatabaseConnection = {
      executeQuery: async () => {
        throw Object.assign(new Error(`failed ${code}`), { code });
      },
      // eslint-disable-next-line require-yield
      streamQuery: async function* () {
        throw new Error('unused');
      },
    };
    return {
      init: async () => undefined,
      acquireConnection: async () => connection,
      beginTransaction: async () => undefined,
      commitTransaction: async () => undefined,
      rollbackTransaction: async () => undefined,
      releaseConnection: async () => undefined,
      destroy: async () => undefined,
    };
  };
  // The dialects' own classifiers (opening a pool connects nothing; ':memory:' touches no file).
  const pgErrors = openPostgres(PG_URL).errors;
  const sqliteErrors = openSqlite(':memory:').errors;
  const cases = [
    [pgErrors, '53100', true],
    [pgErrors, '23505', false],
    [sqliteErrors, 'SQLITE_FULL', true],
    [sqliteErrors, 'ENOSPC', true],
    [sqliteErrors, 'SQLITE_CONSTRAINT_UNIQUE', false],
  ] as const;
  for (const [dialectErrors, code, full] of cases) {
    const health = new StorageHealth(() => 0);
    const guarded = guardDialect(
      {
        createDriver: () => failing(code),
        createQueryCompiler: () => new SqliteQueryCompiler(),
        createAdapter: () => new SqliteAdapter(),
        createIntrospector: (k) => new SqliteIntrospector(k),
      },
      health,
      dialectErrors,
    );
    const db = new Kysely<Record<string, never>>({ dialect: guarded.dialect });
    const err = await sql`select 1`.execute(db).then(
      () => null,
      (e: unknown) => e,
    );
    await db.destroy();
    assert.equal(isDiskFull(err), full, `${code}: disk_full ${full}`);
    assert.equal(health.full, full, `${code}: episode ${full}`);
    if (!full) assert.equal((err as { code?: string }).code, code, 'other errors are untouched');
  }
});

test('an episode ends with a committed write only after writes stopped failing for the quiet time', () => {
  let now = 0;
  const health = new StorageHealth(() => now, 5_000);
  const changes: boolean[] = [];
  health.onChange((full) => changes.push(full));
  health.writeFailedForSpace(new Error('full'));
  now = 1_000;
  health.writeFailedForSpace(new Error('full'));
  now = 3_000;
  health.writeSucceeded(); // a small write squeezed in: the disk is still full for larger ones
  assert.equal(health.full, true, 'still full within the quiet time');
  now = 6_500;
  health.writeSucceeded();
  assert.equal(health.full, false, 'recovered');
  assert.deepEqual(changes, [true, false], 'one change each way');
});
