// Chats and contacts as Z-API lists them, from the stored copy of the account; chat changes go to
// the network first (an app-state patch the phone applies) and are written to the copy once accepted.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { formatTarget, parseTarget } from '../domain/phone.js';
import type { ChatAction, ChatsPort } from '../sessions/chats-port.js';
import { targetJid } from '../sessions/jids.js';
import type { SessionsPort } from '../sessions/port.js';
import type { ChatEditor, ChatPatch, ChatReader, ContactReader } from '../store/chats-repo.js';
import type { ChatRow, ContactRow } from '../store/schema.js';

/** Rows per page at most: with every stored field bounded, a page stays well under 2 MiB. */
export const MAX_PAGE_SIZE = 1000;
/** A picture URL looked up on the network is reused this long (WhatsApp's links live ~48 h). */
const PICTURE_FRESH_MS = 24 * 60 * 60_000;

/** Z-API's chat in GET /chats (flags as strings, as Z-API sends them). */
export interface ChatView {
  phone: string;
  name: string;
  isGroup: boolean;
  archived: 'true' | 'false';
  pinned: 'true' | 'false';
  unread: string;
  messagesUnread: number;
  /** ms since the epoch, as a string (CONTRACT §1: times in ms). */
  lastMessageTime: string;
  lastMessageId: string | null;
  isMuted: '0' | '1';
  muteEndTime: number | null;
  isMarkedSpam: 'false';
  isGroupAnnouncement: boolean;
}

export interface ChatMetadataView extends ChatView {
  profileThumbnail: string | null;
  about: string | null;
}

export interface ContactView {
  phone: string;
  name: string | null;
  short: string | null;
  notify: string | null;
  vname: string | null;
}

export interface ContactMetadataView {
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
  ) {}

  async list(instanceId: string, page: number, pageSize: number): Promise<ChatView[]> {
    const rows = await this.store.listChats(instanceId, (page - 1) * pageSize, Math.min(pageSize, MAX_PAGE_SIZE));
    const now = this.clock.now();
    return rows.map((r) => chatView(r, now));
  }

  async metadata(instanceId: string, phone: string): Promise<ChatMetadataView> {
    const chatId = chatIdOf(phone);
    const row = await this.store.findChat(instanceId, chatId);
    if (!row) throw errors.notFound('Chat not found');
    const contact = row.is_group ? undefined : await this.store.findContact(instanceId, chatId);
    return { ...chatView(row, this.clock.now()), profileThumbnail: contact?.img_url ?? null, about: null };
  }

  async modify(instanceId: string, phone: string, action: ChatAction): Promise<void> {
    const chatId = chatIdOf(phone);
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

  async contacts(instanceId: string, page: number, pageSize: number): Promise<ContactView[]> {
    const rows = await this.store.listContacts(instanceId, (page - 1) * pageSize, Math.min(pageSize, MAX_PAGE_SIZE));
    return rows.map((r) => ({ phone: r.phone, name: r.name, short: r.short, notify: r.notify, vname: r.vname }));
  }

  /** The stored contact, with its picture and about from the network when connected. */
  async contact(instanceId: string, phone: string): Promise<ContactMetadataView> {
    const target = parseTarget(phone);
    if (target.kind === 'group') throw errors.invalidInput('phone: must be a contact, not a group');
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

function chatView(r: ChatRow, now: number): ChatView {
  const muted = r.muted_until !== null && (r.muted_until === -1 || r.muted_until > now);
  return {
    phone: r.chat_id,
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
  };
}

function contactView(c: ContactRow, imgUrl: string | null, about: string | null): ContactMetadataView {
  return { phone: c.phone, name: c.name, short: c.short, notify: c.notify, imgUrl, about };
}

function emptyContact(phone: string): ContactRow {
  return { instance_id: '', phone, lid: null, name: null, short: null, notify: null, vname: null, img_url: null, img_fetched_at: null, blocked: 0, updated_at: 0 };
}
