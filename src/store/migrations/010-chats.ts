// 010: the stored copy of the account. Baileys keeps no chats, contacts or messages, so zapgate
// records what passes through the engine (messages received and sent, chat changes made on the
// phone or through the API, contacts' names) and serves GET /chats and GET /contacts from it.
// - chats: one row per conversation; `last_message_at` is NOT NULL (0 = none yet) so the listing
//   index orders the same on both dialects (their NULL orderings differ);
// - contacts: people the instance has seen (push names, LIDs, pictures looked up, blocking);
// - chat_messages: a bounded copy of recent messages (text or caption cut to a few KiB, received
//   media by the id of its file in media_files), pruned by age and per chat (retention settings).
// Named chat_messages: `messages` is the send queue.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration010Chats: Migration = {
  name: '010-chats',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('chats')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      // `<digits>`, `<digits>-group` or `<digits>@lid` (as the API names chats).
      .addColumn('chat_id', 'text', (c) => c.notNull())
      // The network's address of the chat (what chatModify needs).
      .addColumn('jid', 'text', (c) => c.notNull())
      .addColumn('is_group', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('name', 'text')
      .addColumn('last_message_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_message_id', 'text')
      .addColumn('last_message_from_me', 'integer', (c) => c.notNull().defaultTo(0))
      // Messages received since the chat was last read; -1 = marked unread.
      .addColumn('unread', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0))
      // When it was pinned (ms); 0 = not pinned.
      .addColumn('pinned_at', 'bigint', (c) => c.notNull().defaultTo(0))
      // ms until which notifications are muted; -1 = for ever; null = not muted.
      .addColumn('muted_until', 'bigint')
      // Disappearing-messages timer in seconds; null = off/unknown.
      .addColumn('ephemeral', 'integer')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('chats_pk', ['instance_id', 'chat_id'])
      .execute();
    // GET /chats pages by last-message time.
    await db.schema.createIndex('chats_recent').on('chats').columns(['instance_id', 'last_message_at', 'chat_id']).execute();

    await db.schema
      .createTable('contacts')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      // Digits, or `<digits>@lid` while the number is not known.
      .addColumn('phone', 'text', (c) => c.notNull())
      .addColumn('lid', 'text')
      // Address-book name (full and short) as the phone's contact sync gives it.
      .addColumn('name', 'text')
      .addColumn('short', 'text')
      // The contact's own push name.
      .addColumn('notify', 'text')
      // Verified business name.
      .addColumn('vname', 'text')
      .addColumn('img_url', 'text')
      .addColumn('img_fetched_at', 'bigint')
      .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('contacts_pk', ['instance_id', 'phone'])
      .execute();

    await db.schema
      .createTable('chat_messages')
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      .addColumn('chat_id', 'text', (c) => c.notNull())
      .addColumn('message_id', 'text', (c) => c.notNull())
      .addColumn('from_me', 'integer', (c) => c.notNull())
      // Author's phone (groups: the participant; 1:1: the contact or the account itself).
      .addColumn('sender', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      // Z-API content key: text, image, audio, … (notification for system messages).
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('body', 'text')
      // Received media: media_files.id of its file.
      .addColumn('media_id', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('chat_messages_pk', ['instance_id', 'chat_id', 'message_id'])
      .execute();
    // A chat's messages by time (paging, per-chat retention); status updates by id; the age sweep.
    await db.schema.createIndex('chat_messages_chat').on('chat_messages').columns(['instance_id', 'chat_id', 'at']).execute();
    await db.schema.createIndex('chat_messages_id').on('chat_messages').columns(['instance_id', 'message_id']).execute();
    await db.schema.createIndex('chat_messages_age').on('chat_messages').column('at').execute();
  },
};
