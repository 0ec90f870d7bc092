// SQLite through better-sqlite3: WAL, synchronous=FULL (an acknowledged write survives power loss).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDialect, type SqliteDatabase } from 'kysely';
import { SqliteWorkerDialect } from './sqlite-worker.js';
import type { OpenedDialect } from './types.js';
import type { DialectErrors } from '../guarded-dialect.js';
import { privateFile } from '../private-files.js';

/**
 * Where the connection runs: 'main' (in this thread) or 'worker' (sqlite-worker.ts: a commit's
 * fsync overlaps request handling). 'main' is the default because it measured faster in
 * bench/enqueue on a shared 2-core machine: with 50 clients the fsync, not the CPU, bounds the
 * accept rate, and the thread hops only add latency. The worker applies the same pragmas.
 */
export type SqliteThread = 'worker' | 'main';

const capabilities = { name: 'sqlite', autoIncrementType: 'integer', singleWriter: true } as const;

/** SQLite reports a full disk as SQLITE_FULL (ENOSPC from a write of its own files shows as such too). */
const errors: DialectErrors = {
  isDiskFull: (err) => {
    const code = (err as { code?: unknown } | null)?.code;
    return code === 'SQLITE_FULL' || code === 'ENOSPC';
  },
  // After SQLITE_FULL (and some I/O errors) SQLite has already rolled the transaction back.
  isNothingToRollBack: (err) => err instanceof Error && /no transaction is active/.test(err.message),
};

export function openSqlite(file: string, thread: SqliteThread = 'main'): OpenedDialect {
  if (file !== ':memory:') {
    // Private before SQLite opens it: the database holds keys and secrets (private-files.ts). The
    // directory is made 0700 only if created here (the gateway tightens its data dir itself).
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    privateFile(file);
    for (const suffix of ['-wal', '-shm', '-journal']) privateFile(file + suffix, false);
  }
  if (thread === 'worker') {
    const dialect = new SqliteWorkerDialect(file);
    return { dialect, capabilities, errors, runBatch: (sql, lists) => dialect.runBatch(sql, lists) };
  }
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  const cached = withStatementCache(database);
  const runBatch = database.transaction((sql: string, lists: readonly (readonly unknown[])[]) => {
    const stmt = cached.prepare(sql);
    return lists.map((parameters) => (stmt.reader ? (stmt.all(parameters) as unknown[]) : (stmt.run(parameters), [])));
  });
  return {
    dialect: new SqliteDialect({ database: cached }),
    capabilities,
    errors,
    runBatch: async (sql, lists) => runBatch(sql, lists),
  };
}

/** Prepared statements kept by SQL text (as sqlite-worker-thread.mjs does). */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SqliteDriver prepares every query anew; the hot ones repeat (the enqueue batch's insert,
 * the sender's reads), so each is compiled once (bench/enqueue). Safe because the driver runs one
 * statement at a time and nothing here streams (an iterating statement cannot be reused).
 */
function withStatementCache(database: Database.Database): SqliteDatabase & { prepare(sql: string): Database.Statement } {
  const statements = new Map<string, Database.Statement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare: (sql: string) => {
      let stmt = statements.get(sql);
      if (stmt) {
        statements.delete(sql); // most recently used last: the oldest is evicted first
      } else {
        stmt = database.prepare(sql);
        if (statements.size >= STATEMENT_CACHE_SIZE) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
      }
      statements.set(sql, stmt);
      return stmt;
    },
  };
}
