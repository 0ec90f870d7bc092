// The phone's address book as WhatsApp's app-state carries it: a linked device saves or removes a
// contact with a `contact` mutation in the critical_unblock_low collection (Baileys'
// addOrEditContact / removeContact); the phone reads it with the app-state key it shared and keeps
// the entry, so tests can see what a gateway saved.
import { decodeSyncdMutations, newLTHashState, proto } from 'baileys';
import type { Account } from '../network/accounts.js';
import { digitsOf } from '../network/jid.js';
import type { SimnetContext } from '../server/context.js';

export interface AddressBookEntry {
  /** The contact's jid, as the mutation's index names it. */
  jid: string;
  fullName: string | null;
  firstName: string | null;
  lidJid: string | null;
  savedOnPhone: boolean;
}

const COLLECTION = 'critical_unblock_low';
const books = new WeakMap<Account, Map<string, AddressBookEntry>>();

function bookOf(acc: Account): Map<string, AddressBookEntry> {
  let book = books.get(acc);
  if (!book) books.set(acc, (book = new Map()));
  return book;
}

/** The phone's saved contacts, sorted by jid. */
export function addressBook(acc: Account): AddressBookEntry[] {
  return [...bookOf(acc).values()].sort((a, b) => a.jid.localeCompare(b.jid));
}

/** Applies a linked device's contact mutations (set saves, remove deletes) to the phone's address book. */
export async function applyContactPatch(net: SimnetContext, acc: Account, collection: string, data: Uint8Array): Promise<void> {
  if (collection !== COLLECTION) return;
  const patch = proto.SyncdPatch.decode(data);
  const keyId = acc.appStateKey.id.toString('base64');
  const keys = async (id: string) => (id === keyId ? { keyData: acc.appStateKey.data } : undefined) as never;
  const book = bookOf(acc);
  // The decoded mutation does not carry its operation: decode one at a time, knowing it.
  for (const mutation of patch.mutations ?? []) {
    const remove = mutation.operation === proto.SyncdMutation.SyncdOperation.REMOVE;
    await decodeSyncdMutations(
      [mutation],
      newLTHashState(),
      keys,
      (m: { syncAction: proto.ISyncActionData; index: string[] }) => {
        const [type, jid] = m.index;
        if (type !== 'contact' || !jid || digitsOf(jid) === '') return;
        const action = m.syncAction.value?.contactAction;
        if (remove || !action) {
          book.delete(jid);
          net.counters.inc('appstate.contact.remove');
          return;
        }
        book.set(jid, {
          jid,
          fullName: action.fullName ?? null,
          firstName: action.firstName ?? null,
          lidJid: action.lidJid ?? null,
          savedOnPhone: action.saveOnPrimaryAddressbook ?? false,
        });
        net.counters.inc('appstate.contact.set');
      },
      false,
    );
  }
}
