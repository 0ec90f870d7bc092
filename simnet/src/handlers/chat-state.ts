// The phone's chat list (archived, pinned, muted, read, cleared, deleted) as WhatsApp's app-state
// carries it both ways: a linked device's patch (Baileys' chatModify) is read with the app-state
// key the phone shared, so the phone "sees" the change; a change made on the phone is encoded as
// the phone would encode it, appended to the collection, and announced to the linked devices with
// a server_sync notification, after which they fetch it.
import { decodeSyncdMutations, encodeSyncdPatch, newLTHashState, proto } from 'baileys';
import type { Account } from '../network/accounts.js';
import { digitsOf, isGroupJid, pnJid } from '../network/jid.js';
import type { SimnetContext } from '../server/context.js';

export interface ChatSettings {
  archived: boolean;
  /** ms when pinned (the action's timestamp), null when not. */
  pinned: number | null;
  /** ms until muted, -1 for ever, null when not. */
  mutedUntil: number | null;
  /** Last markChatAsRead: true (read), false (marked unread), null (never). */
  read: boolean | null;
  cleared: number;
  deleted: number;
  /** A LID chat's number, once the phone learned it. */
  pnJid?: string | null;
}

/** A change made on the phone (only the given fields). */
export interface PhoneChatChange {
  archived?: boolean;
  pinned?: boolean;
  /** ms until muted, -1 for ever, null unmutes. */
  mutedUntil?: number | null;
  read?: boolean;
  /**
   * The phone learned the number behind a LID chat (`chat` is `<digits>@lid`): WhatsApp's phone
   * syncs it to its linked devices as a pnForLidChatAction, which Baileys turns into a LID mapping.
   */
  pnForLid?: string;
}

const CHAT_COLLECTIONS = new Set(['regular_low', 'regular_high', 'regular']);
const chatsOf = new WeakMap<Account, Map<string, ChatSettings>>();

function settings(acc: Account, chat: string): ChatSettings {
  let all = chatsOf.get(acc);
  if (!all) chatsOf.set(acc, (all = new Map()));
  let s = all.get(chat);
  if (!s) all.set(chat, (s = { archived: false, pinned: null, mutedUntil: null, read: null, cleared: 0, deleted: 0 }));
  return s;
}

/** The chat's settings as the phone holds them (`chat`: a phone number or a jid). */
export function chatSettings(acc: Account, chat: string): ChatSettings {
  return { ...settings(acc, chatJidOf(chat)) };
}

function chatJidOf(chat: string): string {
  return chat.includes('@') ? chat : pnJid(digitsOf(chat));
}

function keyLookup(acc: Account) {
  const keyId = acc.appStateKey.id.toString('base64');
  return async (id: string) => (id === keyId ? { keyData: acc.appStateKey.data } : undefined) as never;
}

/** Reads a chat patch a linked device uploaded and applies it to the phone's chat list. */
export async function applyChatPatch(net: SimnetContext, acc: Account, collection: string, data: Uint8Array): Promise<void> {
  if (!CHAT_COLLECTIONS.has(collection)) return;
  const patch = proto.SyncdPatch.decode(data);
  await decodeSyncdMutations(
    patch.mutations ?? [],
    newLTHashState(),
    keyLookup(acc),
    (m: { syncAction: proto.ISyncActionData; index: string[] }) => {
      const [type, jid] = m.index;
      const v = m.syncAction.value;
      if (!jid || !v) return;
      const s = settings(acc, jid);
      const at = Number(v.timestamp ?? 0);
      if (type === 'archive' && v.archiveChatAction) s.archived = !!v.archiveChatAction.archived;
      else if (type === 'pin_v1' && v.pinAction) s.pinned = v.pinAction.pinned ? at || net.now() : null;
      else if (type === 'mute' && v.muteAction) s.mutedUntil = v.muteAction.muted ? Number(v.muteAction.muteEndTimestamp ?? -1) : null;
      else if (type === 'markChatAsRead' && v.markChatAsReadAction) s.read = !!v.markChatAsReadAction.read;
      else if (type === 'clearChat') s.cleared++;
      else if (type === 'deleteChat') s.deleted++;
      else if (type === 'pnForLidChat' && v.pnForLidChatAction) s.pnJid = v.pnForLidChatAction.pnJid ?? null;
      else return;
      net.counters.inc(`appstate.chat.${type}`);
    },
    false,
  );
}

/**
 * The phone changes a chat: one patch per field, as WhatsApp's phone sends them, appended to the
 * collection; linked devices are told with a server_sync notification and fetch the patches.
 */
export async function phoneChangesChat(net: SimnetContext, acc: Account, chat: string, change: PhoneChatChange): Promise<{ patches: number; devices: number }> {
  const jid = chatJidOf(chat);
  if (!isGroupJid(jid) && !jid.endsWith('@s.whatsapp.net') && !jid.endsWith('@lid')) throw new Error(`not a chat: ${chat}`);
  const now = net.now();
  const keyId = acc.appStateKey.id.toString('base64');
  const mutations: { collection: string; index: string[]; value: proto.ISyncActionValue; version: number }[] = [];
  const range = { lastMessageTimestamp: Math.floor(now / 1000), messages: [] };
  if (change.archived !== undefined) mutations.push({ collection: 'regular_low', index: ['archive', jid], value: { archiveChatAction: { archived: change.archived, messageRange: range } }, version: 3 });
  if (change.pinned !== undefined) mutations.push({ collection: 'regular_low', index: ['pin_v1', jid], value: { pinAction: { pinned: change.pinned } }, version: 5 });
  if (change.mutedUntil !== undefined) {
    const muted = change.mutedUntil !== null;
    mutations.push({ collection: 'regular_high', index: ['mute', jid], value: { muteAction: { muted, ...(muted ? { muteEndTimestamp: change.mutedUntil } : {}) } }, version: 2 });
  }
  if (change.read !== undefined) mutations.push({ collection: 'regular_low', index: ['markChatAsRead', jid], value: { markChatAsReadAction: { read: change.read, messageRange: range } }, version: 3 });
  if (change.pnForLid !== undefined) {
    if (!jid.endsWith('@lid')) throw new Error(`pnForLid needs a LID chat, not ${chat}`);
    mutations.push({ collection: 'regular', index: ['pnForLidChat', jid], value: { pnForLidChatAction: { pnJid: pnJid(digitsOf(change.pnForLid)) } }, version: 1 });
  }
  const touched = new Set<string>();
  for (const m of mutations) {
    let state = acc.appState.get(m.collection);
    if (!state) acc.appState.set(m.collection, (state = { version: 0, patches: [] }));
    const { patch } = await encodeSyncdPatch(
      { type: m.collection as 'regular_low', index: m.index, syncAction: { ...m.value, timestamp: now }, apiVersion: m.version, operation: proto.SyncdMutation.SyncdOperation.SET },
      keyId,
      { ...newLTHashState(), version: state.version },
      keyLookup(acc),
    );
    state.patches.push(proto.SyncdPatch.encode(patch).finish());
    state.version++;
    await applyChatPatch(net, acc, m.collection, state.patches[state.patches.length - 1]!);
    touched.add(m.collection);
  }
  const devices = acc.activeCompanions();
  for (const name of touched) {
    const version = String(acc.appState.get(name)?.version ?? 0);
    const node = { tag: 'notification', attrs: { from: 's.whatsapp.net', type: 'server_sync', id: net.newId(), t: net.nowSec() }, content: [{ tag: 'collection', attrs: { name, version } }] };
    for (const d of devices) net.deliver(d, node);
  }
  return { patches: mutations.length, devices: devices.length };
}
