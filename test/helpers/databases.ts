// Opens a fresh database per test for each dialect: SQLite in a temp dir, PostgreSQL in its own schema.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/store/database.js';

export const PG_URL = process.env.ZAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  readonly database: Database;
  dispose(): Promise<void>;
}

export type DialectFactory = { name: 'sqlite' | 'postgres'; open(): Promise<TestDatabase> };

export const sqliteFactory: DialectFactory = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'zapgate-store-'));
    const database = await openDatabase({ dataDir: dir });
    return {
      database,
      async dispose() {
        await database.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

export const postgresFactory: DialectFactory = {
  name: 'postgres',
  async open() {
    const schema = `t_${randomBytes(6).toString('hex')}`;
    const database = await openDatabase({ dataDir: '', databaseUrl: PG_URL, pgSchema: schema });
    return {
      database,
      async dispose() {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
        await database.close();
      },
    };
  },
};

export const dialects: readonly DialectFactory[] = [sqliteFactory, postgresFactory];
