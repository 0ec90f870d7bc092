// One owner per data: a gateway takes its database's owner lock before it opens the database, and a
// second gateway on the same SQLite data dir, or the same PostgreSQL database and schema, refuses to
// start, unless both are nodes of a cluster (they share the lock; a lone gateway and a cluster exclude each other). The lock dies with the process that holds it.
import { inspect } from 'node:util';
import { lockSqliteDataDir } from './dialects/sqlite-lock.js';
import { lockPostgres } from './dialects/postgres-lock.js';

interface OwnerLock {
  /**
   * PostgreSQL: hears `false` when the lock's connection fails (another node could take the database
   * meanwhile) and `true` once the lock is held again. A SQLite lock cannot be lost.
   */
  onChange(listener: (held: boolean, err?: Error) => void): void;
  release(): Promise<void>;
}

/** Another process holds the lock. Printed as its one-line message (no stack: nothing is broken). */
class OwnerLockError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OwnerLockError';
  }

  [inspect.custom](): string {
    return `zapgate: ${this.message}`;
  }
}

interface OwnerLockOptions {
  readonly databaseUrl?: string | undefined;
  readonly dataDir: string;
  /** PostgreSQL: the connection string with the schema applied (what the store will use). */
  readonly pgConnectionString?: string;
  /** PostgreSQL, cluster mode: the lock is shared by the cluster's nodes (and refused to a lone gateway). */
  readonly cluster?: boolean;
}

export async function acquireOwnerLock(options: OwnerLockOptions): Promise<OwnerLock> {
  if (options.databaseUrl) {
    const held = await lockPostgres(options.pgConnectionString ?? options.databaseUrl, options.cluster === true);
    if ('heldBy' in held && options.cluster) {
      throw new OwnerLockError(
        `a zapgate not in cluster mode is running on this PostgreSQL database (${held.where}${held.heldBy ? `, held by ${held.heldBy}` : ''}); ` +
          'stop it, or restart it with the same ZAPGATE_CLUSTER_SECRET as this node',
      );
    }
    if ('heldBy' in held) {
      throw new OwnerLockError(
        `another zapgate is already running on this PostgreSQL database (${held.where}${held.heldBy ? `, held by ${held.heldBy}` : ''}); ` +
          'stop it first, or give this one another database or schema',
      );
    }
    return held;
  }
  const held = lockSqliteDataDir(options.dataDir);
  if ('heldBy' in held) {
    throw new OwnerLockError(
      `another zapgate is already running on the data dir ${options.dataDir}${held.heldBy ? ` (pid ${held.heldBy})` : ''}; ` +
        'stop it first, or give this one another ZAPGATE_DATA_DIR',
    );
  }
  return { onChange: () => undefined, release: () => held.release() };
}
