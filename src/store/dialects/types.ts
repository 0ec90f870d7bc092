// What differs between the supported databases, read in one place.
import type { Dialect } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

export interface DialectCapabilities {
  readonly name: DialectName;
  /** Column type for an auto-incrementing integer primary key. */
  readonly autoIncrementType: 'integer' | 'bigserial';
  /** Whether a single connection serialises all writes (so batching commits matters most). */
  readonly singleWriter: boolean;
}

export interface OpenedDialect {
  readonly dialect: Dialect;
  readonly capabilities: DialectCapabilities;
  /** Runs once after the Kysely instance is built (pragmas, type parsers). */
  readonly close?: () => Promise<void>;
}
