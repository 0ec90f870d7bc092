// What one numbered migration is; index.ts lists them in order (kept apart so that the list and
// the migrations it imports do not import each other).
import type { Kysely } from 'kysely';
import type { DialectCapabilities } from '../dialects/types.js';

export interface Migration {
  readonly name: string;
  up(db: Kysely<unknown>, caps: DialectCapabilities): Promise<void>;
}
