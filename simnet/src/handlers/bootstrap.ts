// Right after pairing the phone shares the app-state sync key and sends an (empty) initial history-sync notice.
import { deflateSync } from 'node:zlib';
import { proto } from 'baileys';
import type { Simnet } from '../server/simnet.js';
import type { LinkedDevice } from '../network/accounts.js';
import { phoneSendToOwnDevice } from '../contacts/outbound.js';

export async function sendBootstrap(net: Simnet, dev: LinkedDevice): Promise<void> {
  const acc = dev.account;
  const now = Date.now();
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
  const history = proto.HistorySync.encode({
    syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP,
    conversations: [],
    pushnames: [],
    progress: 100,
    chunkOrder: 0,
  }).finish();
  await phoneSendToOwnDevice(net, dev, {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType: proto.Message.HistorySyncType.INITIAL_BOOTSTRAP,
        chunkOrder: 0,
        progress: 100,
        initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  });
}
