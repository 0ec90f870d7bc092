// How one socket of a session is opened and unlinked: the stored credentials loaded (an unfinished
// pairing's wiped), the Baileys socket made with the write-ahead that keeps Signal state on disk
// ahead of what it produced, and the companion removal a logout asks the network for.
import { keepArrivalOrder } from './arrival-order.js';
import { loadAuthState, type AuthStorage, type KeyWriteDeferral, type StoredAuthState } from './auth-state.js';
import { engineLogger } from './engine-logger.js';
import { oneKeyTransactionAtATime } from './key-transactions.js';
import type { Logger } from '../../logger.js';
import { installSendWriteAhead } from './send-write-ahead.js';
import { createSocket, type NetworkSettings, type SharedCaches, type SocketHooks, type WASocket } from './socket-config.js';

/** The instance's stored credentials; those of a pairing that never completed are wiped first. */
export async function loadLinkAuth(storage: AuthStorage, instanceId: string, now: () => number, deferral: KeyWriteDeferral): Promise<StoredAuthState> {
  const auth = await loadAuthState(storage, instanceId, now, deferral);
  if (!auth.restored || auth.state.creds.account) return auth;
  // Credentials of a pairing that never completed are useless (and a pairing code attempt
  // leaves `me` set, which would make Baileys try to log in): start clean.
  await storage.wipe(instanceId);
  return loadAuthState(storage, instanceId, now, deferral);
}

/** A Baileys socket over `auth`, with the key store's write-ahead and transaction order in place. */
export function openLinkSocket(
  net: NetworkSettings,
  caches: SharedCaches,
  auth: StoredAuthState,
  hooks: Omit<SocketHooks, 'auth' | 'logger'> & { engineLog: Logger },
): WASocket {
  const { engineLog, ...rest } = hooks;
  const { sock, keyTransactions } = createSocket(net, caches, { ...rest, auth: auth.state, logger: engineLogger(engineLog, { instanceId: hooks.instanceId }) });
  // What an encryption advanced is on disk before the message it made can leave.
  installSendWriteAhead(sock.signalRepository, keyTransactions, (mutations) => auth.writeAhead(mutations));
  // A send and a decryption must not commit over each other's Signal state (see the module).
  oneKeyTransactionAtATime(sock.authState.keys);
  // A chat's messages are decrypted and reported in the order they arrived (see the module).
  keepArrivalOrder(sock);
  return sock;
}

/**
 * Asks the network to remove this companion and waits for its answer (Baileys' own logout only
 * writes the request and closes at once, so a busy server may never act on it).
 */
export async function unlinkDevice(sock: WASocket, jid: string, timeoutMs: number): Promise<void> {
  await sock.query(
    {
      tag: 'iq',
      attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'md' },
      content: [{ tag: 'remove-companion-device', attrs: { jid, reason: 'user_initiated' } }],
    },
    timeoutMs,
  );
}
