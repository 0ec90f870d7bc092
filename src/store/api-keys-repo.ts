// API keys (024-api-keys-audit): only their hashes are stored. Revocations and rotations are also
// logged in account_changes (kind 'key') in the same transaction, so every node drops its cache.
import type { Kysely } from 'kysely';
import type { ApiKey, Scope } from '../domain/api-key.js';
import type { ApiKeyRow, DB } from './schema.js';

function list<T>(text: string | null): T[] | null {
  return text === null ? null : (JSON.parse(text) as T[]);
}

/** The one place an api_keys row becomes a domain object. */
export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    prefix: row.prefix,
    scopes: list<Scope>(row.scopes) ?? [],
    instanceIds: list<string>(row.instance_ids),
    cidrs: list<string>(row.cidrs),
    rateLimit: row.rate_limit === null ? null : Number(row.rate_limit),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
    createdAt: Number(row.created_at),
  };
}

export interface NewApiKey {
  id: string;
  accountId: string;
  name: string;
  keyHash: string;
  prefix: string;
  scopes: readonly Scope[];
  instanceIds: readonly string[] | null;
  cidrs: readonly string[] | null;
  rateLimit: number | null;
  expiresAt: number | null;
  createdAt: number;
}

export class ApiKeysRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(k: NewApiKey): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: k.id,
        account_id: k.accountId,
        name: k.name,
        key_hash: k.keyHash,
        prefix: k.prefix,
        scopes: JSON.stringify(k.scopes),
        instance_ids: k.instanceIds === null ? null : JSON.stringify(k.instanceIds),
        cidrs: k.cidrs === null ? null : JSON.stringify(k.cidrs),
        rate_limit: k.rateLimit,
        expires_at: k.expiresAt,
        created_at: k.createdAt,
      })
      .execute();
  }

  async findByHash(keyHash: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    return row && toApiKey(row);
  }

  async find(accountId: string, id: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row && toApiKey(row);
  }

  /** A key by id whatever its account (the CLI names keys by id alone). */
  async findAny(id: string): Promise<ApiKey | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toApiKey(row);
  }

  async list(accountId: string | null): Promise<ApiKey[]> {
    let q = this.db.selectFrom('api_keys').selectAll();
    if (accountId !== null) q = q.where('account_id', '=', accountId);
    return (await q.orderBy('created_at').orderBy('id').execute()).map(toApiKey);
  }

  /** Ends a key at `until` (revocation: now; rotation: the end of the overlap), logged for other nodes. */
  end(key: ApiKey, field: 'revoked_at' | 'expires_at', until: number, at: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('api_keys').set({ [field]: until }).where('id', '=', key.id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx.insertInto('account_changes').values({ account_id: key.accountId, kind: 'key', instance_ids: null, at }).execute();
      return true;
    });
  }
}
