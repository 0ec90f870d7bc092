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
import { systemClock } from '../clock.js';

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

interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; otherwise SQLite in `dataDir`. */
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  /** Overrides the SQLite file (tests use ':memory:' or a temp file). */
  readonly sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema). */
  readonly pgSchema?: string;
  /** Where the SQLite connection runs (default: this thread; see dialects/sqlite.ts). */
  readonly sqliteThread?: SqliteThread;
  /**
   * PostgreSQL, cluster mode: every connection carries this incarnation as its `zapgate.fence`, so
   * migration 018's triggers refuse its writes to instances another node owns; a transaction left
   * idle longer than `idleTxMs` (a paused process) is ended by the server, releasing its row locks.
   */
  readonly fence?: { readonly incarnation: string; readonly idleTxMs: number };
  /** false: the schema is known to be current (a second handle on a migrated database). */
  readonly migrate?: boolean;
  /** Sees every error the database answers. */
  readonly onError?: (err: unknown) => void;
  /**
   * The gateway's clock (src/clock.ts), for the times the store keeps on its own (a migration's
   * applied_at, a disk-full episode's quiet time). Default: the wall clock.
   */
  readonly now?: () => number;
}

const system = systemClock();
const wallClock = (): number => system.now();

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const fenceOptions = options.fence ? [`-c zapgate.fence=${options.fence.incarnation}`, `-c idle_in_transaction_session_timeout=${options.fence.idleTxMs}`] : [];
  const opened = options.databaseUrl
    ? openPostgres(withSearchPath(options.databaseUrl, options.pgSchema, fenceOptions))
    : openSqlite(options.sqliteFile ?? join(options.dataDir, 'zapgate.db'), options.sqliteThread);
  const now = options.now ?? wallClock;
  const storage = new StorageHealth(now);
  const guarded = guardDialect(opened.dialect, storage, opened.errors, options.onError);
  const db = new Kysely<DB>({ dialect: guarded.dialect });
  if (options.databaseUrl && options.pgSchema) {
    await sql`create schema if not exists ${sql.id(options.pgSchema)}`.execute(db);
  }
  if (options.migrate !== false) await migrate(db, opened.capabilities, now);
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

/**
 * The connection string with `schema` as its search_path (the store's own, and its owner lock's),
 * and any other server settings (`-c name=value`) added to the URL's own `options`.
 */
export function withSearchPath(url: string, schema: string | undefined, extra: readonly string[] = []): string {
  if (!schema && extra.length === 0) return url;
  const u = new URL(url);
  const options = [u.searchParams.get('options') ?? '', schema ? `-c search_path=${schema}` : '', ...extra].filter((o) => o.length > 0);
  u.searchParams.set('options', options.join(' '));
  return u.toString();
}

/** Any 64-bit number of our own: nodes of a cluster starting together migrate one at a time. */
const MIGRATION_LOCK_KEY = '7301118407553019';

/** Applies every migration not yet recorded, each in its own transaction; `now` times them. */
export async function migrate(db: Kysely<DB>, caps: DialectCapabilities, now: () => number = wallClock): Promise<string[]> {
  if (caps.name !== 'postgres') return migrateNow(db, caps, now);
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
    try {
      return await migrateNow(conn, caps, now);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY}::bigint)`.execute(conn);
    }
  });
}

async function migrateNow(db: Kysely<DB>, caps: DialectCapabilities, now: () => number): Promise<string[]> {
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
      await trx.insertInto('zapgate_migrations').values({ name: m.name, applied_at: now() }).execute();
    });
    applied.push(m.name);
  }
  return applied;
}
