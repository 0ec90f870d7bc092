// Accounts: who owns instances. Only token hashes are stored.
import { sql, type Kysely } from 'kysely';
import type { Account } from '../domain/account.js';
import type { AccountChangeKind, AccountRow, DB } from './schema.js';

/** The one place an account row becomes a domain object. */
export function toAccount(row: AccountRow): Account {
  return { id: row.id, name: row.name, tokenHash: row.token_hash, createdAt: Number(row.created_at) };
}

/** A rotation or deletion recorded for running servers (008-quotas). */
interface AccountChange {
  seq: number;
  accountId: string;
  kind: AccountChangeKind;
  /** delete: the account's instances, whose rows went with it. */
  instanceIds: string[];
}

/** Any 64-bit number of our own: the lock under which the first account is created (PostgreSQL). */
const FIRST_ACCOUNT_LOCK_KEY = '7301118407553021';

export class AccountsRepo {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly dialect: 'sqlite' | 'postgres' = 'sqlite',
  ) {}

  async create(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
  }

  /**
   * Creates `row` only if there is no account yet; true when it did. The nodes of a cluster started
   * together on an empty database (compose.yaml's cluster profile) create one first account between
   * them, not one each: on PostgreSQL they take turns under a transaction lock, and SQLite has one
   * writer and one gateway.
   */
  async createFirst(row: AccountRow): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK_KEY}::bigint)`.execute(trx);
      const existing = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
      if (existing) return false;
      await trx.insertInto('accounts').values(row).execute();
      return true;
    });
  }

  findByTokenHash(tokenHash: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
  }

  findById(id: string): Promise<AccountRow | undefined> {
    return this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<AccountRow[]> {
    return this.db.selectFrom('accounts').selectAll().orderBy('created_at').execute();
  }

  /** The account as a domain object. */
  async find(id: string): Promise<Account | undefined> {
    const row = await this.findById(id);
    return row && toAccount(row);
  }

  async findByToken(tokenHash: string): Promise<Account | undefined> {
    const row = await this.findByTokenHash(tokenHash);
    return row && toAccount(row);
  }

  async all(): Promise<Account[]> {
    return (await this.list()).map(toAccount);
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('accounts').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async setTokenHash(id: string, tokenHash: string): Promise<boolean> {
    const r = await this.db.updateTable('accounts').set({ token_hash: tokenHash }).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('accounts').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Changes other processes must see at once: rotations and deletions are recorded as they happen. */
  /** Replaces the token hash and records the change, in one transaction; false for an unknown id. */
  rotateToken(id: string, tokenHash: string, at: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const r = await trx.updateTable('accounts').set({ token_hash: tokenHash }).where('id', '=', id).executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) return false;
      await trx.insertInto('account_changes').values({ account_id: id, kind: 'rotate', instance_ids: null, at }).execute();
      return true;
    });
  }

  /** Deletes the account (its instances and everything theirs with it) and records which instances went. */
  deleteRecorded(id: string, at: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const instances = await trx.selectFrom('instances').select('id').where('account_id', '=', id).execute();
      const r = await trx.deleteFrom('accounts').where('id', '=', id).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await trx
        .insertInto('account_changes')
        .values({ account_id: id, kind: 'delete', instance_ids: JSON.stringify(instances.map((i) => i.id)), at })
        .execute();
      return true;
    });
  }

  /** The newest change's seq (0 when none). */
  async lastChange(): Promise<number> {
    const r = await this.db.selectFrom('account_changes').select((eb) => eb.fn.max('seq').as('seq')).executeTakeFirst();
    return Number(r?.seq ?? 0);
  }

  /** Changes with seq above `after`, oldest first (a few rows at most: they are made by hand). */
  async changesAfter(after: number, limit = 100): Promise<AccountChange[]> {
    const rows = await this.db
      .selectFrom('account_changes')
      .select(['seq', 'account_id', 'kind', 'instance_ids'])
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map((r) => ({
      seq: Number(r.seq),
      accountId: r.account_id,
      kind: r.kind,
      instanceIds: r.instance_ids ? (JSON.parse(r.instance_ids) as string[]) : [],
    }));
  }
}
