// 024: API keys and the audit trail (docs/api-keys.md).
// - api_keys: an account's narrower keys. Only the key's SHA-256 is stored (like Client-Tokens);
//   scopes, instance ids and CIDR ranges are JSON arrays (NULL: no limit). A rotation sets the old
//   key's expires_at to the end of the overlap; a revocation sets revoked_at. Both are also logged
//   in account_changes (kind 'key'), so every node drops its cached keys within a poll.
// - audit_log: one row per change an actor made, hash-chained (hash = SHA-256 of the previous
//   row's hash and this row's fields), so an edited or deleted row breaks the chain.
// - audit_head: one row: the last seq and hash (so removing the newest rows is seen too), and the
//   anchor left by retention (the hash of the last pruned row), serializing appends across nodes.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration024ApiKeysAudit: Migration = {
  name: '024-api-keys-audit',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      // The first characters of the key (zk_xxxx), to tell keys apart in listings.
      .addColumn('prefix', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('instance_ids', 'text')
      .addColumn('cidrs', 'text')
      .addColumn('rate_limit', 'integer')
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_used_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

    const big = (c: ColumnDefinitionBuilder) => c.notNull();
    await db.schema
      .createTable('audit_log')
      .addColumn('seq', 'bigint', (c) => c.primaryKey())
      .addColumn('at', 'bigint', big)
      .addColumn('account_id', 'text')
      // 'client-token', 'key:<id>' or 'cli'
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('address', 'text')
      .addColumn('request_id', 'text')
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('target', 'text')
      .addColumn('before', 'text')
      .addColumn('after', 'text')
      .addColumn('prev_hash', 'text', (c) => c.notNull())
      .addColumn('hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_account').on('audit_log').columns(['account_id', 'seq']).execute();
    await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
    await db.schema
      .createTable('audit_head')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', big)
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('anchor_seq', 'bigint', big)
      .addColumn('anchor_hash', 'text', (c) => c.notNull())
      .execute();
    await (db as Kysely<{ audit_head: { id: number; seq: number; hash: string; anchor_seq: number; anchor_hash: string } }>)
      .insertInto('audit_head')
      .values({ id: 1, seq: 0, hash: GENESIS, anchor_seq: 0, anchor_hash: GENESIS })
      .execute();
  },
};

/** The previous hash of the first entry. */
export const GENESIS = '0'.repeat(64);
