// The stored copy of the account: chats, contacts and recent messages, fed by the engine in
// same-tick batches (a commit per batch, never one per message, and never on the receive path's
// commit) and read by GET /chats and GET /contacts. Small role interfaces, one SQL text per query
// for SQLite and PostgreSQL.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { ChatMessageRow, ChatRow, ContactRow, DB } from './schema.js';
import { WriteBatcher } from './write-batcher.js';

/** The chat a message belongs to, as far as the message tells. */
export interface ChatSeen {
  jid: string;
  isGroup: boolean;
  /** Group subject, or the contact's push name in a 1:1 chat; null when the message does not tell. */
  name: string | null;
}

/** Chat settings as the phone or the API changed them; absent fields stay as they are. */
export interface ChatPatch {
  name?: string | null;
  unread?: number;
  archived?: boolean;
  /** ms when pinned; 0 unpins. */
  pinnedAt?: number;
  /** ms until muted; -1 for ever; null unmutes. */
  mutedUntil?: number | null;
  ephemeral?: number | null;
}

/** What is known of a contact; absent fields stay as they are. */
export interface ContactPatch {
  name?: string | null;
  short?: string | null;
  notify?: string | null;
  vname?: string | null;
  lid?: string | null;
  imgUrl?: string | null;
  imgFetchedAt?: number | null;
  blocked?: boolean;
}

export type ChatWrite =
  | { kind: 'message'; message: ChatMessageRow; chat: ChatSeen; countsUnread: boolean }
  | { kind: 'chat'; instanceId: string; chatId: string; jid: string; isGroup: boolean; patch: ChatPatch; at: number }
  | { kind: 'contact'; instanceId: string; phone: string; patch: ContactPatch; at: number }
  | { kind: 'status'; instanceId: string; ids: readonly string[]; status: string }
  /** A message's new text (an edit made by its sender). */
  | { kind: 'edit'; instanceId: string; chatId: string; messageId: string; body: string | null }
  /** A message deleted for everyone: its content goes, a `revoked` row stays in its place. */
  | { kind: 'revoke'; instanceId: string; chatId: string; messageId: string }
  /** The account's own phone read these received messages: the chat's unread count follows. */
  | { kind: 'read'; instanceId: string; chatId: string; ids: readonly string[] };

/** Feeds the copy from the engine: writes gather per tick and commit together. */
export interface ChatActivitySink {
  /** Resolves after the batch holding this write committed; callers on hot paths do not wait. */
  record(write: ChatWrite): Promise<void>;
  drain(): Promise<void>;
}

export interface ChatReader {
  /** Newest conversation first; `offset` rows skipped. */
  listChats(instanceId: string, offset: number, limit: number): Promise<ChatRow[]>;
  findChat(instanceId: string, chatId: string): Promise<ChatRow | undefined>;
  /** The newest stored message of a chat. */
  lastMessage(instanceId: string, chatId: string): Promise<ChatMessageRow | undefined>;
  /** A chat's messages, newest first; with `beforeId`, those older than that message (none when it is unknown). */
  listMessages(instanceId: string, chatId: string, limit: number, beforeId?: string): Promise<ChatMessageRow[]>;
}

export interface ContactReader {
  /** By phone (LID-only contacts after the numbers). */
  listContacts(instanceId: string, offset: number, limit: number): Promise<ContactRow[]>;
  findContact(instanceId: string, phone: string): Promise<ContactRow | undefined>;
}

/** What the API does to the copy after the network accepted a change. */
export interface ChatEditor {
  patchChat(instanceId: string, chatId: string, jid: string, patch: ChatPatch, at: number): Promise<void>;
  putContact(instanceId: string, phone: string, patch: ContactPatch, at: number): Promise<void>;
  /** Drops the chat's messages (the chat stays). */
  clearChat(instanceId: string, chatId: string): Promise<void>;
  /** Drops the chat and its messages. */
  deleteChat(instanceId: string, chatId: string): Promise<void>;
}

/** A chat as the phone's history sync describes it, with the newest imported message. */
export interface HistoryChat {
  chatId: string;
  jid: string;
  isGroup: boolean;
  name: string | null;
  /** The newest imported message of the chat (in this batch); null when none is in the window. */
  last: { id: string; at: number; fromMe: boolean } | null;
  /** As the phone had it: unread count, -1 marked unread. */
  unread: number;
  archived: boolean;
  pinnedAt: number;
  mutedUntil: number | null;
  ephemeral: number | null;
}

/** One slice of a history sync: chats, contacts and messages, written in one transaction. */
export interface HistoryBatch {
  instanceId: string;
  chats: readonly HistoryChat[];
  contacts: readonly { phone: string; patch: Pick<ContactPatch, 'name' | 'notify' | 'lid' | 'vname'> }[];
  messages: readonly ChatMessageRow[];
  at: number;
}

/** Imports the phone's history (history sync at pairing) without overriding what live events wrote. */
export interface HistoryImport {
  /** Returns the ids of the messages that were not stored before (for reporting them once). */
  importHistory(batch: HistoryBatch): Promise<string[]>;
}

interface ChatRetention {
  /** Deletes messages older than `before` (ms), at most `batch` per statement; returns how many. */
  pruneOlderThan(before: number, batch?: number): Promise<number>;
  /** Keeps the newest `max` messages of each chat; returns how many were deleted. */
  prunePerChat(max: number): Promise<number>;
}

/** Longest stored name (names come from other people's phones). */
export const NAME_MAX_CHARS = 256;

export class ChatsRepo implements ChatActivitySink, ChatReader, ContactReader, ChatEditor, ChatRetention, HistoryImport {
  private readonly batcher: WriteBatcher<ChatWrite, void>;

  constructor(private readonly db: Kysely<DB>) {
    this.batcher = new WriteBatcher<ChatWrite, void>(async (writes) => {
      await this.db.transaction().execute(async (trx) => {
        const ids = [...new Set(writes.map(instanceOf))];
        // Writes for an instance deleted meanwhile are dropped (its rows went with it).
        const alive = new Set((await trx.selectFrom('instances').select('id').where('id', 'in', ids).execute()).map((r) => r.id));
        for (const w of writes) if (alive.has(instanceOf(w))) await apply(trx, w);
      });
      return writes.map((): void => undefined);
    }, 500);
  }

  record(write: ChatWrite): Promise<void> {
    return this.batcher.submit(write);
  }

  drain(): Promise<void> {
    return this.batcher.drain();
  }

  listChats(instanceId: string, offset: number, limit: number): Promise<ChatRow[]> {
    return this.db
      .selectFrom('chats')
      .selectAll()
      .where('instance_id', '=', instanceId)
      .orderBy('last_message_at', 'desc')
      .orderBy('chat_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findChat(instanceId: string, chatId: string): Promise<ChatRow | undefined> {
    return this.db.selectFrom('chats').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId).executeTakeFirst();
  }

  async lastMessage(instanceId: string, chatId: string): Promise<ChatMessageRow | undefined> {
    return (await this.listMessages(instanceId, chatId, 1))[0];
  }

  async listMessages(instanceId: string, chatId: string, limit: number, beforeId?: string): Promise<ChatMessageRow[]> {
    let q = this.db.selectFrom('chat_messages').selectAll().where('instance_id', '=', instanceId).where('chat_id', '=', chatId);
    if (beforeId !== undefined) {
      const cursor = await q.where('message_id', '=', beforeId).executeTakeFirst();
      if (!cursor) return [];
      // Same-millisecond messages are ordered by id, so paging neither skips nor repeats one.
      q = q.where((eb) => eb.or([eb('at', '<', cursor.at), eb.and([eb('at', '=', cursor.at), eb('message_id', '<', cursor.message_id)])]));
    }
    return q.orderBy('at', 'desc').orderBy('message_id', 'desc').limit(limit).execute();
  }

  listContacts(instanceId: string, offset: number, limit: number): Promise<ContactRow[]> {
    return this.db.selectFrom('contacts').selectAll().where('instance_id', '=', instanceId).orderBy('phone').limit(limit).offset(offset).execute();
  }

  findContact(instanceId: string, phone: string): Promise<ContactRow | undefined> {
    return this.db.selectFrom('contacts').selectAll().where('instance_id', '=', instanceId).where('phone', '=', phone).executeTakeFirst();
  }

  async patchChat(instanceId: string, chatId: string, jid: string, patch: ChatPatch, at: number): Promise<void> {
    await applyChat(this.db, { kind: 'chat', instanceId, chatId, jid, isGroup: chatId.endsWith('-group'), patch, at });
  }

  async putContact(instanceId: string, phone: string, patch: ContactPatch, at: number): Promise<void> {
    await applyContact(this.db, { kind: 'contact', instanceId, phone, patch, at });
  }

  /**
   * Imports messages in multi-row statements (bulk loads such as benchmarks or a history import);
   * chats are not touched: record() the newest message of each chat for that. Duplicates are skipped.
   */
  async importMessages(rows: readonly ChatMessageRow[]): Promise<void> {
    // 10 columns a row: 1,000 rows stay under SQLite's 32,766 bound parameters.
    await this.db.transaction().execute(async (trx) => {
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
  async importHistory(batch: HistoryBatch): Promise<string[]> {
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
    return this.db.transaction().execute(async (trx) => {
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

  async clearChat(instanceId: string, chatId: string): Promise<void> {
    await this.db.deleteFrom('chat_messages').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute();
  }

  async deleteChat(instanceId: string, chatId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('chat_messages').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute();
      await trx.deleteFrom('chats').where('instance_id', '=', instanceId).where('chat_id', '=', chatId).execute();
    });
  }

  async pruneOlderThan(before: number, batch = 5_000): Promise<number> {
    let total = 0;
    for (;;) {
      // In slices, so a large sweep never holds the single SQLite writer for long.
      const r = await this.db
        .deleteFrom('chat_messages')
        .where(({ eb, refTuple, selectFrom }) =>
          eb(
            refTuple('instance_id', 'chat_id', 'message_id'),
            'in',
            selectFrom('chat_messages')
              .select(['instance_id', 'chat_id', 'message_id'])
              .where('at', '<', before)
              .limit(batch)
              .$asTuple('instance_id', 'chat_id', 'message_id'),
          ),
        )
        .executeTakeFirst();
      const n = Number(r.numDeletedRows);
      total += n;
      if (n < batch) return total;
    }
  }

  async prunePerChat(max: number): Promise<number> {
    const over = await this.db
      .selectFrom('chat_messages')
      .select(['instance_id', 'chat_id'])
      .groupBy(['instance_id', 'chat_id'])
      .having((eb) => eb.fn.countAll(), '>', max)
      .execute();
    let total = 0;
    for (const { instance_id, chat_id } of over) {
      const r = await this.db
        .deleteFrom('chat_messages')
        .where('instance_id', '=', instance_id)
        .where('chat_id', '=', chat_id)
        .where('message_id', 'in', (qb) =>
          qb
            .selectFrom('chat_messages')
            .select('message_id')
            .where('instance_id', '=', instance_id)
            .where('chat_id', '=', chat_id)
            .orderBy('at', 'desc')
            .orderBy('message_id', 'desc')
            // SQLite takes OFFSET only with a LIMIT.
            .limit(2_000_000_000)
            .offset(max),
        )
        .executeTakeFirst();
      total += Number(r.numDeletedRows);
    }
    return total;
  }
}

function instanceOf(w: ChatWrite): string {
  return w.kind === 'message' ? w.message.instance_id : w.instanceId;
}

type Executor = Kysely<DB> | Transaction<DB>;

async function apply(trx: Executor, w: ChatWrite): Promise<void> {
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

async function applyChat(trx: Executor, w: Extract<ChatWrite, { kind: 'chat' }>): Promise<void> {
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

async function applyContact(trx: Executor, w: Extract<ChatWrite, { kind: 'contact' }>): Promise<void> {
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
