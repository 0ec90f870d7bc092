// Opens the configured database, applies pending migrations, and hands out the typed Kysely handle.
import { join } from 'node:path';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { openPostgres } from './dialects/postgres.js';
import { openSqlite, type SqliteThread } from './dialects/sqlite.js';
import type { DialectCapabilities } from './dialects/types.js';
import { migrations } from './migrations/index.js';
import type { DB } from './schema.js';
import { guardDialect } from './guarded-dialect.js';
import { StorageHealth } from './storage-health.js';

export interface Database {
  readonly db: Kysely<DB>;
  readonly capabilities: DialectCapabilities;
  /** Whether writes are failing for want of space (an episode ends with the next committed write). */
  readonly storage: StorageHealth;
  ping(): Promise<void>;
  /** A small committed write, to learn whether space has come back while nothing else writes. */
  probeWrite(): Promise<void>;
  /**
   * Runs one statement once per parameter list, all in one transaction (one commit), and returns
   * each run's rows in order; nothing else runs on the connection meanwhile. The enqueue path uses
   * it with a statement compiled once, so a batch costs no query building (bench/enqueue).
   */
  runBatch<R>(sql: string, parameterLists: readonly (readonly unknown[])[]): Promise<R[][]>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  /** Overrides the SQLite file (tests use ':memory:' or a temp file). */
  readonly sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  readonly pgSchema?: string;
  /** Where the SQLite connection runs (default: this thread; see dialects/sqlite.ts). */
  readonly sqliteThread?: SqliteThread;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const opened = options.databaseUrl
    ? openPostgres(withSearchPath(options.databaseUrl, options.pgSchema))
    : openSqlite(options.sqliteFile ?? join(options.dataDir, 'zapgate.db'), options.sqliteThread);
  const storage = new StorageHealth();
  const guarded = guardDialect(opened.dialect, storage, opened.errors);
  const db = new Kysely<DB>({ dialect: guarded.dialect });
  if (options.databaseUrl && options.pgSchema) {
    await sql`create schema if not exists ${sql.id(options.pgSchema)}`.execute(db);
  }
  await migrate(db, opened.capabilities);
  return {
    db,
    capabilities: opened.capabilities,
    storage,
    async ping() {
      await sql`select 1`.execute(db);
    },
    async probeWrite() {
      // Rewrites one row with its own value: a real committed write (a page in SQLite's WAL, a row
      // version in PostgreSQL) that changes nothing.
      await db.transaction().execute(async (trx) => {
        await sql`update zapgate_migrations set applied_at = applied_at where name = (select min(name) from zapgate_migrations)`.execute(trx);
      });
    },
    async runBatch<R>(text: string, lists: readonly (readonly unknown[])[]): Promise<R[][]> {
      const native = opened.runBatch;
      if (native) {
        const rows = await db
          .connection()
          .execute(() => native(text, lists))
          .catch((err: unknown) => {
            throw guarded.translate(err);
          });
        if (storage.full && !/^\s*select\b/i.test(text)) storage.writeSucceeded();
        return rows as R[][];
      }
      return db.transaction().execute(async (trx) => {
        const out: R[][] = [];
        for (const parameters of lists) out.push((await trx.executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows as R[]);
        return out;
      });
    },
    async close() {
      await db.destroy();
    },
  };
}

/** The connection string with `schema` as its search_path (the store's own, and its owner lock's). */
export function withSearchPath(url: string, schema: string | undefined): string {
  if (!schema) return url;
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/** Applies every migration not yet recorded, each in its own transaction. */
export async function migrate(db: Kysely<DB>, caps: DialectCapabilities): Promise<string[]> {
  const raw = db as unknown as Kysely<{ zapgate_migrations: { name: string; applied_at: number } }>;
  await raw.schema
    .createTable('zapgate_migrations')
    .ifNotExists()
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('applied_at', 'bigint', (c) => c.notNull())
    .execute();
  const done = new Set((await raw.selectFrom('zapgate_migrations').select('name').execute()).map((r) => r.name));
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    await raw.transaction().execute(async (trx) => {
      await m.up(trx as unknown as Kysely<unknown>, caps);
      await trx.insertInto('zapgate_migrations').values({ name: m.name, applied_at: Date.now() }).execute();
    });
    applied.push(m.name);
  }
  return applied;
}
