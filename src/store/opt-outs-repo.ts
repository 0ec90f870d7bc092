// Opt-outs (021): each account's numbers that asked to hear no more, and the account's settings.
import type { Kysely } from 'kysely';
import type { DB, OptOutRow, OptOutSettingsRow } from './schema.js';

export class OptOutsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Adds the number; true when it was not on the list before (the confirmation goes only then). */
  async add(row: OptOutRow): Promise<boolean> {
    const r = await this.db.insertInto('opt_outs').values(row).onConflict((oc) => oc.columns(['account_id', 'phone']).doNothing()).returning('phone').executeTakeFirst();
    return r !== undefined;
  }

  async remove(accountId: string, phone: string): Promise<boolean> {
    const r = await this.db.deleteFrom('opt_outs').where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  async has(accountId: string, phone: string): Promise<boolean> {
    const r = await this.db.selectFrom('opt_outs').select('phone').where('account_id', '=', accountId).where('phone', '=', phone).executeTakeFirst();
    return r !== undefined;
  }

  /** Which of `phones` are on the account's list. */
  async among(accountId: string, phones: readonly string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for (let i = 0; i < phones.length; i += 500) {
      const rows = await this.db.selectFrom('opt_outs').select('phone').where('account_id', '=', accountId).where('phone', 'in', phones.slice(i, i + 500)).execute();
      for (const r of rows) out.add(r.phone);
    }
    return out;
  }

  /** A page of the list by phone, after `afterPhone`. */
  list(accountId: string, limit: number, afterPhone: string | null): Promise<OptOutRow[]> {
    let q = this.db.selectFrom('opt_outs').selectAll().where('account_id', '=', accountId);
    if (afterPhone !== null) q = q.where('phone', '>', afterPhone);
    return q.orderBy('phone').limit(limit).execute();
  }

  settings(accountId: string): Promise<OptOutSettingsRow | undefined> {
    return this.db.selectFrom('opt_out_settings').selectAll().where('account_id', '=', accountId).executeTakeFirst();
  }

  async saveSettings(row: OptOutSettingsRow): Promise<void> {
    await this.db
      .insertInto('opt_out_settings')
      .values(row)
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ keywords: row.keywords, confirmation: row.confirmation, strict: row.strict, updated_at: row.updated_at }))
      .execute();
  }

  /** Every account's own keywords (JSON arrays), for the in-memory first match of received messages. */
  async allKeywordLists(): Promise<string[]> {
    const rows = await this.db.selectFrom('opt_out_settings').select('keywords').where('keywords', 'is not', null).execute();
    return rows.map((r) => r.keywords as string);
  }
}
