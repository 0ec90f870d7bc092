// What the real server fans out to a recipient's linked devices for view-once media: no <enc>, only
// <unavailable type="view_once"/> (the media opens on the phone only). Baileys upserts it with key.isViewOnce and no message.
import type { SimnetContext } from '../server/context.js';
import type { Account } from '../network/accounts.js';
import { lidJid, pnJid } from '../network/jid.js';

export function phoneSendViewOnceUnavailable(net: SimnetContext, sender: Account, recipient: Account, id: string, isAudio = false): string {
  const t = net.nowSec();
  for (const dev of recipient.activeCompanions()) {
    net.deliver(dev, {
      tag: 'message',
      attrs: { id, t, type: 'media', from: pnJid(sender.phone), sender_lid: lidJid(sender.lid), notify: sender.pushName },
      content: [{ tag: 'unavailable', attrs: { type: 'view_once' } }],
    });
  }
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: 0, chatJid: pnJid(sender.phone), recipientPhone: recipient.phone, isAudio, t: Number(t) });
  net.counters.inc('phone.sent.view_once_unavailable');
  return id;
}
