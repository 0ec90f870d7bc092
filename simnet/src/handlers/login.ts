// Login of a paired companion: checks the device and its Noise key, replaces an older connection, answers <success>.
import type { proto } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { lidJid } from '../network/jid.js';
import { sendBootstrap } from './bootstrap.js';

export function handleLogin(net: SimnetContext, conn: ClientConnection, clientStatic: Buffer, payload: proto.ClientPayload): void {
  const phone = String(payload.username ?? '');
  const deviceId = Number(payload.device ?? 0);
  const account = net.registry.byNumber(phone);
  const dev = account?.companions.get(deviceId);
  conn.phase = 'login';
  if (!account || !dev || dev.removed || !dev.noiseKey.equals(clientStatic)) {
    net.counters.inc('login.failed');
    conn.endWith({ tag: 'failure', attrs: { reason: '401', location: 'simnet' } });
    return;
  }
  if (account.banned) {
    net.counters.inc('login.banned');
    conn.endWith({ tag: 'failure', attrs: { reason: '403', location: 'simnet' } });
    return;
  }
  const old = dev.link as ClientConnection | null;
  const overlapping = !!old && old !== conn && old.phase !== 'closed';
  dev.maxSockets = Math.max(dev.maxSockets, overlapping ? 2 : 1);
  if (overlapping) dev.replacedSockets++;
  if (old && overlapping) {
    // Newest connection wins, as on the real network: the old one hears "replaced" (440).
    old.endWith({ tag: 'stream:error', attrs: {}, content: [{ tag: 'conflict', attrs: { type: 'replaced' } }] });
  }
  if (payload.pushName) dev.pushName = payload.pushName;
  conn.device = dev;
  conn.phase = 'online';
  // Presence subscriptions belong to a session: a new login starts without any.
  dev.presenceSubs.clear();
  dev.link = conn;
  net.counters.inc('logins');
  conn.sendNode({
    tag: 'success',
    attrs: {
      t: net.nowSec(),
      props: '1',
      abprops: '1',
      location: 'simnet',
      creation: net.nowSec(),
      lid: lidJid(account.lid, dev.id),
      display_name: account.pushName,
    },
  });
}

/** `<iq xmlns=passive><active/>`: the client is ready; push what was held, mark the end, then the phone's post-pairing messages. */
export function onActive(net: SimnetContext, conn: ClientConnection): void {
  const dev = conn.device;
  if (!dev || conn.active) return;
  conn.active = true;
  net.flushOffline(conn, dev);
  if (dev.needsBootstrap) {
    dev.needsBootstrap = false;
    void sendBootstrap(net, dev).catch((e) => net.config.log('bootstrap failed', e));
  }
}
