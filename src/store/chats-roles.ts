// What the stored copy of the account (chats, contacts, recent messages) offers, as small role
// interfaces, and the writes the engine feeds it. `chats-repo.ts` implements them all.
import type { ChatMessageRow, ChatRow, ContactRow } from './schema.js';

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

/** A chat row with the LID of its person (1:1 chats whose contact's LID is known; else null). */
export type ChatWithLid = ChatRow & { lid: string | null };

/** A LID's number became known (store/chats-merge.ts). */
export interface PersonLearned {
  kind: 'person';
  instanceId: string;
  /** The number, digits. */
  phone: string;
  /** `<digits>@lid`. */
  lid: string;
  at: number;
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
  | { kind: 'read'; instanceId: string; chatId: string; ids: readonly string[] }
  /** A LID's number became known: what the copy holds under the LID moves under the number. */
  | PersonLearned;

/** Feeds the copy from the engine: writes gather per tick and commit together. */
export interface ChatActivitySink {
  /** Resolves after the batch holding this write committed; callers on hot paths do not wait. */
  record(write: ChatWrite): Promise<void>;
  drain(): Promise<void>;
}

export interface ChatReader {
  /** Newest conversation first; `offset` rows skipped. */
  listChats(instanceId: string, offset: number, limit: number): Promise<ChatWithLid[]>;
  findChat(instanceId: string, chatId: string): Promise<ChatWithLid | undefined>;
  /** The newest stored message of a chat. */
  lastMessage(instanceId: string, chatId: string): Promise<ChatMessageRow | undefined>;
  /** A chat's messages, newest first; with `beforeId`, those older than that message (none when it is unknown). */
  listMessages(instanceId: string, chatId: string, limit: number, beforeId?: string): Promise<ChatMessageRow[]>;
  /** The stored messages of these ids (a page of chats' last messages), in no order. */
  messagesByIds(instanceId: string, messageIds: readonly string[]): Promise<ChatMessageRow[]>;
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

export interface ChatRetention {
  /** Deletes messages older than `before` (ms), at most `batch` per statement; returns how many. */
  pruneOlderThan(before: number, batch?: number): Promise<number>;
  /** Keeps the newest `max` messages of each chat; returns how many were deleted. */
  prunePerChat(max: number): Promise<number>;
}

/** Longest stored name (names come from other people's phones). */
export const NAME_MAX_CHARS = 256;
