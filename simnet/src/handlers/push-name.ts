// A linked device changes the account's push name with an app-state patch (critical_block,
// index ["setting_pushName"]), encrypted with the app-state key the phone shared. The phone holds
// that key, so it reads the patch as WhatsApp's phone would, and contacts see the new name.
import { decodeSyncdMutations, newLTHashState, proto } from 'baileys';
import type { Account } from '../network/accounts.js';
import type { SimnetContext } from '../server/context.js';

/** Reads a patch a linked device uploaded; applies a push-name change (other patches are opaque here). */
export async function applyOwnPatch(net: SimnetContext, acc: Account, collection: string, data: Uint8Array): Promise<void> {
  if (collection !== 'critical_block') return;
  const patch = proto.SyncdPatch.decode(data);
  const keyId = acc.appStateKey.id.toString('base64');
  let name: string | null = null;
  await decodeSyncdMutations(
    patch.mutations ?? [],
    newLTHashState(),
    async (id: string) => (id === keyId ? { keyData: acc.appStateKey.data } : undefined) as never,
    (m: { syncAction: proto.ISyncActionData; index: string[] }) => {
      const pushName = m.syncAction.value?.pushNameSetting?.name;
      if (m.index[0] === 'setting_pushName' && pushName) name = pushName;
    },
    false,
  );
  if (name === null) return;
  acc.pushName = name;
  // Messages carry the sending device's name (`notify`): every device of the account now sends it.
  for (const d of acc.companions.values()) d.pushName = name;
  net.counters.inc('profile.pushName');
}
