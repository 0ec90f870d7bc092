// Right after pairing the phone shares the app-state sync key, then sends its history (handlers/history-sync.ts).
import { proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { LinkedDevice } from '../network/accounts.js';
import { phoneSendToOwnDevice } from '../contacts/outbound.js';
import { sendHistory } from './history-sync.js';

export async function sendBootstrap(net: SimnetContext, dev: LinkedDevice): Promise<void> {
  const acc = dev.account;
  const now = net.now();
  await phoneSendToOwnDevice(net, dev, {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE,
      appStateSyncKeyShare: {
        keys: [
          {
            keyId: { keyId: acc.appStateKey.id },
            keyData: { keyData: acc.appStateKey.data, fingerprint: { rawId: 1, currentIndex: 0, deviceIndexes: [0, dev.keyIndex] }, timestamp: now },
          },
        ],
      },
    },
  });
  // Then the history notices (an empty bootstrap when the phone holds no history).
  await sendHistory(net, dev);
}
