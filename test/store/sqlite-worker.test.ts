// The sqlite-worker dialect behaves like the in-thread one where callers can tell: SQLite errors
// keep their code, blobs come back as Buffers, transactions commit or roll back whole and one at a
// time, the whole store works on it; a crashed worker fails queries instead of hanging them, and
// an idle worker does not keep the process alive.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, sql, type Generated } from 'kysely';
import Database from 'better-sqlite3';
import { SqliteWorkerDialect } from '../../src/store/dialects/sqlite-worker.js';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/index.js';
import { messageRow, seedInstance } from '../helpers/store-fixtures.js';

interface T {
  t: { id: Generated<number>; u: string | null; b: Buffer | null };
}

async function withDb(fn: (db: Kysely<T>, dir: string) => Promise<void>, dialectFor?: (file: string) => SqliteWorkerDialect): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-sqlw-'));
  const file = join(dir, 'x.db');
  const db = new Kysely<T>({ dialect: dialectFor ? dialectFor(file) : new SqliteWorkerDialect(file) });
  try {
    await fn(db, dir);
  } finally {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function createT(db: Kysely<T>): Promise<void> {
  await sql`create table t (id integer primary key, u text unique, b blob)`.execute(db);
}

describe('sqlite-worker dialect', () => {
  test('constraint and syntax errors arrive as SqliteError with their SQLite code', async () => {
    await withDb(async (db) => {
      await createT(db);
      await db.insertInto('t').values({ u: 'a' }).execute();
      await assert.rejects(db.insertInto('t').values({ u: 'a' }).execute(), (err: unknown) => {
        assert.ok(err instanceof Database.SqliteError);
        assert.equal(err.code, 'SQLITE_CONSTRAINT_UNIQUE');
        assert.match(err.message, /UNIQUE constraint failed: t\.u/);
        return true;
      });
      await assert.rejects(sql`selec 1`.execute(db), { name: 'SqliteError', code: 'SQLITE_ERROR' });
    });
  });

  test('Buffers (also pooled slices) go in and come back as Buffers with the same bytes', async () => {
    await withDb(async (db) => {
      await createT(db);
      const pooled = Buffer.from('a small, pooled buffer'); // a view on Node's shared slab
      const big = Buffer.alloc(100_000, 7);
      await db.insertInto('t').values([{ u: 'p', b: pooled }, { u: 'big', b: big }]).execute();
      const rows = await db.selectFrom('t').select(['u', 'b']).orderBy('id').execute();
      assert.ok(rows.every((r) => Buffer.isBuffer(r.b)));
      assert.deepEqual(rows[0]?.b, pooled);
      assert.deepEqual(rows[1]?.b, big);
    });
  });

  test('insert results carry numInsertedOrUpdatedRows and insertId', async () => {
    await withDb(async (db) => {
      await createT(db);
      const r = await db.insertInto('t').values({ u: 'x' }).executeTakeFirst();
      assert.equal(r.numInsertedOrUpdatedRows, 1n);
      assert.equal(r.insertId, 1n);
      const d = await db.deleteFrom('t').executeTakeFirst();
      assert.equal(d.numDeletedRows, 1n);
    });
  });

  test('a failed transaction leaves nothing; concurrent transactions run one at a time', async () => {
    await withDb(async (db) => {
      await createT(db);
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ u: 'gone' }).execute();
          throw new Error('abort');
        }),
        /abort/,
      );
      // An empty transaction, and one whose first statement fails: both leave the connection usable.
      await db.transaction().execute(async () => {});
      await assert.rejects(db.transaction().execute(async (trx) => void (await sql`selec`.execute(trx))), { code: 'SQLITE_ERROR' });
      // Each transaction reads the count and writes count+1: interleaving would repeat a value.
      await Promise.all(
        Array.from({ length: 20 }, () =>
          db.transaction().execute(async (trx) => {
            const { n } = await trx.selectFrom('t').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
            await trx.insertInto('t').values({ u: `n${n}` }).execute();
          }),
        ),
      );
      const us = (await db.selectFrom('t').select('u').execute()).map((r) => r.u);
      assert.equal(new Set(us).size, 20);
      assert.ok(!us.includes('gone'));
    });
  });

  test('the pragmas are those of the in-thread connection (WAL, synchronous=FULL, foreign keys)', async () => {
    await withDb(async (db) => {
      const one = async (q: string) => Object.values((await sql.raw<Record<string, unknown>>(q).execute(db)).rows[0] ?? {})[0];
      assert.equal(await one('pragma journal_mode'), 'wal');
      assert.equal(await one('pragma synchronous'), 2);
      assert.equal(await one('pragma foreign_keys'), 1);
      assert.equal(await one('pragma busy_timeout'), 5000);
    });
  });

  test('the store runs on it: batched enqueues commit in order, a deleted instance is reported as gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zapgate-sqlw-'));
    const database = await openDatabase({ dataDir: dir, sqliteThread: 'worker' });
    try {
      const store = createStore(database);
      const { instanceId } = await seedInstance(store);
      const rows = Array.from({ length: 120 }, () => messageRow(instanceId));
      const outcomes = await Promise.all([...rows.map((row) => store.messages.enqueue({ row, cap: 0 })), store.messages.enqueue({ row: messageRow('gone'), cap: 0 })]);
      assert.deepEqual(outcomes.at(-1), { ok: false, reason: 'instance_gone' });
      const seqs = outcomes.slice(0, -1).map((o) => (o.ok ? o.seq : -1));
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
      assert.equal(new Set(seqs).size, 120);
      assert.equal(await store.messages.countWaiting(instanceId), 120);
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a crashed worker fails the query in flight and every later one, and close() still returns', async () => {
    // Answers the start-up handshake, then dies on the first query.
    const crashing = new URL(
      'data:text/javascript,' +
        encodeURIComponent(
          "import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ ready: true }); parentPort.on('message', () => { throw new Error('boom'); });",
        ),
    );
    await withDb(
      async (db) => {
        await assert.rejects(sql`select 1`.execute(db), /SQLite worker crashed: boom/);
        await assert.rejects(sql`select 1`.execute(db), /SQLite worker crashed: boom/);
      },
      (file) => new SqliteWorkerDialect(file, { workerUrl: crashing }),
    );
  });

  test('a database that cannot be opened fails with the SQLite error', async () => {
    await withDb(
      async (db) => {
        await assert.rejects(sql`select 1`.execute(db), { name: 'SqliteError', code: 'SQLITE_CANTOPEN' });
      },
      (file) => new SqliteWorkerDialect(dirname(file)), // a directory
    );
  });

  test('an idle worker does not keep the process alive (a forgotten close() cannot hang an exit)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zapgate-sqlw-'));
    // Transpiled under scripts/test.mjs (scripts/test-build.mjs): the child imports the same kind of file, loader or not.
    const compiled = import.meta.filename.endsWith('.js');
    const module = fileURLToPath(new URL(`../../src/store/dialects/sqlite-worker.${compiled ? 'js' : 'ts'}`, import.meta.url));
    const script = `
      const { Kysely, sql } = await import('kysely');
      const { SqliteWorkerDialect } = await import(${JSON.stringify(module)});
      const db = new Kysely({ dialect: new SqliteWorkerDialect(${JSON.stringify(join(dir, 'x.db'))}) });
      const r = await sql\`select 41 + 1 as n\`.execute(db);
      console.log(r.rows[0].n);`;
    try {
      const out = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), '--input-type=module', '-e', script], { timeout: 20_000 }, (err, stdout) =>
          err ? reject(err) : resolve(stdout),
        );
      });
      assert.equal(out.trim(), '42');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
