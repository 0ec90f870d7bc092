// Applies the engine's chat writes (a message, a chat or contact patch, a status, an edit or revoke,
// a read mark) inside the write batch's transaction: one function per kind of write.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { ChatWrite } from './chats-roles.js';
import type { DB } from './schema.js';
import { applyPersonLearned } from './chats-merge.js';

/** The instance a write belongs to (writes for an instance deleted meanwhile are dropped). */
export function instanceOf(w: ChatWrite): string {
  return w.kind === 'message' ? w.message.instance_id : w.instanceId;
}

export type Executor = Kysely<DB> | Transaction<DB>;

/** Applies one write. */
export async function apply(trx: Executor, w: ChatWrite): Promise<void> {
  switch (w.kind) {
    case 'message':
      return applyMessage(trx, w);
    case 'chat':
      return applyChat(trx, w);
    case 'contact':
      return applyContact(trx, w);
    case 'status':
      if (w.ids.length === 0) return;
      await trx.updateTable('chat_messages').set({ status: w.status }).where('instance_id', '=', w.instanceId).where('message_id', 'in', [...w.ids]).execute();
      return;
    case 'edit':
    case 'revoke':
      await trx
        .updateTable('chat_messages')
        .set(w.kind === 'edit' ? { body: w.body } : { type: 'revoked', body: null, media_id: null })
        .where('instance_id', '=', w.instanceId)
        .where('chat_id', '=', w.chatId)
        .where('message_id', '=', w.messageId)
        .execute();
      return;
    case 'read':
      return applyRead(trx, w);
    case 'person':
      return applyPersonLearned(trx, w);
  }
}

/**
 * The phone read up to the newest of `ids`: unread becomes the received messages after it (0 when
 * it was the newest). Ids the copy does not hold (older than retention) change nothing.
 */
async function applyRead(trx: Executor, w: Extract<ChatWrite, { kind: 'read' }>): Promise<void> {
  if (w.ids.length === 0) return;
  const read = await trx
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.max('at').as('at'))
    .where('instance_id', '=', w.instanceId)
    .where('chat_id', '=', w.chatId)
    .where('message_id', 'in', [...w.ids])
    .executeTakeFirst();
  if (read?.at === null || read?.at === undefined) return;
  const after = await trx
    .selectFrom('chat_messages')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('instance_id', '=', w.instanceId)
    .where('chat_id', '=', w.chatId)
    .where('from_me', '=', 0)
    .where('at', '>', Number(read.at))
    .executeTakeFirst();
  await trx.updateTable('chats').set({ unread: Number(after?.n ?? 0) }).where('instance_id', '=', w.instanceId).where('chat_id', '=', w.chatId).execute();
}

/** A message once: a replay (same id) changes nothing, so unread counts are never doubled. */
async function applyMessage(trx: Executor, w: Extract<ChatWrite, { kind: 'message' }>): Promise<void> {
  const m = w.message;
  const inserted = await trx
    .insertInto('chat_messages')
    .values(m)
    .onConflict((oc) => oc.columns(['instance_id', 'chat_id', 'message_id']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return;
  const unread = w.countsUnread ? 1 : 0;
  await trx
    .insertInto('chats')
    .values({
      instance_id: m.instance_id,
      chat_id: m.chat_id,
      jid: w.chat.jid,
      is_group: w.chat.isGroup ? 1 : 0,
      name: w.chat.name,
      last_message_at: m.at,
      last_message_id: m.message_id,
      last_message_from_me: m.from_me,
      unread,
      archived: 0,
      pinned_at: 0,
      muted_until: null,
      ephemeral: null,
      updated_at: m.at,
    })
    .onConflict((oc) =>
      oc.columns(['instance_id', 'chat_id']).doUpdateSet({
        name: sql`coalesce(excluded.name, chats.name)`,
        // An older message arriving late (a catch-up) does not become the last one.
        last_message_id: sql`case when excluded.last_message_at >= chats.last_message_at then excluded.last_message_id else chats.last_message_id end`,
        last_message_from_me: sql`case when excluded.last_message_at >= chats.last_message_at then excluded.last_message_from_me else chats.last_message_from_me end`,
        last_message_at: sql`case when excluded.last_message_at >= chats.last_message_at then excluded.last_message_at else chats.last_message_at end`,
        // Writing in a chat reads it (as on the phone); a chat marked unread counts from 1 again.
        unread: sql`case when excluded.last_message_from_me = 1 then 0 when chats.unread < 0 then excluded.unread else chats.unread + excluded.unread end`,
        updated_at: sql`excluded.updated_at`,
      }),
    )
    .execute();
}

export async function applyChat(trx: Executor, w: Extract<ChatWrite, { kind: 'chat' }>): Promise<void> {
  const p = w.patch;
  const set: Record<string, unknown> = { updated_at: w.at };
  if (p.name !== undefined) set.name = p.name;
  if (p.unread !== undefined) set.unread = p.unread;
  if (p.archived !== undefined) set.archived = p.archived ? 1 : 0;
  if (p.pinnedAt !== undefined) set.pinned_at = p.pinnedAt;
  if (p.mutedUntil !== undefined) set.muted_until = p.mutedUntil;
  if (p.ephemeral !== undefined) set.ephemeral = p.ephemeral;
  await trx
    .insertInto('chats')
    .values({
      instance_id: w.instanceId,
      chat_id: w.chatId,
      jid: w.jid,
      is_group: w.isGroup ? 1 : 0,
      name: p.name ?? null,
      last_message_at: 0,
      last_message_id: null,
      last_message_from_me: 0,
      unread: p.unread ?? 0,
      archived: p.archived ? 1 : 0,
      pinned_at: p.pinnedAt ?? 0,
      muted_until: p.mutedUntil ?? null,
      ephemeral: p.ephemeral ?? null,
      updated_at: w.at,
    })
    .onConflict((oc) => oc.columns(['instance_id', 'chat_id']).doUpdateSet(set))
    .execute();
}

export async function applyContact(trx: Executor, w: Extract<ChatWrite, { kind: 'contact' }>): Promise<void> {
  const p = w.patch;
  const set: Record<string, unknown> = { updated_at: w.at };
  if (p.name !== undefined) set.name = p.name;
  if (p.short !== undefined) set.short = p.short;
  if (p.notify !== undefined) set.notify = p.notify;
  if (p.vname !== undefined) set.vname = p.vname;
  if (p.lid !== undefined) set.lid = p.lid;
  if (p.imgUrl !== undefined) set.img_url = p.imgUrl;
  if (p.imgFetchedAt !== undefined) set.img_fetched_at = p.imgFetchedAt;
  if (p.blocked !== undefined) set.blocked = p.blocked ? 1 : 0;
  await trx
    .insertInto('contacts')
    .values({
      instance_id: w.instanceId,
      phone: w.phone,
      lid: p.lid ?? null,
      name: p.name ?? null,
      short: p.short ?? null,
      notify: p.notify ?? null,
      vname: p.vname ?? null,
      img_url: p.imgUrl ?? null,
      img_fetched_at: p.imgFetchedAt ?? null,
      blocked: p.blocked ? 1 : 0,
      updated_at: w.at,
    })
    .onConflict((oc) => oc.columns(['instance_id', 'phone']).doUpdateSet(set))
    .execute();
}
