// Bulk loads into the stored copy: the phone's history snapshot at pairing, and plain message
// imports (benchmarks). Multi-row statements in one transaction, never one statement per row.
import { sql, type Kysely } from 'kysely';
import type { HistoryBatch } from './chats-roles.js';
import type { ChatMessageRow, DB } from './schema.js';

/**
 * Imports messages in multi-row statements (bulk loads such as benchmarks or a history import);
 * chats are not touched: record() the newest message of each chat for that. Duplicates are skipped.
 */
export async function importMessages(db: Kysely<DB>, rows: readonly ChatMessageRow[]): Promise<void> {
  // 10 columns a row: 1,000 rows stay under SQLite's 32,766 bound parameters.
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += 1000) {
      await trx
        .insertInto('chat_messages')
        .values(rows.slice(i, i + 1000))
        .onConflict((oc) => oc.columns(['instance_id', 'chat_id', 'message_id']).doNothing())
        .execute();
    }
  });
}

/**
 * History is a snapshot the phone took at pairing: whatever live events (messages, app-state
 * patches) already wrote is newer and wins. A chat's last message and unread state move only to
 * a strictly newer message; names, settings and contacts' fields only fill what is empty. A
 * repeated batch (a chunk sent twice, a restart) changes nothing and reports no message as new.
 */
export async function importHistory(db: Kysely<DB>, batch: HistoryBatch): Promise<string[]> {
  const { instanceId } = batch;
  // PostgreSQL refuses an upsert that touches one row twice: one entry per chat and per contact.
  const chats = [...new Map([...batch.chats].sort((a, b) => (a.last?.at ?? 0) - (b.last?.at ?? 0)).map((c) => [c.chatId, c])).values()];
  const contactsByPhone = new Map<string, HistoryBatch['contacts'][number]['patch']>();
  for (const c of batch.contacts) {
    const merged = { ...contactsByPhone.get(c.phone) };
    for (const [k, v] of Object.entries(c.patch)) if (v !== undefined && v !== null) (merged as Record<string, unknown>)[k] = v;
    contactsByPhone.set(c.phone, merged);
  }
  const contacts = [...contactsByPhone].map(([phone, patch]) => ({ phone, patch }));
  return db.transaction().execute(async (trx) => {
    // An instance deleted meanwhile: its rows went with it (and the foreign keys would refuse).
    if (!(await trx.selectFrom('instances').select('id').where('id', '=', instanceId).executeTakeFirst())) return [];
    const fresh: string[] = [];
    // 10 columns a row: 500 rows stay well under SQLite's 32,766 bound parameters.
    for (let i = 0; i < batch.messages.length; i += 500) {
      const rows = await trx
        .insertInto('chat_messages')
        .values(batch.messages.slice(i, i + 500))
        .onConflict((oc) => oc.columns(['instance_id', 'chat_id', 'message_id']).doNothing())
        .returning('message_id')
        .execute();
      for (const r of rows) fresh.push(r.message_id);
    }
    for (let i = 0; i < chats.length; i += 500) {
      await trx
        .insertInto('chats')
        .values(
          chats.slice(i, i + 500).map((c) => ({
            instance_id: instanceId,
            chat_id: c.chatId,
            jid: c.jid,
            is_group: c.isGroup ? 1 : 0,
            name: c.name,
            last_message_at: c.last?.at ?? 0,
            last_message_id: c.last?.id ?? null,
            last_message_from_me: c.last?.fromMe ? 1 : 0,
            unread: c.unread,
            archived: c.archived ? 1 : 0,
            pinned_at: c.pinnedAt,
            muted_until: c.mutedUntil,
            ephemeral: c.ephemeral,
            updated_at: batch.at,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['instance_id', 'chat_id']).doUpdateSet({
            name: sql`coalesce(chats.name, excluded.name)`,
            last_message_id: sql`case when excluded.last_message_at > chats.last_message_at then excluded.last_message_id else chats.last_message_id end`,
            last_message_from_me: sql`case when excluded.last_message_at > chats.last_message_at then excluded.last_message_from_me else chats.last_message_from_me end`,
            // The phone's count stands for messages up to its newest; a live message after it already counted.
            unread: sql`case when excluded.last_message_at > chats.last_message_at then excluded.unread else chats.unread end`,
            last_message_at: sql`case when excluded.last_message_at > chats.last_message_at then excluded.last_message_at else chats.last_message_at end`,
          }),
        )
        .execute();
    }
    for (let i = 0; i < contacts.length; i += 500) {
      await trx
        .insertInto('contacts')
        .values(
          contacts.slice(i, i + 500).map(({ phone, patch }) => ({
            instance_id: instanceId,
            phone,
            lid: patch.lid ?? null,
            name: patch.name ?? null,
            short: null,
            notify: patch.notify ?? null,
            vname: patch.vname ?? null,
            img_url: null,
            img_fetched_at: null,
            blocked: 0,
            updated_at: batch.at,
          })),
        )
        .onConflict((oc) =>
          oc.columns(['instance_id', 'phone']).doUpdateSet({
            lid: sql`coalesce(contacts.lid, excluded.lid)`,
            name: sql`coalesce(contacts.name, excluded.name)`,
            notify: sql`coalesce(contacts.notify, excluded.notify)`,
            vname: sql`coalesce(contacts.vname, excluded.vname)`,
          }),
        )
        .execute();
    }
    return fresh;
  });
}
