// Wraps a dialect's driver so the store speaks of storage failures in domain words: a statement or
// commit refused for want of space becomes errors.diskFull (HTTP 507) and opens a disk-full episode
// in StorageHealth; the next committed write closes it. It also keeps the original error when the
// database already rolled the transaction back itself (SQLite does on SQLITE_FULL): otherwise
// Kysely's rollback would fail with "cannot rollback - no transaction is active" and replace it.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { errors } from '../errors.js';
import type { StorageHealth } from './storage-health.js';

/** How a dialect recognises the errors this wrapper handles (dialects/sqlite.ts, dialects/postgres.ts). */
export interface DialectErrors {
  /** The write failed because the disk (or the server's) is full. */
  isDiskFull(err: unknown): boolean;
  /** A rollback found no transaction: the database had already rolled it back. */
  isNothingToRollBack(err: unknown): boolean;
}

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

class GuardedConnection implements DatabaseConnection {
  inTransaction = false;

  constructor(
    readonly inner: DatabaseConnection,
    private readonly guard: Guard,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let result: QueryResult<R>;
    try {
      result = await this.inner.executeQuery<R>(query);
    } catch (err) {
      throw this.guard.translate(err);
    }
    // A write outside a transaction is committed once it returns.
    if (this.guard.health.full && !this.inTransaction && WRITES.has(query.query.kind)) this.guard.health.writeSucceeded();
    return result;
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (err) {
      throw this.guard.translate(err);
    }
  }
}

class Guard {
  constructor(
    readonly health: StorageHealth,
    readonly dialectErrors: DialectErrors,
    readonly observe: ((err: unknown) => void) | undefined,
  ) {}

  translate(err: unknown): unknown {
    this.observe?.(err);
    if (!this.dialectErrors.isDiskFull(err)) return err;
    this.health.writeFailedForSpace(err);
    return errors.diskFull(err);
  }
}

class GuardedDriver implements Driver {
  /** One wrapper per pooled connection, made once (SQLite has one; the enqueue path acquires it per batch). */
  private readonly wrappers = new WeakMap<DatabaseConnection, GuardedConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly guard: Guard,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrappers.get(connection);
    if (!wrapper) {
      wrapper = new GuardedConnection(connection, this.guard);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as GuardedConnection;
    try {
      await this.inner.beginTransaction(c.inner, settings);
    } catch (err) {
      throw this.guard.translate(err);
    }
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GuardedConnection;
    try {
      await this.inner.commitTransaction(c.inner);
    } catch (err) {
      throw this.guard.translate(err);
    }
    c.inTransaction = false;
    this.guard.health.writeSucceeded();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as GuardedConnection;
    c.inTransaction = false;
    try {
      await this.inner.rollbackTransaction(c.inner);
    } catch (err) {
      if (!this.guard.dialectErrors.isNothingToRollBack(err)) throw err;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.inner.savepoint) throw new Error('this dialect has no savepoints');
    await this.inner.savepoint((connection as GuardedConnection).inner, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.inner.rollbackToSavepoint) throw new Error('this dialect has no savepoints');
    await this.inner.rollbackToSavepoint((connection as GuardedConnection).inner, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    if (!this.inner.releaseSavepoint) throw new Error('this dialect has no savepoints');
    await this.inner.releaseSavepoint((connection as GuardedConnection).inner, name, compile);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection((connection as GuardedConnection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** The dialect with its driver guarded; `translate` is for code that bypasses the driver (runBatch). */
export function guardDialect(
  dialect: Dialect,
  health: StorageHealth,
  dialectErrors: DialectErrors,
  /** Sees every error the database answers (cluster mode counts the fence's refusals). */
  observe?: (err: unknown) => void,
): { dialect: Dialect; translate(err: unknown): unknown } {
  const guard = new Guard(health, dialectErrors, observe);
  return {
    dialect: {
      createDriver: () => new GuardedDriver(dialect.createDriver(), guard),
      createQueryCompiler: () => dialect.createQueryCompiler(),
      createAdapter: () => dialect.createAdapter(),
      createIntrospector: (db) => dialect.createIntrospector(db),
    },
    translate: (err) => guard.translate(err),
  };
}
