// A WhatsApp Business phone's labels as WhatsApp's app-state carries them both ways (the `regular`
// collection): a linked device's `label_edit` mutation creates, edits or deletes a label and a
// `label_jid` mutation assigns one to a chat or takes it off (Baileys' addLabel / addChatLabel /
// removeChatLabel); the phone reads them with the app-state key it shared and keeps them. A change
// made on the phone is encoded as the phone would encode it, appended to the collection and
// announced to the linked devices with a server_sync notification, after which they fetch it.
import { decodeSyncdMutations, encodeSyncdPatch, newLTHashState, proto } from 'baileys';
import type { Account } from '../network/accounts.js';
import { digitsOf, isGroupJid, pnJid } from '../network/jid.js';
import type { SimnetContext } from '../server/context.js';

export interface PhoneLabel {
  id: string;
  name: string;
  /** WhatsApp's colour index, 0–19. */
  color: number;
  predefinedId: number | null;
}

export interface PhoneLabels {
  labels: PhoneLabel[];
  /** Chats each label is on: `chat` is the jid the mutation named. */
  associations: { labelId: string; chat: string }[];
  /** Labels put on single messages (counted; not modelled further). */
  messageLabels: number;
}

/** A label created, edited or deleted on the phone (`deleted`: true removes it and its associations). */
export interface PhoneLabelEdit {
  id: string;
  name: string;
  color?: number;
  deleted?: boolean;
}

const COLLECTION = 'regular';

interface State {
  labels: Map<string, PhoneLabel>;
  chats: Map<string, Set<string>>;
  messageLabels: number;
}

const states = new WeakMap<Account, State>();

function stateOf(acc: Account): State {
  let s = states.get(acc);
  if (!s) states.set(acc, (s = { labels: new Map(), chats: new Map(), messageLabels: 0 }));
  return s;
}

/** The phone's labels, by id, and the chats they are on. */
export function phoneLabels(acc: Account): PhoneLabels {
  const s = stateOf(acc);
  const byId = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id) || a.id.localeCompare(b.id);
  return {
    labels: [...s.labels.values()].sort(byId).map((l) => ({ ...l })),
    associations: [...s.chats.entries()]
      .flatMap(([labelId, chats]) => [...chats].map((chat) => ({ labelId, chat })))
      .sort((a, b) => byId({ id: a.labelId }, { id: b.labelId }) || a.chat.localeCompare(b.chat)),
    messageLabels: s.messageLabels,
  };
}

function keyLookup(acc: Account) {
  const keyId = acc.appStateKey.id.toString('base64');
  return async (id: string) => (id === keyId ? { keyData: acc.appStateKey.data } : undefined) as never;
}

function apply(net: SimnetContext, acc: Account, index: string[], value: proto.ISyncActionValue | null | undefined): void {
  const s = stateOf(acc);
  const [type, id, jid] = index;
  if (!id || !value) return;
  if (type === 'label_edit' && value.labelEditAction) {
    const a = value.labelEditAction;
    if (a.deleted) {
      s.labels.delete(id);
      s.chats.delete(id);
      net.counters.inc('appstate.label.delete');
      return;
    }
    const before = s.labels.get(id);
    s.labels.set(id, { id, name: a.name ?? before?.name ?? '', color: a.color ?? before?.color ?? 0, predefinedId: a.predefinedId ?? before?.predefinedId ?? null });
    net.counters.inc('appstate.label.edit');
  } else if (type === 'label_jid' && jid && value.labelAssociationAction) {
    let chats = s.chats.get(id);
    if (!chats) s.chats.set(id, (chats = new Set()));
    if (value.labelAssociationAction.labeled) chats.add(jid);
    else chats.delete(jid);
    if (chats.size === 0) s.chats.delete(id);
    net.counters.inc(`appstate.label.${value.labelAssociationAction.labeled ? 'assign' : 'unassign'}`);
  } else if (type === 'label_message' && value.labelAssociationAction) {
    s.messageLabels += value.labelAssociationAction.labeled ? 1 : -1;
  }
}

/** Reads a label patch a linked device uploaded and applies it to the phone's labels. */
export async function applyLabelPatch(net: SimnetContext, acc: Account, collection: string, data: Uint8Array): Promise<void> {
  if (collection !== COLLECTION) return;
  const patch = proto.SyncdPatch.decode(data);
  await decodeSyncdMutations(
    patch.mutations ?? [],
    newLTHashState(),
    keyLookup(acc),
    (m: { syncAction: proto.ISyncActionData; index: string[] }) => apply(net, acc, m.index, m.syncAction.value),
    false,
  );
}

/** The labels the WhatsApp Business app creates at setup (its predefined ones, ids 1–5). */
export const PREDEFINED_LABELS: readonly (PhoneLabel & { predefinedId: number })[] = [
  { id: '1', name: 'New customer', color: 1, predefinedId: 1 },
  { id: '2', name: 'New order', color: 2, predefinedId: 2 },
  { id: '3', name: 'Pending payment', color: 0, predefinedId: 3 },
  { id: '4', name: 'Paid', color: 3, predefinedId: 4 },
  { id: '5', name: 'Order complete', color: 5, predefinedId: 5 },
];

const seeded = new WeakSet<Account>();

/** A new business's phone sets up the predefined labels once, as the Business app does (patches kept for later devices). */
export async function seedPredefinedLabels(net: SimnetContext, acc: Account): Promise<void> {
  if (!acc.business || seeded.has(acc)) return;
  seeded.add(acc);
  for (const l of PREDEFINED_LABELS) {
    if (stateOf(acc).labels.has(l.id)) continue;
    await phonePatch(net, acc, ['label_edit', l.id], { labelEditAction: { name: l.name, color: l.color, predefinedId: l.predefinedId, deleted: false } });
  }
}

/** The phone creates, edits or deletes a label; linked devices get the patch. */
export function phoneEditsLabel(net: SimnetContext, acc: Account, edit: PhoneLabelEdit): Promise<{ devices: number }> {
  if (!acc.business) throw new Error(`${acc.phone} is not a business account: it has no labels`);
  if (!edit.id) throw new Error('id required');
  const before = stateOf(acc).labels.get(edit.id);
  if (edit.deleted && !before) throw new Error(`no label ${edit.id}`);
  const labelEditAction = { name: edit.name || before?.name || '', color: edit.color ?? before?.color ?? 0, deleted: !!edit.deleted };
  return phonePatch(net, acc, ['label_edit', edit.id], { labelEditAction });
}

/** The phone puts a label on a chat (`chat`: a number or a jid), or takes it off. */
export function phoneLabelsChat(net: SimnetContext, acc: Account, labelId: string, chat: string, labeled: boolean): Promise<{ devices: number }> {
  if (!acc.business) throw new Error(`${acc.phone} is not a business account: it has no labels`);
  if (!stateOf(acc).labels.has(labelId)) throw new Error(`no label ${labelId}`);
  const jid = chat.includes('@') ? chat : pnJid(digitsOf(chat));
  if (!isGroupJid(jid) && !jid.endsWith('@s.whatsapp.net') && !jid.endsWith('@lid')) throw new Error(`not a chat: ${chat}`);
  return phonePatch(net, acc, ['label_jid', labelId, jid], { labelAssociationAction: { labeled } });
}

async function phonePatch(net: SimnetContext, acc: Account, index: string[], value: proto.ISyncActionValue): Promise<{ devices: number }> {
  let state = acc.appState.get(COLLECTION);
  if (!state) acc.appState.set(COLLECTION, (state = { version: 0, patches: [] }));
  const { patch } = await encodeSyncdPatch(
    { type: COLLECTION, index, syncAction: { ...value, timestamp: net.now() }, apiVersion: 3, operation: proto.SyncdMutation.SyncdOperation.SET },
    acc.appStateKey.id.toString('base64'),
    { ...newLTHashState(), version: state.version },
    keyLookup(acc),
  );
  const data = proto.SyncdPatch.encode(patch).finish();
  state.patches.push(data);
  state.version++;
  await applyLabelPatch(net, acc, COLLECTION, data);
  const devices = acc.activeCompanions();
  const node = { tag: 'notification', attrs: { from: 's.whatsapp.net', type: 'server_sync', id: net.newId(), t: net.nowSec() }, content: [{ tag: 'collection', attrs: { name: COLLECTION, version: String(state.version) } }] };
  for (const d of devices) net.deliver(d, node);
  return { devices: devices.length };
}
