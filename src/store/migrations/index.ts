// Numbered migrations, applied in order. Each file says what it changes and why.
import type { Kysely } from 'kysely';
import type { DialectCapabilities } from '../dialects/types.js';
import { migration001Core } from './001-core.js';
import { migration002Engine } from './002-engine.js';
import { migration003Webhooks } from './003-webhooks.js';
import { migration004Sender } from './004-sender.js';

export interface Migration {
  readonly name: string;
  up(db: Kysely<unknown>, caps: DialectCapabilities): Promise<void>;
}

/** Append new migrations at the end; never reorder or edit a released one. */
export const migrations: readonly Migration[] = [migration001Core, migration002Engine, migration003Webhooks, migration004Sender];
