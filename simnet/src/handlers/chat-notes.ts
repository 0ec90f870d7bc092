// Chat notes of a WhatsApp Business account (the note a business keeps on a customer's chat), as
// WhatsApp's app-state carries them: a `note_edit` mutation in the regular_low collection, index
// ["note_edit", noteId], value noteEditAction {type, chatJid, createdAt, deleted, unstructuredContent}.
// Notes live only on the account's own devices (never sent to the customer); the phone reads its
// devices' patches with the app-state key it shared and keeps the notes, so tests can see them.
import { decodeSyncdMutations, newLTHashState, proto } from 'baileys';
import type { Account } from '../network/accounts.js';
import type { SimnetContext } from '../server/context.js';

export interface ChatNote {
  id: string;
  /** The chat the note is on, as the mutation names it. */
  chat: string;
  text: string;
  /** ms */
  createdAt: number;
}

const COLLECTION = 'regular_low';
const notesOf = new WeakMap<Account, Map<string, ChatNote>>();

function notes(acc: Account): Map<string, ChatNote> {
  let m = notesOf.get(acc);
  if (!m) notesOf.set(acc, (m = new Map()));
  return m;
}

/** The phone's chat notes, by chat. */
export function chatNotes(acc: Account): ChatNote[] {
  return [...notes(acc).values()].sort((a, b) => a.chat.localeCompare(b.chat) || a.id.localeCompare(b.id));
}

/** Applies a linked device's note mutations (set creates or edits, `deleted` removes). */
export async function applyNotePatch(net: SimnetContext, acc: Account, collection: string, data: Uint8Array): Promise<void> {
  if (collection !== COLLECTION) return;
  const patch = proto.SyncdPatch.decode(data);
  const keyId = acc.appStateKey.id.toString('base64');
  await decodeSyncdMutations(
    patch.mutations ?? [],
    newLTHashState(),
    async (id: string) => (id === keyId ? { keyData: acc.appStateKey.data } : undefined) as never,
    (m: { syncAction: proto.ISyncActionData; index: string[] }) => {
      const [type, id] = m.index;
      const action = m.syncAction.value?.noteEditAction;
      if (type !== 'note_edit' || !id || !action) return;
      if (action.deleted) {
        notes(acc).delete(id);
        net.counters.inc('appstate.note.delete');
        return;
      }
      notes(acc).set(id, { id, chat: action.chatJid ?? '', text: action.unstructuredContent ?? '', createdAt: Number(action.createdAt ?? 0) });
      net.counters.inc('appstate.note.edit');
    },
    false,
  );
}
