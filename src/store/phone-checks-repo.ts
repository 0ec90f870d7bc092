// The phone-existence cache: what the network answered about a number, and when.
import type { Kysely } from 'kysely';
import type { DB, PhoneCheckRow } from './schema.js';

const PHONES_PER_QUERY = 500;

export class PhoneChecksRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Answers checked at or after `freshSince`, by phone. */
  async findFresh(phones: readonly string[], freshSince: number): Promise<Map<string, PhoneCheckRow>> {
    const out = new Map<string, PhoneCheckRow>();
    for (let i = 0; i < phones.length; i += PHONES_PER_QUERY) {
      const rows = await this.db
        .selectFrom('phone_checks')
        .selectAll()
        .where('phone', 'in', phones.slice(i, i + PHONES_PER_QUERY))
        .where('checked_at', '>=', freshSince)
        .execute();
      for (const r of rows) out.set(r.phone, r);
    }
    return out;
  }

  async put(rows: readonly PhoneCheckRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += PHONES_PER_QUERY / 2) {
        await trx
          .insertInto('phone_checks')
          .values(rows.slice(i, i + PHONES_PER_QUERY / 2))
          .onConflict((oc) =>
            oc.column('phone').doUpdateSet((eb) => ({
              exists: eb.ref('excluded.exists'),
              output_phone: eb.ref('excluded.output_phone'),
              lid: eb.ref('excluded.lid'),
              checked_at: eb.ref('excluded.checked_at'),
            })),
          )
          .execute();
      }
    });
  }
}
