// A business account's labels and the chats they are on (014): written from the app-state sync and
// from zapgate's own changes, read by GET /tags. Writes answer whether they changed anything, so a
// replayed sync never reports an association twice.
import type { Kysely } from 'kysely';
import type { DB, LabelRow } from './schema.js';

export interface LabelValue {
  id: string;
  name: string;
  color: number;
  predefinedId: string | null;
}

interface LabelView {
  id: string;
  name: string;
  color: number;
  predefinedId: string | null;
}

function view(row: LabelRow): LabelView {
  return { id: row.label_id, name: row.name, color: Number(row.color), predefinedId: row.predefined_id };
}

/** WhatsApp's ids are small numbers as strings: "2" before "10". */
function byId(a: { id: string }, b: { id: string }): number {
  return a.id.length - b.id.length || a.id.localeCompare(b.id);
}

export class LabelsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Creates or replaces the label. */
  async upsert(instanceId: string, label: LabelValue, at: number): Promise<void> {
    await this.db
      .insertInto('labels')
      .values({ instance_id: instanceId, label_id: label.id, name: label.name, color: label.color, predefined_id: label.predefinedId, updated_at: at })
      .onConflict((oc) => oc.columns(['instance_id', 'label_id']).doUpdateSet({ name: label.name, color: label.color, predefined_id: label.predefinedId, updated_at: at }))
      .execute();
  }

  /** Removes the label and every association of it; false when there was no such label. */
  async remove(instanceId: string, labelId: string): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('label_chats').where('instance_id', '=', instanceId).where('label_id', '=', labelId).execute();
      const r = await trx.deleteFrom('labels').where('instance_id', '=', instanceId).where('label_id', '=', labelId).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    });
  }

  async find(instanceId: string, labelId: string): Promise<LabelView | undefined> {
    const row = await this.db.selectFrom('labels').selectAll().where('instance_id', '=', instanceId).where('label_id', '=', labelId).executeTakeFirst();
    return row ? view(row) : undefined;
  }

  /** Every label of the instance, by id ("1", "2", … "10"). */
  async list(instanceId: string): Promise<LabelView[]> {
    const rows = await this.db.selectFrom('labels').selectAll().where('instance_id', '=', instanceId).execute();
    return rows.map(view).sort(byId);
  }

  /** The id a new label gets: one past the highest numeric id the account has. */
  async nextId(instanceId: string): Promise<string> {
    const rows = await this.db.selectFrom('labels').select('label_id').where('instance_id', '=', instanceId).execute();
    const max = rows.reduce((m, r) => (/^\d{1,15}$/.test(r.label_id) ? Math.max(m, Number(r.label_id)) : m), 0);
    return String(max + 1);
  }

  /**
   * Puts the label on the chat (`labeled`) or takes it off; true when that changed the stored state.
   * An association of a label not (yet) known is kept: the sync may bring the label after it.
   */
  async associate(instanceId: string, labelId: string, chat: { chatId: string; jid: string }, labeled: boolean, at: number): Promise<boolean> {
    if (labeled) {
      const r = await this.db
        .insertInto('label_chats')
        .values({ instance_id: instanceId, label_id: labelId, chat_id: chat.chatId, jid: chat.jid, updated_at: at })
        .onConflict((oc) => oc.columns(['instance_id', 'label_id', 'chat_id']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
    }
    const r = await this.db.deleteFrom('label_chats').where('instance_id', '=', instanceId).where('label_id', '=', labelId).where('chat_id', '=', chat.chatId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The labels on a chat, by id. */
  async labelsOf(instanceId: string, chatId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('label_chats').select('label_id').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute();
    return rows.map((r) => r.label_id).sort((a, b) => byId({ id: a }, { id: b }));
  }

  /** The chats a label is on, sorted. */
  async chatsOf(instanceId: string, labelId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('label_chats').select('chat_id').where('instance_id', '=', instanceId).where('label_id', '=', labelId).orderBy('chat_id').execute();
    return rows.map((r) => r.chat_id);
  }
}
