// What the account's phone holds before a companion is linked: chats with messages, and the push
// names it has seen. Tests seed it (admin API: "this phone has N chats with M messages each, spread
// over D days"); handlers/history-sync.ts sends it to a newly linked device as WhatsApp's history
// sync does. Kept per account in a WeakMap, so accounts without history carry nothing.
import { randomBytes } from 'node:crypto';
import type { Account } from './accounts.js';
import { pnJid } from './jid.js';

export interface PhoneHistoryMessage {
  id: string;
  fromMe: boolean;
  /** Seconds since the epoch, as WhatsApp's messageTimestamp. */
  t: number;
  text: string;
  /** Groups: the author's phone (absent for the account's own messages). */
  author?: string;
}

export interface PhoneHistoryChat {
  /** `<digits>@s.whatsapp.net` or `<id>@g.us`. */
  jid: string;
  /** Address-book name (1:1) or subject (group). */
  name: string;
  unread: number;
  archived: boolean;
  /** Seconds when pinned; 0 = not pinned. */
  pinned: number;
  /** ms until muted; -1 for ever; 0 = not muted. */
  muteEndTime: number;
  /** Disappearing-messages timer (s); 0 = off. */
  ephemeral: number;
  /** Oldest first. */
  messages: PhoneHistoryMessage[];
}

export interface PhoneHistory {
  chats: PhoneHistoryChat[];
  pushNames: { phone: string; pushName: string }[];
  /** Chats per RECENT chunk: a large history arrives in several notifications, as on WhatsApp. */
  chunkChats: number;
}

/** "This phone has N chats with M messages each, timestamps spread over D days." */
export interface HistorySeedRequest {
  chats: number;
  messagesPerChat: number;
  /** The newest chat's last message is now; the oldest chat's is `days` ago. */
  days: number;
  /** How many of the chats are groups (the rest are 1:1). */
  groups?: number;
  /** Seconds between a chat's consecutive messages (default 60). */
  messageSpacingSec?: number;
  /** Chats per RECENT chunk (default 50). */
  chunkChats?: number;
  /** First digits of the generated contacts' numbers (default 5521970000000). */
  firstPhone?: number;
}

/** What the test needs to know of a seeded history. */
export interface HistorySummaryChat {
  jid: string;
  /** The API's chat id: the contact's digits, or `<id>-group`. */
  chatId: string;
  name: string;
  isGroup: boolean;
  unread: number;
  archived: boolean;
  pinned: boolean;
  /** The chat's messages, oldest first (ms timestamps). */
  messages: { id: string; at: number; fromMe: boolean; text: string }[];
}

export interface HistorySummary {
  chats: HistorySummaryChat[];
  pushNames: number;
  /** RECENT notifications the history will take. */
  chunks: number;
}

/** Bounds a seeded history (simnet keeps it in memory). */
export const MAX_HISTORY_CHATS = 5_000;
export const MAX_HISTORY_MESSAGES = 200_000;

const histories = new WeakMap<Account, PhoneHistory>();

export function phoneHistory(acc: Account): PhoneHistory | undefined {
  return histories.get(acc);
}

export function setPhoneHistory(acc: Account, history: PhoneHistory | null): void {
  if (history) histories.set(acc, history);
  else histories.delete(acc);
}

/** Builds a deterministic history: chat i's newest message is i/(N-1) of `days` ago. */
export function generateHistory(req: HistorySeedRequest, nowMs: number): PhoneHistory {
  const n = req.chats;
  const groups = Math.min(req.groups ?? 0, n);
  const spacing = req.messageSpacingSec ?? 60;
  const firstPhone = req.firstPhone ?? 5521970000000;
  const nowSec = Math.floor(nowMs / 1000);
  const chats: PhoneHistoryChat[] = [];
  const pushNames: PhoneHistory['pushNames'] = [];
  const every = groups > 0 ? Math.max(1, Math.floor(n / groups)) : 0;
  let groupCount = 0;
  for (let i = 0; i < n; i++) {
    const newest = nowSec - Math.round((n > 1 ? i / (n - 1) : 0) * req.days * 86_400);
    // Groups are spread among the chats (every k-th), not all at the newest end.
    const isGroup = every > 0 && i % every === 0 && groupCount < groups;
    if (isGroup) groupCount++;
    const phone = String(firstPhone + i);
    const jid = isGroup ? `1203639${String(firstPhone + i).slice(-11)}@g.us` : pnJid(phone);
    const messages: PhoneHistoryMessage[] = [];
    for (let m = req.messagesPerChat - 1; m >= 0; m--) {
      const fromMe = m % 3 === 1;
      messages.push({
        id: `3A${randomBytes(9).toString('hex').toUpperCase()}`,
        fromMe,
        t: newest - m * spacing,
        text: `history ${i}.${req.messagesPerChat - 1 - m}`,
        ...(isGroup && !fromMe ? { author: String(firstPhone + n + (m % 5)) } : {}),
      });
    }
    chats.push({
      jid,
      name: isGroup ? `Group ${i}` : `Contact ${i}`,
      // Unread only where the newest message is not ours (as on a phone).
      unread: i % 4 === 0 && messages.length > 0 && !messages[messages.length - 1]!.fromMe ? 1 + (i % 3) : 0,
      archived: i % 10 === 3,
      pinned: i % 25 === 0 ? newest : 0,
      muteEndTime: i % 15 === 7 ? -1 : 0,
      ephemeral: i % 20 === 9 ? 604_800 : 0,
      messages,
    });
    if (!isGroup) pushNames.push({ phone, pushName: `push ${i}` });
  }
  return { chats, pushNames, chunkChats: req.chunkChats ?? 50 };
}

export function summarize(h: PhoneHistory): HistorySummary {
  return {
    chats: h.chats.map((c) => {
      const isGroup = c.jid.endsWith('@g.us');
      return {
        jid: c.jid,
        chatId: isGroup ? `${c.jid.split('@')[0]!}-group` : c.jid.split('@')[0]!,
        name: c.name,
        isGroup,
        unread: c.unread,
        archived: c.archived,
        pinned: c.pinned > 0,
        messages: c.messages.map((m) => ({ id: m.id, at: m.t * 1000, fromMe: m.fromMe, text: m.text })),
      };
    }),
    pushNames: h.pushNames.length,
    chunks: Math.ceil(h.chats.length / h.chunkChats),
  };
}
