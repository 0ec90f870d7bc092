// SQLite through better-sqlite3: WAL, synchronous=FULL (an acknowledged write survives power loss).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import { SqliteWorkerDialect } from './sqlite-worker.js';
import type { OpenedDialect } from './types.js';

/**
 * Where the connection runs: 'main' (in this thread) or 'worker' (sqlite-worker.ts: a commit's
 * fsync overlaps request handling). 'main' is the default because it measured faster in
 * bench/enqueue on a shared 2-core machine: with 50 clients the fsync, not the CPU, bounds the
 * accept rate, and the thread hops only add latency. The worker applies the same pragmas.
 */
export type SqliteThread = 'worker' | 'main';

const capabilities = { name: 'sqlite', autoIncrementType: 'integer', singleWriter: true } as const;

export function openSqlite(file: string, thread: SqliteThread = 'main'): OpenedDialect {
  if (thread === 'worker') return { dialect: new SqliteWorkerDialect(file), capabilities };
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return { dialect: new SqliteDialect({ database }), capabilities };
}
