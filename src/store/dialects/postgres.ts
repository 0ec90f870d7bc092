// PostgreSQL through node-postgres, for cluster deployments and the store's dialect tests.
import pg from 'pg';
import { PostgresDialect } from 'kysely';
import type { OpenedDialect } from './types.js';

// int8 and numeric come back as strings by default; every such column here holds
// millisecond timestamps or sequence numbers, which fit safely in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export function openPostgres(connectionString: string, maxConnections = 10): OpenedDialect {
  const pool = new pg.Pool({ connectionString, max: maxConnections });
  return {
    dialect: new PostgresDialect({ pool }),
    capabilities: { name: 'postgres', autoIncrementType: 'bigserial', singleWriter: false },
    errors: {
      // SQLSTATE 53100 disk_full: the server could not extend a file.
      isDiskFull: (err) => (err as { code?: unknown } | null)?.code === '53100',
      // PostgreSQL answers a rollback without a transaction with a warning, never an error.
      isNothingToRollBack: () => false,
    },
  };
}
