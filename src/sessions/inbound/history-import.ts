// History sync at pairing, the gateway's side: the phone sends a newly linked device its recent
// chats and messages (Baileys' messaging-history.set, one per notification: bootstrap, RECENT
// chunks, push names). For an instance that opted in (013-history-sync), each set is imported into
// the stored copy: chats (names, unread, archived, pinned, mute, ephemeral), contacts (names, push
// names) and the messages within the instance's window — older ones are dropped, as are those past
// the retention settings. Sets are imported one after the other, off the receive path, in
// transactions of a few hundred rows with a yield between them, so live commits interleave and a
// 20,000-message history never sits in memory at once (Baileys hands it over chunk by chunk, and
// the session takes each chunk before Baileys' event buffer would gather them all).
// With history_webhook on, newly imported messages also go to the received webhook, marked
// `fromHistory: true` (and reported once: a message reported live before is not reported again).
import { performance } from 'node:perf_hooks';
import type { Chat, Contact, WAMessage } from 'baileys';
import type { EventSink, GatewayEvent } from '../../events/types.js';
import type { Instance } from '../../domain/instance.js';
import { historySettingsOf } from '../../domain/history.js';
import type { ChatMessageRow } from '../../store/schema.js';
import type { HistoryBatch, HistoryChat, HistoryImport } from '../../store/chats-repo.js';
import { NAME_MAX_CHARS } from '../../store/chats-repo.js';
import { chatMessageOf } from './chat-recorder.js';
import { toReceivedCallback, type IncomingContext } from './incoming.js';
import { groupIdOf, isGroup, isLid, normalJid, userOf } from '../jids.js';

/** What Baileys' messaging-history.set carries (the fields used here). */
export interface HistorySet {
  chats: Chat[];
  contacts: Contact[];
  messages: WAMessage[];
  syncType?: number | null;
  progress?: number | null;
}

interface HistoryImportDeps {
  instanceId: string;
  store: { chats: HistoryImport; instances: { find(id: string): Promise<Instance | undefined> } };
  events: EventSink;
  now(): number;
  /** The session's incoming context (phone numbers from LIDs, group names). */
  context(): IncomingContext;
  retention: { maxAgeMs: number; maxPerChat: number };
  failed(err: unknown, what: string): void;
  imported?(summary: HistoryImportSummary): void;
}

interface HistoryImportSummary {
  syncType: number | null;
  progress: number | null;
  chats: number;
  messages: number;
  /** Messages not stored before (the rest were already there). */
  fresh: number;
  /** Messages outside the window. */
  dropped: number;
  ms: number;
}

/** Rows per transaction: small enough that a live commit never waits long behind one. */
const SLICE = 400;
const DAY_MS = 86_400_000;

export class HistoryImporter {
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HistoryImportDeps) {}

  /** Queues a set; never waits (Baileys emits it from its receive path). */
  take(set: HistorySet): void {
    this.queue = this.queue.then(() => this.importSet(set)).catch((err: unknown) => this.deps.failed(err, 'import history'));
  }

  /** Resolves when every queued set is imported (stop() waits for it). */
  idle(): Promise<void> {
    return this.queue;
  }

  private async importSet(set: HistorySet): Promise<void> {
    const started = performance.now();
    const instance = await this.deps.store.instances.find(this.deps.instanceId);
    if (!instance) return;
    const settings = historySettingsOf(instance);
    if (!settings.enabled) return;
    const now = this.deps.now();
    const cutoff = now - Math.min(settings.days * DAY_MS, this.deps.retention.maxAgeMs);
    const ctx: IncomingContext = {
      ...this.deps.context(),
      // Old messages are listed, not downloaded: their files are long gone from the media host.
      media: async () => new Map(),
      // A bare number in an old chat is not an answer to a list this pairing never sent.
      latestList: async () => undefined,
    };

    const rows: ChatMessageRow[] = [];
    const events = new Map<string, GatewayEvent>();
    const lastByChat = new Map<string, { id: string; at: number; fromMe: boolean; jid: string; isGroup: boolean }>();
    let dropped = 0;
    const inWindow = set.messages.filter((m) => {
      const at = Number(m.messageTimestamp ?? 0) * 1000;
      const keep = at >= cutoff && at <= now + DAY_MS;
      if (!keep) dropped++;
      return keep;
    });
    for (const msg of capPerChat(inWindow, this.deps.retention.maxPerChat)) {
      if (!msg.message || msg.messageStubType) continue;
      const event = await toReceivedCallback(msg, ctx, { fromApi: false });
      if (!event) continue;
      const entry = chatMessageOf(this.deps.instanceId, event, msg, false);
      if (!entry) continue;
      rows.push(entry.message);
      if (settings.webhook) events.set(event.messageId, { ...event, fromHistory: true });
      const m = entry.message;
      const last = lastByChat.get(m.chat_id);
      if (!last || m.at > last.at) lastByChat.set(m.chat_id, { id: m.message_id, at: m.at, fromMe: m.from_me === 1, jid: entry.chat.jid, isGroup: entry.chat.isGroup });
    }

    const chats = new Map<string, HistoryChat>();
    for (const chat of set.chats) {
      const jid = chat.id ? normalJid(chat.id) : '';
      if (!jid || jid === 'status@broadcast' || jid.endsWith('@broadcast') || jid.endsWith('@newsletter')) continue;
      const group = isGroup(jid);
      const chatId = group ? groupIdOf(jid) : await ctx.phoneOf(jid);
      const last = lastByChat.get(chatId);
      const activeAt = Number(chat.conversationTimestamp ?? 0) * 1000;
      // Only chats with something in the window: an old conversation stays out of the list.
      if (!last && activeAt < cutoff) continue;
      chats.set(chatId, {
        chatId,
        jid,
        isGroup: group,
        name: bounded(chat.name ?? chat.displayName),
        last: last ? { id: last.id, at: last.at, fromMe: last.fromMe } : null,
        unread: unreadOf(chat),
        archived: chat.archived === true,
        // History carries seconds where app-state patches carry ms; the copy keeps ms.
        pinnedAt: chat.pinned ? toMs(Number(chat.pinned)) : 0,
        mutedUntil: chat.muteEndTime ? (Number(chat.muteEndTime) < 0 ? -1 : toMs(Number(chat.muteEndTime))) : null,
        ephemeral: chat.ephemeralExpiration || null,
      });
    }
    // Messages of a chat the set does not describe still make it appear.
    for (const [chatId, last] of lastByChat) {
      if (chats.has(chatId)) continue;
      chats.set(chatId, { chatId, jid: last.jid, isGroup: last.isGroup, name: null, last: { id: last.id, at: last.at, fromMe: last.fromMe }, unread: 0, archived: false, pinnedAt: 0, mutedUntil: null, ephemeral: null });
    }

    const contacts: HistoryBatch['contacts'][number][] = [];
    for (const c of set.contacts) {
      const entry = await this.contact(c, ctx);
      if (entry) contacts.push(entry);
    }

    let fresh: string[] = [];
    const allChats = [...chats.values()];
    // The first slice carries the chats and contacts (also when the set has no message in the window).
    for (let i = 0; i === 0 || i < rows.length; i += SLICE) {
      const batch: HistoryBatch = {
        instanceId: this.deps.instanceId,
        at: now,
        chats: i === 0 ? allChats : [],
        contacts: i === 0 ? contacts : [],
        messages: rows.slice(i, i + SLICE),
      };
      fresh = fresh.concat(await this.deps.store.chats.importHistory(batch));
      // Let live work (receipts, commits) run between slices.
      await new Promise((r) => setImmediate(r));
    }
    if (settings.webhook && fresh.length > 0) {
      for (let i = 0; i < fresh.length; i += SLICE) {
        const ids = fresh.slice(i, i + SLICE).filter((id) => events.has(id));
        await this.deps.events.emit(this.deps.instanceId, ids.map((id) => events.get(id)!), ids);
      }
    }
    this.deps.imported?.({ syncType: set.syncType ?? null, progress: set.progress ?? null, chats: chats.size, messages: rows.length, fresh: fresh.length, dropped, ms: Math.round(performance.now() - started) });
  }

  private async contact(c: Contact, ctx: IncomingContext): Promise<HistoryBatch['contacts'][number] | null> {
    const pnJid = c.phoneNumber ?? (c.id && !isLid(c.id) ? c.id : undefined);
    const lidJid = c.lid ?? (c.id && isLid(c.id) ? c.id : undefined);
    if (!pnJid && !lidJid) return null;
    if (pnJid && (isGroup(pnJid) || pnJid.endsWith('@broadcast') || pnJid.endsWith('@newsletter'))) return null;
    const patch: HistoryBatch['contacts'][number]['patch'] = {};
    if (c.name) patch.name = bounded(c.name);
    if (c.notify) patch.notify = bounded(c.notify);
    if (c.verifiedName) patch.vname = bounded(c.verifiedName);
    if (!patch.name && !patch.notify && !patch.vname) return null;
    if (lidJid) patch.lid = `${userOf(lidJid)}@lid`;
    const phone = pnJid ? userOf(pnJid) : await ctx.phoneOf(lidJid);
    return { phone, patch };
  }
}

/** The newest `max` messages of each chat (retention's per-chat cap), in their original order. */
function capPerChat(messages: readonly WAMessage[], max: number): WAMessage[] {
  if (max <= 0) return [...messages];
  const byChat = new Map<string, WAMessage[]>();
  for (const m of messages) {
    const chat = m.key.remoteJid ?? '';
    let list = byChat.get(chat);
    if (!list) byChat.set(chat, (list = []));
    list.push(m);
  }
  const keep = new Set<WAMessage>();
  for (const list of byChat.values()) {
    const newest = list.length <= max ? list : [...list].sort((a, b) => Number(b.messageTimestamp ?? 0) - Number(a.messageTimestamp ?? 0)).slice(0, max);
    for (const m of newest) keep.add(m);
  }
  return messages.filter((m) => keep.has(m));
}

/** The phone's count; a chat marked unread with nothing counted is -1, as app-state marks it. */
function unreadOf(chat: Chat): number {
  const n = typeof chat.unreadCount === 'number' ? chat.unreadCount : 0;
  if (n < 0 || (n === 0 && chat.markedAsUnread)) return -1;
  return n;
}

/** Seconds (what history carries) to ms; values already in ms are kept. */
function toMs(t: number): number {
  return t < 100_000_000_000 ? t * 1000 : t;
}

function bounded(name: string | null | undefined): string | null {
  return name ? name.slice(0, NAME_MAX_CHARS) : null;
}
