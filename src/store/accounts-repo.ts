// Accounts: who owns instances. Only token hashes are stored.
import type { Kysely } from 'kysely';
import type { AccountRow, DB } from './schema.js';

export class AccountsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(row: AccountRow): Promise<void> {
    await this.db.insertInto('accounts').values(row).execute();
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
}
