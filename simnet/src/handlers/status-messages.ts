// Status posts from a linked device (`to="status@broadcast"`): sent like a group message, a
// sender-key message plus the sender key for each listed device, except that the audience is the
// stanza's own participant list (the poster's contacts), not a group. Each listed phone that can
// decrypt the post records it as received from the poster in chat `status@broadcast`.
import { proto, unpadRandomMax16, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes } from '../server/stanza.js';
import { parseJid } from '../network/jid.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { describeMessage } from '../contacts/content.js';
import { hasBlocked } from '../network/profiles.js';
import { phoneDecrypt, pushBounded, sendAck } from './message-helpers.js';

export const STATUS_JID = 'status@broadcast';

export async function handleStatusMessage(net: SimnetContext, conn: ClientConnection, dev: LinkedDevice, node: BinaryNode): Promise<void> {
  const sender = dev.account;
  const id = node.attrs.id ?? '';
  const skmsg = childNodes(node).find((c) => c.tag === 'enc' && c.attrs.type === 'skmsg');
  const audience = new Set<Account>();
  for (const t of childNodes(child(node, 'participants'))) {
    const p = parseJid(t.attrs.jid);
    const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    const enc = child(t, 'enc');
    if (!p || !acc || !enc || p.device !== 0 || acc === sender) continue;
    // A blocked poster's status is not shown to whoever blocked them.
    if (hasBlocked(acc, sender)) continue;
    try {
      const msg = await phoneDecrypt(acc, dev, enc);
      const skdm = msg.senderKeyDistributionMessage?.axolotlSenderKeyDistributionMessage;
      if (skdm) await acc.phoneSignal.processSenderKeyDistribution(STATUS_JID, sender.lid, dev.id, skdm);
      audience.add(acc);
    } catch (e) {
      net.counters.inc('decrypt.failed');
      net.config.log('phone failed to decrypt status SKDM', { id, to: t.attrs.jid, error: (e as Error).message });
    }
  }
  sendAck(net, conn, node);
  net.counters.inc('status.posts');
  if (!(skmsg?.content instanceof Uint8Array)) return;
  const fetchMedia = (p: string) => net.media?.get(p);
  for (const acc of audience) {
    let msg: proto.IMessage;
    try {
      msg = proto.Message.decode(unpadRandomMax16(await acc.phoneSignal.decryptGroup(STATUS_JID, sender.lid, dev.id, skmsg.content)));
    } catch (e) {
      net.counters.inc('decrypt.status.failed');
      net.config.log('phone failed to decrypt status post', { id, viewer: acc.phone, error: (e as Error).message });
      continue;
    }
    const rec = await describeMessage({ id, from: sender.phone, to: acc.phone, fromDevice: dev.id, atMs: net.now(), groupId: STATUS_JID, message: msg, fetchMedia });
    pushBounded(acc.received, rec);
    net.counters.inc('status.views');
    net.emitReceived(rec);
  }
}
