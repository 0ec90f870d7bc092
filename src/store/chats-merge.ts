// One chat per person (docs/design.md "Identities"): WhatsApp may name a person by LID before the
// gateway learns their number, so the copy can hold a chat, messages and a contact under
// `<digits>@lid`. Once the number is known they move under it, merged with what is already there.
// Runs inside the chat-write batch's transaction; a second run for the same person finds nothing
// left under the LID and changes nothing.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { PersonLearned } from './chats-roles.js';
import type { DB } from './schema.js';

type Executor = Kysely<DB> | Transaction<DB>;

export async function applyPersonLearned(trx: Executor, w: PersonLearned): Promise<void> {
  const { instanceId, phone, lid } = w;
  await mergeChat(trx, instanceId, lid, phone);
  await mergeContact(trx, w);
  // Group members who wrote under their LID are senders under their number from now on.
  await trx.updateTable('chat_messages').set({ sender: phone }).where('instance_id', '=', instanceId).where('sender', '=', lid).execute();
}

async function mergeChat(trx: Executor, instanceId: string, from: string, to: string): Promise<void> {
  const old = await trx.selectFrom('chats').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', from).executeTakeFirst();
  // Messages first: a message id already under the number (a replay) keeps that row.
  await trx
    .updateTable('chat_messages')
    .set({ chat_id: to })
    .where('instance_id', '=', instanceId)
    .where('chat_id', '=', from)
    .where('message_id', 'not in', (eb) => eb.selectFrom('chat_messages as kept').select('kept.message_id').where('kept.instance_id', '=', instanceId).where('kept.chat_id', '=', to))
    .execute();
  await trx.deleteFrom('chat_messages').where('instance_id', '=', instanceId).where('chat_id', '=', from).execute();
  await trx.updateTable('label_chats').set({ chat_id: to }).where('instance_id', '=', instanceId).where('chat_id', '=', from)
    .where('label_id', 'not in', (eb) => eb.selectFrom('label_chats as kept').select('kept.label_id').where('kept.instance_id', '=', instanceId).where('kept.chat_id', '=', to))
    .execute();
  await trx.deleteFrom('label_chats').where('instance_id', '=', instanceId).where('chat_id', '=', from).execute();
  if (!old) return;
  const current = await trx.selectFrom('chats').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', to).executeTakeFirst();
  if (!current) {
    await trx.updateTable('chats').set({ chat_id: to }).where('instance_id', '=', instanceId).where('chat_id', '=', from).execute();
    return;
  }
  const newer = old.last_message_at > current.last_message_at ? old : current;
  // Unread: what is unread under both names; "marked unread" (-1) only when nothing is counted.
  const counted = Math.max(old.unread, 0) + Math.max(current.unread, 0);
  const unread = counted > 0 ? counted : old.unread < 0 || current.unread < 0 ? -1 : 0;
  await trx
    .updateTable('chats')
    .set({
      name: current.name ?? old.name,
      last_message_at: newer.last_message_at,
      last_message_id: newer.last_message_id,
      last_message_from_me: newer.last_message_from_me,
      unread,
      pinned_at: Math.max(current.pinned_at, old.pinned_at),
      updated_at: sql<number>`${Math.max(current.updated_at, old.updated_at)}`,
    })
    .where('instance_id', '=', instanceId)
    .where('chat_id', '=', to)
    .execute();
  await trx.deleteFrom('chats').where('instance_id', '=', instanceId).where('chat_id', '=', from).execute();
}

async function mergeContact(trx: Executor, w: PersonLearned): Promise<void> {
  const { instanceId, phone, lid, at } = w;
  const old = await trx.selectFrom('contacts').selectAll().where('instance_id', '=', instanceId).where('phone', '=', lid).executeTakeFirst();
  const current = await trx.selectFrom('contacts').selectAll().where('instance_id', '=', instanceId).where('phone', '=', phone).executeTakeFirst();
  if (old && !current) {
    await trx.updateTable('contacts').set({ phone, lid, updated_at: at }).where('instance_id', '=', instanceId).where('phone', '=', lid).execute();
    return;
  }
  if (!current) {
    await trx
      .insertInto('contacts')
      .values({ instance_id: instanceId, phone, lid, name: null, short: null, notify: null, vname: null, img_url: null, img_fetched_at: null, blocked: 0, updated_at: at })
      .execute();
    return;
  }
  await trx
    .updateTable('contacts')
    .set({
      lid,
      name: current.name ?? old?.name ?? null,
      short: current.short ?? old?.short ?? null,
      notify: current.notify ?? old?.notify ?? null,
      vname: current.vname ?? old?.vname ?? null,
      updated_at: at,
    })
    .where('instance_id', '=', instanceId)
    .where('phone', '=', phone)
    .execute();
  if (old) await trx.deleteFrom('contacts').where('instance_id', '=', instanceId).where('phone', '=', lid).execute();
}
