// Chats and contacts as Z-API lists them, from the stored copy of the account; chat changes go to
// the network first (an app-state patch the phone applies) and are written to the copy once accepted.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { formatTarget, parseTarget } from '../domain/phone.js';
import { DomainError } from '../errors.js';
import type { ChatAction, ChatsPort } from '../sessions/families/chats/chats-port.js';
import { targetJid } from '../sessions/jids.js';
import type { SessionsPort } from '../sessions/port.js';
import type { ChatEditor, ChatPatch, ChatReader, ChatWithLid, ContactReader } from '../store/chats-repo.js';
import type { ChatMessageRow, ContactRow } from '../store/schema.js';

/** Rows per page at most: with every stored field bounded, a page stays well under 2 MiB. */
const MAX_PAGE_SIZE = 1000;
/** A picture URL looked up on the network is reused this long (WhatsApp's links live ~48 h). */
const PICTURE_FRESH_MS = 24 * 60 * 60_000;

/** Contacts one contacts/add or contacts/remove call may name (each is a round trip to the network). */
export const MAX_CONTACTS_PER_CALL = 50;

/** A contact for contacts/add (Z-API's body entries). */
export interface NewContact {
  firstName: string;
  lastName?: string;
  phone: string;
}

/** Z-API's answer to contacts/add and contacts/remove: the entries the network refused are listed. */
interface ContactsChangeResult {
  success: boolean;
  errors: { phone: string; error: string }[];
}

/** Z-API's chat in GET /chats (flags as strings, as Z-API sends them). */
interface ChatView {
  phone: string;
  /** 1:1 chats: the person's `<digits>@lid` when known; null for groups. */
  lid: string | null;
  name: string;
  isGroup: boolean;
  archived: 'true' | 'false';
  pinned: 'true' | 'false';
  unread: string;
  messagesUnread: number;
  /** ms since the epoch, as a string (docs/contract.md §1: times in ms). */
  lastMessageTime: string;
  lastMessageId: string | null;
  isMuted: '0' | '1';
  muteEndTime: number | null;
  isMarkedSpam: 'false';
  isGroupAnnouncement: boolean;
  /** zapgate: what the last message was, from the stored copy (null when it is not stored). */
  lastMessage: LastMessageView | null;
}

interface LastMessageView {
  type: string;
  body: string | null;
  fromMe: boolean;
}

/** Signed links to received files, by media id (those past their retention left out). */
export interface MediaLinks {
  links(ids: readonly string[]): Promise<Map<string, string>>;
}

interface ChatMetadataView extends ChatView {
  profileThumbnail: string | null;
  about: string | null;
}

/** A stored message of a chat (GET /chat-messages/{phone}). */
interface ChatMessageView {
  messageId: string;
  phone: string;
  fromMe: boolean;
  /** The sender's number in a group; null for your own messages and in 1:1 chats. */
  participantPhone: string | null;
  /** ms since the epoch */
  momment: number;
  /** text, image, audio, video, document, sticker, contact, location, poll, … or `revoked` (deleted for everyone). */
  type: string;
  /** Text, caption, file name, question …: the edited text after an edit; null when there is none. */
  body: string | null;
  status: string;
  /** zapgate: the signed link to the message's file while it is kept (as its webhook carried it); else null. */
  mediaUrl: string | null;
}

interface ContactView {
  phone: string;
  /** `<digits>@lid` when known. */
  lid: string | null;
  name: string | null;
  short: string | null;
  notify: string | null;
  vname: string | null;
}

interface ContactMetadataView {
  phone: string;
  name: string | null;
  short: string | null;
  notify: string | null;
  imgUrl: string | null;
  about: string | null;
}

export class ChatsService {
  constructor(
    private readonly store: ChatReader & ContactReader & ChatEditor,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly chats: ChatsPort,
    private readonly clock: Clock,
    private readonly media: MediaLinks,
  ) {}

  async list(instanceId: string, page: number, pageSize: number): Promise<ChatView[]> {
    const rows = await this.store.listChats(instanceId, (page - 1) * pageSize, Math.min(pageSize, MAX_PAGE_SIZE));
    const now = this.clock.now();
    const lastIds = rows.flatMap((r) => (r.last_message_id ? [r.last_message_id] : []));
    const last = new Map((await this.store.messagesByIds(instanceId, lastIds)).map((m) => [`${m.chat_id}\n${m.message_id}`, m]));
    return rows.map((r) => chatView(r, now, last.get(`${r.chat_id}\n${r.last_message_id}`)));
  }

  async metadata(instanceId: string, phone: string): Promise<ChatMetadataView> {
    const chatId = chatIdOf(phone);
    const row = await this.store.findChat(instanceId, chatId);
    if (!row) throw errors.notFound('Chat not found');
    const contact = row.is_group ? undefined : await this.store.findContact(instanceId, chatId);
    const last = row.last_message_id ? (await this.store.messagesByIds(instanceId, [row.last_message_id])).find((m) => m.chat_id === row.chat_id) : undefined;
    const view = { ...chatView(row, this.clock.now(), last), profileThumbnail: contact?.img_url ?? null, about: null };
    if (row.is_group || !/^\d+$/.test(chatId) || !this.sessions.isConnected(instanceId)) return view;
    // The contact's about (profile status) is only on the network; a slow or refused lookup leaves
    // the stored metadata as the answer rather than failing it.
    const net = await this.chats.contact(instanceId, chatId).catch(() => null);
    return net?.exists ? { ...view, about: net.about, profileThumbnail: net.imgUrl ?? view.profileThumbnail } : view;
  }

  async modify(instanceId: string, phone: string, action: ChatAction): Promise<void> {
    const chatId = chatIdOf(phone);
    // Z-API's own refusal: a channel is not a chat the phone can archive, pin, mute or clear.
    if (chatId.endsWith('@newsletter')) throw errors.invalidInput('ModifyChat not available to channels.');
    const row = await this.store.findChat(instanceId, chatId);
    const jid = row?.jid ?? targetJid(chatId);
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    const last = await this.store.lastMessage(instanceId, chatId);
    await this.chats.modifyChat(instanceId, jid, action, last ? { id: last.message_id, fromMe: last.from_me === 1, at: last.at } : null);
    // The network accepted the patch: the copy says so at once (Baileys also echoes it as chats.update).
    const now = this.clock.now();
    if (action === 'delete') return this.store.deleteChat(instanceId, chatId);
    if (action === 'clear') return this.store.clearChat(instanceId, chatId);
    await this.store.patchChat(instanceId, chatId, jid, patchOf(action, now), now);
  }

  /** A chat's stored messages, newest first; `before` pages on from an earlier answer's last id. */
  async messages(instanceId: string, phone: string, amount: number, before?: string): Promise<ChatMessageView[]> {
    const chatId = chatIdOf(phone);
    const rows = await this.store.listMessages(instanceId, chatId, Math.min(amount, MAX_PAGE_SIZE), before);
    if (rows.length === 0 && !(await this.store.findChat(instanceId, chatId))) throw errors.notFound('Chat not found');
    const links = await this.media.links(rows.flatMap((r) => (r.media_id ? [r.media_id] : [])));
    return rows.map((r) => ({
      messageId: r.message_id,
      phone: r.chat_id,
      fromMe: r.from_me === 1,
      participantPhone: r.from_me === 1 || !r.chat_id.endsWith('-group') ? null : r.sender,
      momment: r.at,
      type: r.type,
      body: r.body,
      status: r.status,
      mediaUrl: (r.media_id && links.get(r.media_id)) || null,
    }));
  }

  async contacts(instanceId: string, page: number, pageSize: number): Promise<ContactView[]> {
    const rows = await this.store.listContacts(instanceId, (page - 1) * pageSize, Math.min(pageSize, MAX_PAGE_SIZE));
    return rows.map((r) => ({ phone: r.phone, lid: r.phone.endsWith('@lid') ? r.phone : r.lid, name: r.name, short: r.short, notify: r.notify, vname: r.vname }));
  }

  /**
   * contacts/add: saves each contact in the phone's address book (an app-state change the phone
   * applies), one after the other; an entry the network refuses is listed in `errors` and the rest
   * go on. A malformed entry refuses the whole call before anything is sent.
   */
  async saveContacts(instanceId: string, entries: readonly NewContact[]): Promise<ContactsChangeResult> {
    const targets = entries.map((e, i) => ({ ...e, phone: contactPhoneOf(e.phone, `[${i}].phone`) }));
    return this.changeContacts(instanceId, targets.map((t) => t.phone), async (phone, i) => {
      const t = targets[i]!;
      const saved = await this.chats.saveContact(instanceId, phone, { firstName: t.firstName, lastName: t.lastName ?? null });
      const fullName = t.lastName ? `${t.firstName} ${t.lastName}` : t.firstName;
      await this.store.putContact(instanceId, saved, { name: fullName, short: t.firstName }, this.clock.now());
    });
  }

  /** contacts/remove: removes each number from the phone's address book (the contact stays known by its push name). */
  async removeContacts(instanceId: string, phones: readonly string[]): Promise<ContactsChangeResult> {
    const targets = phones.map((p, i) => contactPhoneOf(p, `[${i}]`));
    return this.changeContacts(instanceId, targets, async (phone) => {
      const removed = await this.chats.saveContact(instanceId, phone, null);
      await this.store.putContact(instanceId, removed, { name: null, short: null }, this.clock.now());
    });
  }

  private async changeContacts(instanceId: string, phones: readonly string[], change: (phone: string, i: number) => Promise<void>): Promise<ContactsChangeResult> {
    if (phones.length > MAX_CONTACTS_PER_CALL) throw errors.invalidInput(`at most ${MAX_CONTACTS_PER_CALL} contacts per call`);
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    const failed: ContactsChangeResult['errors'] = [];
    for (const [i, phone] of phones.entries()) {
      try {
        await change(phone, i);
      } catch (err) {
        // The link dropped or the session timed out: the rest would fail the same way.
        if (err instanceof DomainError && (err.code === 'not_connected' || err.code === 'command_timeout')) throw err;
        failed.push({ phone, error: err instanceof DomainError ? (err.detail ?? err.message) : 'the network refused the change' });
      }
    }
    return { success: failed.length === 0, errors: failed };
  }

  /** The stored contact, with its picture and about from the network when connected. */
  async contact(instanceId: string, phone: string): Promise<ContactMetadataView> {
    const target = parseTarget(phone);
    if (target.kind === 'group' || target.kind === 'newsletter') throw errors.invalidInput(`phone: must be a contact, not a ${target.kind === 'group' ? 'group' : 'channel'}`);
    const key = formatTarget(target);
    const stored = await this.store.findContact(instanceId, key);
    if (!this.sessions.isConnected(instanceId) || target.kind === 'lid') {
      if (stored) return contactView(stored, stored.img_url, null);
      throw errors.notConnected();
    }
    const now = this.clock.now();
    const net = await this.chats.contact(instanceId, key);
    if (!net.exists && !stored) throw errors.notFound('Contact not found');
    if (net.exists) await this.store.putContact(instanceId, net.phone, { imgUrl: net.imgUrl, imgFetchedAt: now, ...(net.lid ? { lid: `${net.lid.split('@')[0] ?? ''}@lid` } : {}) }, now);
    const fresh = stored?.img_fetched_at != null && now - stored.img_fetched_at < PICTURE_FRESH_MS ? stored.img_url : null;
    return contactView(stored ?? emptyContact(net.phone), net.exists ? net.imgUrl : fresh, net.about);
  }
}

/** A contact's number for the address book: digits only (not a group, not a LID). */
function contactPhoneOf(phone: string, field: string): string {
  const target = parseTarget(phone, field);
  if (target.kind !== 'phone') throw errors.invalidInput(`${field}: must be a phone number`);
  return formatTarget(target);
}

/** A chat as the API names it: digits, `<digits>-group` or `<digits>@lid`. */
function chatIdOf(phone: string): string {
  return formatTarget(parseTarget(phone));
}

function patchOf(action: Exclude<ChatAction, 'delete' | 'clear'>, now: number): ChatPatch {
  switch (action) {
    case 'archive':
      return { archived: true };
    case 'unarchive':
      return { archived: false };
    case 'read':
      return { unread: 0 };
    case 'unread':
      return { unread: -1 };
    case 'pin':
      return { pinnedAt: now };
    case 'unpin':
      return { pinnedAt: 0 };
    case 'mute':
      return { mutedUntil: -1 };
    case 'unmute':
      return { mutedUntil: null };
  }
}

function chatView(r: ChatWithLid, now: number, last: ChatMessageRow | undefined): ChatView {
  const muted = r.muted_until !== null && (r.muted_until === -1 || r.muted_until > now);
  return {
    phone: r.chat_id,
    // docs/contract.md §5: the person's LID beside the number (the chat id itself while hidden).
    lid: r.is_group === 1 ? null : r.chat_id.endsWith('@lid') ? r.chat_id : r.lid,
    name: r.name ?? (r.is_group ? r.chat_id : ''),
    isGroup: r.is_group === 1,
    archived: r.archived === 1 ? 'true' : 'false',
    pinned: r.pinned_at > 0 ? 'true' : 'false',
    unread: String(r.unread),
    messagesUnread: Math.max(0, r.unread),
    lastMessageTime: String(r.last_message_at),
    lastMessageId: r.last_message_id,
    isMuted: muted ? '1' : '0',
    muteEndTime: muted ? r.muted_until : null,
    isMarkedSpam: 'false',
    isGroupAnnouncement: false,
    lastMessage: last ? { type: last.type, body: last.body, fromMe: last.from_me === 1 } : null,
  };
}

function contactView(c: ContactRow, imgUrl: string | null, about: string | null): ContactMetadataView {
  return { phone: c.phone, name: c.name, short: c.short, notify: c.notify, imgUrl, about };
}

function emptyContact(phone: string): ContactRow {
  return { instance_id: '', phone, lid: null, name: null, short: null, notify: null, vname: null, img_url: null, img_fetched_at: null, blocked: 0, updated_at: 0 };
}
