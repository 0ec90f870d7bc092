// What the anti-ban strategy remembers: the numbers each instance has talked to (to tell a first
// message to a stranger from a conversation), when those first messages went out (the caps count
// them), and the pause taken after the network signalled a restriction.
import type { Kysely } from 'kysely';
import { WriteBatcher } from './write-batcher.js';
import type { AntibanStateRow, DB } from './schema.js';

interface OutboundContact {
  instanceId: string;
  phone: string;
  at: number;
}

export interface AntibanPause {
  pausedUntil: number | null;
  reason: string | null;
  restrictions: number;
  lastRestrictionAt: number | null;
}

export class AntibanRepo {
  /** Sends are recorded once per number, batched per tick like the queue's writes (one fsync). */
  private readonly outbound = new WriteBatcher<OutboundContact, void>((items) => this.recordOutboundBatch(items));

  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Records that these numbers wrote to the instance (called by the engine for incoming messages):
   * from then on a message to them is a reply, not a first contact. Only the first time is kept.
   */
  async recordInbound(instanceId: string, phones: readonly string[], at: number): Promise<void> {
    if (phones.length === 0) return;
    const unique = [...new Set(phones)];
    await this.db
      .insertInto('instance_contacts')
      .values(unique.map((phone) => ({ instance_id: instanceId, phone, inbound_at: at, outbound_at: null, cold_at: null })))
      .onConflict((oc) =>
        oc.columns(['instance_id', 'phone']).doUpdateSet((eb) => ({
          inbound_at: eb.fn.coalesce('instance_contacts.inbound_at', 'excluded.inbound_at'),
        })),
      )
      .execute();
  }

  /**
   * Records the instance's first message to a number (later calls keep the first one). A number
   * with no row yet is a stranger, so the insert marks the send cold; an existing row keeps its
   * cold_at (null when the number had written first).
   */
  recordOutbound(contact: OutboundContact): Promise<void> {
    return this.outbound.submit(contact);
  }

  private async recordOutboundBatch(items: readonly OutboundContact[]): Promise<void[]> {
    await this.db.transaction().execute(async (trx) => {
      for (const c of items) {
        await trx
          .insertInto('instance_contacts')
          .values({ instance_id: c.instanceId, phone: c.phone, inbound_at: null, outbound_at: c.at, cold_at: c.at })
          .onConflict((oc) =>
            oc.columns(['instance_id', 'phone']).doUpdateSet((eb) => ({
              outbound_at: eb.fn.coalesce('instance_contacts.outbound_at', 'excluded.outbound_at'),
            })),
          )
          .execute();
      }
    });
    return items.map(() => undefined);
  }

  /** The numbers the instance talked with (either way), newest acquaintances first, at most `limit`. */
  async contactsOf(instanceId: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('instance_contacts')
      .select('phone')
      .where('instance_id', '=', instanceId)
      .where((eb) => eb.or([eb('inbound_at', 'is not', null), eb('outbound_at', 'is not', null)]))
      .orderBy((eb) => eb.fn.coalesce('inbound_at', 'outbound_at'), 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => r.phone);
  }

  /** True when the number never wrote to the instance and was never written to by it. */
  async isStranger(instanceId: string, phone: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('instance_contacts')
      .select(['inbound_at', 'outbound_at'])
      .where('instance_id', '=', instanceId)
      .where('phone', '=', phone)
      .executeTakeFirst();
    return !row || (row.inbound_at === null && row.outbound_at === null);
  }

  /** When the instance's cold first messages since `since` went out, oldest first. */
  async coldSendsSince(instanceId: string, since: number): Promise<number[]> {
    const rows = await this.db
      .selectFrom('instance_contacts')
      .select('cold_at')
      .where('instance_id', '=', instanceId)
      .where('cold_at', '>=', since)
      .orderBy('cold_at')
      .execute();
    return rows.map((r) => Number(r.cold_at));
  }

  async pause(instanceId: string): Promise<AntibanPause | undefined> {
    const row = await this.db.selectFrom('antiban_state').selectAll().where('instance_id', '=', instanceId).executeTakeFirst();
    return row ? toPause(row) : undefined;
  }

  async savePause(instanceId: string, pause: AntibanPause, at: number): Promise<void> {
    const values = {
      paused_until: pause.pausedUntil,
      pause_reason: pause.reason,
      restrictions: pause.restrictions,
      last_restriction_at: pause.lastRestrictionAt,
      updated_at: at,
    };
    await this.db
      .insertInto('antiban_state')
      .values({ instance_id: instanceId, ...values })
      .onConflict((oc) => oc.column('instance_id').doUpdateSet(values))
      .execute();
  }

  drain(): Promise<void> {
    return this.outbound.drain();
  }
}

function toPause(row: AntibanStateRow): AntibanPause {
  return {
    pausedUntil: row.paused_until === null ? null : Number(row.paused_until),
    reason: row.pause_reason,
    restrictions: Number(row.restrictions),
    lastRestrictionAt: row.last_restriction_at === null ? null : Number(row.last_restriction_at),
  };
}
