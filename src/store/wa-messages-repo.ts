// Recent messages the engine may need again (quoting, retries, poll decryption, deletion keys),
// written in same-tick batches because incoming traffic arrives from many instances at once.
import type { Kysely, Transaction } from 'kysely';
import type { DB, WaMessageRow } from './schema.js';
import { WriteBatcher } from './write-batcher.js';

/** Stores (or replaces) one remembered message inside the caller's transaction. */
export async function putWaMessage(trx: Transaction<DB>, row: WaMessageRow): Promise<void> {
  await trx
    .insertInto('wa_messages')
    .values(row)
    .onConflict((oc) => oc.columns(['instance_id', 'message_id']).doUpdateSet({ message: row.message, meta: row.meta, remote_jid: row.remote_jid }))
    .execute();
}

export class WaMessagesRepo {
  private readonly batcher: WriteBatcher<WaMessageRow, void>;

  constructor(private readonly db: Kysely<DB>) {
    this.batcher = new WriteBatcher<WaMessageRow, void>(async (rows) => {
      await this.db.transaction().execute(async (trx) => {
        const ids = [...new Set(rows.map((r) => r.instance_id))];
        const alive = new Set((await trx.selectFrom('instances').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
        for (const row of rows) {
          if (alive.has(row.instance_id)) await putWaMessage(trx, row);
        }
      });
      return rows.map((): void => undefined);
    }, 200);
  }

  /** Stores (or replaces) one message; resolves after the commit. */
  put(row: WaMessageRow): Promise<void> {
    return this.batcher.submit(row);
  }

  find(instanceId: string, messageId: string): Promise<WaMessageRow | undefined> {
    return this.db
      .selectFrom('wa_messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('message_id', '=', messageId)
      .executeTakeFirst();
  }

  /** The newest message with engine metadata (an interactive list) in one chat. */
  latestWithMeta(instanceId: string, remoteJid: string): Promise<WaMessageRow | undefined> {
    return this.db
      .selectFrom('wa_messages')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .where('remote_jid', '=', remoteJid)
      .where('meta', 'is not', null)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  async pruneOlderThan(before: number): Promise<number> {
    const r = await this.db.deleteFrom('wa_messages').where('created_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteForInstance(instanceId: string): Promise<void> {
    await this.db.deleteFrom('wa_messages').where('instance_id', '=', instanceId).execute();
  }

  drain(): Promise<void> {
    return this.batcher.drain();
  }
}
