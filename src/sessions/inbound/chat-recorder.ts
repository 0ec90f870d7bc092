// Feeds the stored copy of the account (store/chats-repo.ts) from one session: messages received
// and sent (writesFor(): the writes of the events onUpsert built, committed with those events),
// Baileys' chat and contact events (chats.upsert/update/delete — app-state patches made on the phone
// arrive as chats.update —, contacts.upsert/update): handed to the store's batcher and never awaited
// here, the copy must never slow the receive path or hold a receipt. (Statuses of what we sent are
// set by the store with the queue's own status update: store/messages-state-moves.ts.)
import type { BaileysEventMap, Chat, Contact, WAMessage } from 'baileys';
import type { ReceivedCallback } from '../../events/types.js';
import type { ChatActivitySink, ChatPatch, ChatSeen, ChatWrite, ContactPatch } from '../../store/chats-repo.js';
import type { ChatMessageRow } from '../../store/schema.js';
import { NAME_MAX_CHARS } from '../../store/chats-repo.js';
import { mediaFileId } from './inbound-media.js';
import { groupIdOf, isGroup, isLid, normalJid, userOf } from '../jids.js';

/** Text or caption kept per message (the copy is for listing chats, not an archive). */
const BODY_MAX_CHARS = 4096;

/** Content keys of a ReceivedCallback that are a message of the chat, in the order they are looked for. */
const MESSAGE_KINDS = ['text', 'image', 'audio', 'video', 'document', 'sticker', 'contact', 'contacts', 'location', 'poll', 'event', 'reviewAndPay', 'reviewOrder', 'listResponseMessage', 'buttonsResponseMessage'] as const;
const MEDIA_URL: Record<string, string> = { image: 'imageUrl', audio: 'audioUrl', video: 'videoUrl', document: 'documentUrl', sticker: 'stickerUrl' };

export interface RecordedMessage {
  event: ReceivedCallback;
  msg: WAMessage;
  /** Came from the network (not our own API send): counts as unread when not fromMe. */
  network: boolean;
}

interface ChatRecorderDeps {
  instanceId: string;
  sink: ChatActivitySink;
  now(): number;
  /** A person's phone from a jid (LID resolved when the mapping is known). */
  phoneOf(jid: string): Promise<string>;
  failed(err: unknown, what: string): void;
  /** Real (not scaled) milliseconds, for the window of an own contact change; performance.now() when unset. */
  realMs?(): number;
}

/** People whose LID and number this process has already merged in the copy (bounded; a repeat is harmless). */
const LEARNED_MAX = 10_000;

/** Contacts whose last written fields this process remembers (bounded; forgetting only costs a write). */
const CONTACTS_MAX = 10_000;

/**
 * How long (real time) after contacts/add or /remove the engine's echo of that change is not
 * taken as the contact's saved name. The echo can come late (Baileys' event buffer, a busy intake);
 * a name the phone itself changes within this window is recorded at its next change.
 */
const OWN_CHANGE_ECHO_MS = 10_000;
/** Bound of the contacts with an own change in that window (contacts/add takes a bounded list). */
const OWN_CHANGES_MAX = 1_000;

export class ChatRecorder {
  private readonly learned = new Set<string>();
  private readonly contacts = new Map<string, ContactPatch>();
  /** Contacts whose saved name this instance's API just set or removed: phone → until (realMs()). */
  private readonly ownChanges = new Map<string, number>();

  constructor(private readonly deps: ChatRecorderDeps) {}

  /**
   * contacts/add or /remove is about to change `phone`'s entry in the phone's address book; the API
   * writes the result to the copy itself. Baileys reports the change back as a contact upsert, but
   * not faithfully: a removal comes without a name, indistinguishable from "no name said", and when
   * an add and a removal meet in its event buffer they merge into the add's name. Arriving after the
   * API's write, that echo put a removed name back. So for a while its name is not recorded.
   */
  expectOwnContactChange(phone: string): void {
    const now = this.realMs();
    if (this.ownChanges.size >= OWN_CHANGES_MAX) {
      for (const [p, until] of this.ownChanges) if (until <= now) this.ownChanges.delete(p);
      if (this.ownChanges.size >= OWN_CHANGES_MAX) this.ownChanges.clear();
    }
    this.ownChanges.set(phone, now + OWN_CHANGE_ECHO_MS);
  }

  private realMs(): number {
    return this.deps.realMs?.() ?? performance.now();
  }

  private isOwnChangeEcho(phone: string): boolean {
    const until = this.ownChanges.get(phone);
    if (until === undefined) return false;
    if (until > this.realMs()) return true;
    this.ownChanges.delete(phone);
    return false;
  }

  /**
   * A LID and its number, from a payload or Baileys' mapping: the copy's chat and contact under the
   * LID (written while the number was hidden) move under the number, once per process and person.
   */
  personLearned(phone: string | null | undefined, lid: string | null | undefined): void {
    const w = this.personWrite(phone, lid);
    if (w) this.write(w);
  }

  private personWrite(phone: string | null | undefined, lid: string | null | undefined): ChatWrite | null {
    if (!phone || !lid || !/^\d+$/.test(phone) || !/^\d+@lid$/.test(lid)) return null;
    const key = `${phone}/${lid}`;
    if (this.learned.has(key)) return null;
    if (this.learned.size >= LEARNED_MAX) this.learned.clear();
    this.learned.add(key);
    return { kind: 'person', instanceId: this.deps.instanceId, phone, lid, at: this.deps.now() };
  }

  /**
   * The copy's writes for messages about to be committed: the caller commits them with the
   * messages' events (store/message-copies.ts), so the copy is never behind the webhook.
   */
  writesFor(items: readonly RecordedMessage[]): ChatWrite[] {
    const out: ChatWrite[] = [];
    const push = (w: ChatWrite | null): void => {
      if (w) out.push(w);
    };
    for (const { event, msg, network } of items) {
      if (event.isGroup) push(this.personWrite(event.participantPhone, event.participantLid));
      else push(this.personWrite(event.phone, event.chatLid));
      if (event.notification === 'REVOKE') {
        out.push({ kind: 'revoke', instanceId: this.deps.instanceId, chatId: event.phone, messageId: event.messageId });
        continue;
      }
      if (event.isEdit === true && !event.notification) {
        const kind = MESSAGE_KINDS.find((k) => event[k] !== undefined);
        if (!kind) continue;
        // An edit carries the message's new content under the edited message's id.
        const body = bodyOf(kind, event[kind] as Record<string, unknown>);
        out.push({ kind: 'edit', instanceId: this.deps.instanceId, chatId: event.phone, messageId: event.messageId, body: body === null ? null : body.slice(0, BODY_MAX_CHARS) });
        continue;
      }
      const entry = chatMessageOf(this.deps.instanceId, event, msg, network);
      if (!entry) continue;
      out.push({ kind: 'message', message: entry.message, chat: entry.chat, countsUnread: network && !event.fromMe });
      // Push names: what the contact calls itself travels with each of its messages.
      const sender = entry.message.sender;
      if (!event.fromMe && sender && event.senderName) {
        const lid = lidOf(event.isGroup ? [msg.key.participant, msg.key.participantAlt] : [msg.key.remoteJid, msg.key.remoteJidAlt]);
        push(this.contactWrite(sender, { notify: bounded(event.senderName), ...(lid ? { lid } : {}) }));
      }
    }
    return out;
  }

  /** The account's own phone read received messages of a chat (READ_BY_ME). */
  readOnPhone(chatId: string, ids: readonly string[]): void {
    if (ids.length > 0) this.write({ kind: 'read', instanceId: this.deps.instanceId, chatId, ids });
  }

  /** Baileys' chat and contact events from one processed batch. */
  async engineEvents(events: Partial<BaileysEventMap>): Promise<void> {
    for (const chat of events['chats.upsert'] ?? []) await this.chat(chat);
    for (const chat of events['chats.update'] ?? []) await this.chat(chat);
    for (const contact of [...(events['contacts.upsert'] ?? []), ...(events['contacts.update'] ?? [])]) await this.contact(contact);
  }

  private async chat(chat: Partial<Chat>): Promise<void> {
    const jid = chat.id ? normalJid(chat.id) : '';
    if (!jid || jid === 'status@broadcast' || jid.endsWith('@newsletter')) return;
    const patch: ChatPatch = {};
    if (typeof chat.archived === 'boolean') patch.archived = chat.archived;
    if (chat.pinned !== undefined) patch.pinnedAt = chat.pinned ? Number(chat.pinned) : 0;
    if (chat.muteEndTime !== undefined) patch.mutedUntil = chat.muteEndTime === null ? null : Number(chat.muteEndTime);
    // Only read (0) and marked unread (-1) are states; Baileys' positive counts are per-message
    // increments, which the copy already counts from the messages themselves.
    if (chat.unreadCount === 0 || (typeof chat.unreadCount === 'number' && chat.unreadCount < 0)) patch.unread = chat.unreadCount < 0 ? -1 : 0;
    if (chat.name) patch.name = bounded(chat.name);
    if (chat.ephemeralExpiration !== undefined) patch.ephemeral = chat.ephemeralExpiration || null;
    if (Object.keys(patch).length === 0) return;
    const group = isGroup(jid);
    const chatId = group ? groupIdOf(jid) : await this.deps.phoneOf(jid);
    this.write({ kind: 'chat', instanceId: this.deps.instanceId, chatId, jid, isGroup: group, patch, at: this.deps.now() });
  }

  private async contact(c: Partial<Contact>): Promise<void> {
    const pnJid = c.phoneNumber ?? (c.id && !isLid(c.id) ? c.id : undefined);
    const lidJid = c.lid ?? (c.id && isLid(c.id) ? c.id : undefined);
    if (!pnJid && !lidJid) return;
    if (pnJid && (isGroup(pnJid) || pnJid.endsWith('@broadcast') || pnJid.endsWith('@newsletter'))) return;
    const phone = pnJid ? userOf(pnJid) : await this.deps.phoneOf(lidJid!);
    const patch: ContactPatch = {};
    if (lidJid) patch.lid = `${userOf(lidJid)}@lid`;
    if (c.name && !this.isOwnChangeEcho(phone)) patch.name = bounded(c.name);
    if (c.notify) patch.notify = bounded(c.notify);
    if (c.verifiedName) patch.vname = bounded(c.verifiedName);
    if (c.imgUrl !== undefined && c.imgUrl !== 'changed') patch.imgUrl = c.imgUrl ?? null;
    if (Object.keys(patch).length === 0) return;
    const w = this.contactWrite(phone, patch);
    if (w) this.write(w);
  }

  /**
   * A contact's write, or null when it would only repeat what this recorder last wrote of that
   * contact: the push name travels with every message and Baileys reports it again as a contact
   * update, so without this each received message rewrote the contact twice. Only the network
   * writes these fields, so what was written last is what the row holds.
   */
  private contactWrite(phone: string, patch: ContactPatch): ChatWrite | null {
    const known = this.contacts.get(phone);
    const fields = Object.entries(patch) as [keyof ContactPatch, unknown][];
    if (known && fields.every(([k, v]) => known[k] === v)) return null;
    if (!known && this.contacts.size >= CONTACTS_MAX) this.contacts.clear();
    this.contacts.set(phone, { ...known, ...patch });
    return { kind: 'contact', instanceId: this.deps.instanceId, phone, patch, at: this.deps.now() };
  }

  private write(w: ChatWrite): void {
    this.deps.sink.record(w).catch((err: unknown) => this.deps.failed(err, 'record the chat copy'));
  }
}

/**
 * The stored-copy row of a message as its ReceivedCallback describes it (null for what is not a
 * message of the chat: edits, notifications). `withFile`: received media whose file was recorded.
 */
export function chatMessageOf(instanceId: string, event: ReceivedCallback, msg: WAMessage, withFile: boolean): { message: ChatMessageRow; chat: ChatSeen } | null {
  const kind = MESSAGE_KINDS.find((k) => event[k] !== undefined);
  if (!kind || event.isEdit === true || event.notification) return null;
  const content = event[kind] as Record<string, unknown>;
  const body = bodyOf(kind, content);
  const url = MEDIA_URL[kind];
  const hasFile = withFile && !!url && typeof content[url] === 'string' && content[url] !== '';
  const chatJid = normalJid(msg.key.remoteJid ?? '');
  const group = event.isGroup;
  const sender = event.fromMe ? null : group ? event.participantPhone : event.phone;
  return {
    message: {
      instance_id: instanceId,
      chat_id: event.phone,
      message_id: event.messageId,
      from_me: event.fromMe ? 1 : 0,
      sender: sender || null,
      at: event.momment,
      type: kind,
      body: body === null ? null : body.slice(0, BODY_MAX_CHARS),
      media_id: hasFile ? mediaFileId(instanceId, event.messageId, 'file') : null,
      status: event.fromMe ? 'SENT' : 'RECEIVED',
    },
    chat: { jid: chatJid, isGroup: group, name: bounded(group ? event.chatName : event.fromMe ? '' : event.senderName) },
  };
}

function bodyOf(kind: string, content: Record<string, unknown>): string | null {
  const pick = (k: string): string | null => (typeof content[k] === 'string' ? (content[k] as string) : null);
  switch (kind) {
    case 'text':
    case 'listResponseMessage':
    case 'buttonsResponseMessage':
      return pick('message');
    case 'image':
    case 'video':
      return pick('caption') || null;
    case 'document':
      return pick('caption') || pick('fileName');
    case 'contact':
      return pick('displayName');
    case 'location':
      return pick('name') ?? `${String(content.latitude)},${String(content.longitude)}`;
    case 'poll':
      return pick('question');
    case 'event':
      return pick('name');
    default:
      return null;
  }
}

function bounded(name: string | null | undefined): string | null {
  return name ? name.slice(0, NAME_MAX_CHARS) : null;
}

function lidOf(jids: readonly (string | null | undefined)[]): string | null {
  const lid = jids.find((j) => isLid(j));
  return lid ? `${userOf(lid)}@lid` : null;
}
