// PostgreSQL through node-postgres, for cluster deployments and the store's dialect tests.
import pg from 'pg';
import { PostgresDialect } from 'kysely';
import type { OpenedDialect } from './types.js';

// int8 and numeric come back as strings by default; every such column here holds
// millisecond timestamps or sequence numbers, which fit safely in a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export function openPostgres(connectionString: string, maxConnections = 10): OpenedDialect {
  const pool = new pg.Pool({ connectionString, max: maxConnections });
  // An idle connection the server closed (a restart, a failover) is dropped by the pool, which opens
  // a new one for the next query; without a listener its 'error' event would end the process.
  // Queries that fail meanwhile report their own errors to their callers.
  pool.on('error', () => undefined);
  // The same for a connection the server closes while a transaction holds it between two queries:
  // the client would emit 'error' with no one listening. Its next query fails (reported to its
  // caller), and the pool discards the client when it comes back, as it is no longer queryable.
  pool.on('connect', (client) => client.on('error', () => undefined));
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
