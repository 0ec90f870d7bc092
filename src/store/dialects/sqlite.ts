// SQLite through better-sqlite3: WAL, synchronous=FULL (an acknowledged write survives power loss).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { OpenedDialect } from './types.js';

export function openSqlite(file: string): OpenedDialect {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = new Database(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = FULL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  return {
    dialect: new SqliteDialect({ database }),
    capabilities: { name: 'sqlite', autoIncrementType: 'integer', singleWriter: true },
  };
}
