// What differs between the supported databases, read in one place.
import type { Dialect } from 'kysely';
import type { DialectErrors } from '../guarded-dialect.js';

type DialectName = 'sqlite' | 'postgres';

export interface DialectCapabilities {
  readonly name: DialectName;
  /** Column type for an auto-incrementing integer primary key. */
  readonly autoIncrementType: 'integer' | 'bigserial';
  /** Whether a single connection serialises all writes (so batching commits matters most). */
  readonly singleWriter: boolean;
}

/**
 * Runs one statement once per parameter list, all in one transaction, and returns each run's rows
 * in order. Called only while the caller holds the Kysely connection (Database.runBatch sees to it).
 */
export type BatchRunner = (sql: string, parameterLists: readonly (readonly unknown[])[]) => Promise<unknown[][]>;

export interface OpenedDialect {
  readonly dialect: Dialect;
  readonly capabilities: DialectCapabilities;
  /** How this database reports a full disk and an already rolled-back transaction. */
  readonly errors: DialectErrors;
  /**
   * The dialect's own way to run a batch in one step (SQLite: one synchronous transaction, or one
   * message to the worker); without it, Database.runBatch issues the statements one by one.
   */
  readonly runBatch?: BatchRunner;
}
