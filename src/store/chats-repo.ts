// The stored copy of the account: chats, contacts and recent messages, fed by the engine in
// same-tick batches (a commit per batch, never one per message, and never on the receive path's
// commit) and read by GET /chats and GET /contacts. One SQL text per query for SQLite and PostgreSQL.
// The small role interfaces are in `chats-roles.ts`; what each batched write does in `chats-writes.ts`,
// bulk loads in `chats-history.ts` and retention in `chats-retention.ts`.
import type { Kysely } from 'kysely';
import type { ChatActivitySink, ChatEditor, ChatPatch, ChatReader, ChatRetention, ChatWrite, ContactPatch, ContactReader, HistoryBatch, HistoryImport } from './chats-roles.js';
import { importHistory, importMessages } from './chats-history.js';
import { pruneOlderThan, prunePerChat } from './chats-retention.js';
import { apply, applyChat, instanceOf } from './chats-writes.js';
import type { ChatMessageRow, ContactRow, DB } from './schema.js';
import type { ChatWithLid } from './chats-roles.js';
import { WriteBatcher } from './write-batcher.js';

export type {
  ChatActivitySink,
  ChatEditor,
  ChatPatch,
  ChatReader,
  ChatSeen,
  ChatWrite,
  ContactPatch,
  ContactReader,
  HistoryBatch,
  HistoryChat,
  HistoryImport,
} from './chats-roles.js';
export { NAME_MAX_CHARS } from './chats-roles.js';
export type { ChatWithLid } from './chats-roles.js';

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

  listChats(instanceId: string, offset: number, limit: number): Promise<ChatWithLid[]> {
    return this.chatsWithLid(instanceId)
      .orderBy('chats.last_message_at', 'desc')
      .orderBy('chats.chat_id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute();
  }

  findChat(instanceId: string, chatId: string): Promise<ChatWithLid | undefined> {
    return this.chatsWithLid(instanceId).where('chats.chat_id', '=', chatId).executeTakeFirst();
  }

  /** Chats with the LID of a 1:1 chat's person, from the contact under the same id (store/chats-merge.ts). */
  private chatsWithLid(instanceId: string) {
    return this.db
      .selectFrom('chats')
      .leftJoin('contacts', (j) => j.onRef('contacts.instance_id', '=', 'chats.instance_id').onRef('contacts.phone', '=', 'chats.chat_id'))
      .selectAll('chats')
      .select('contacts.lid as lid')
      .where('chats.instance_id', '=', instanceId);
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

  async messagesByIds(instanceId: string, messageIds: readonly string[]): Promise<ChatMessageRow[]> {
    if (messageIds.length === 0) return [];
    return this.db.selectFrom('chat_messages').selectAll().where('instance_id', '=', instanceId).where('message_id', 'in', [...messageIds]).execute();
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

  /**
   * Through the same batch as the engine's writes, in order: the engine reports what a contacts/add
   * or /remove changed on the phone while the call runs (Baileys emits its own app-state changes), and
   * a direct write here could commit before that older write queued ahead of it, which then undid it.
   */
  async putContact(instanceId: string, phone: string, patch: ContactPatch, at: number): Promise<void> {
    await this.batcher.submit({ kind: 'contact', instanceId, phone, patch, at });
  }

  /**
   * Imports messages in multi-row statements (bulk loads such as benchmarks or a history import);
   * chats are not touched: record() the newest message of each chat for that. Duplicates are skipped.
   */
  importMessages(rows: readonly ChatMessageRow[]): Promise<void> {
    return importMessages(this.db, rows);
  }

  /** The phone's history snapshot at pairing, under live writes (see `chats-history.ts`); returns the new message ids. */
  importHistory(batch: HistoryBatch): Promise<string[]> {
    return importHistory(this.db, batch);
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

  pruneOlderThan(before: number, batch = 5_000): Promise<number> {
    return pruneOlderThan(this.db, before, batch);
  }

  prunePerChat(max: number): Promise<number> {
    return prunePerChat(this.db, max);
  }
}
