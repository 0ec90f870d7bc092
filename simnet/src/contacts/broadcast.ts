// A contact's phone sends to one of its broadcast lists: each recipient gets a pairwise-encrypted copy whose stanza says
// from="<list>@broadcast" participant="<sender>" (as the real server routes list messages; whatsmeow and Baileys read
// the chat as the list and the sender as the participant; Baileys' getChatId files it under the participant's chat).
import { createHash } from 'node:crypto';
import { encodeWAMessage, type proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { Account } from '../network/accounts.js';
import { lidJid, pnJid } from '../network/jid.js';
import { encNode, encryptFromPhone, messageTypeOf, type PhoneSendOptions } from './outbound.js';

/** A stable list id per sender (digits, like WhatsApp's list ids): tests need not name one. */
export function defaultBroadcastListId(sender: Account): string {
  const h = createHash('sha256').update(`list:${sender.phone}`).digest();
  return String(1_600_000_000 + (h.readUInt32BE(0) % 100_000_000));
}

export async function phoneSendBroadcastList(
  net: SimnetContext,
  sender: Account,
  recipient: Account,
  message: proto.IMessage,
  listId: string,
  opts: PhoneSendOptions = {},
): Promise<string> {
  const id = opts.id ?? net.newId();
  const t = net.nowSec();
  const listJid = `${listId}@broadcast`;
  const payload = encodeWAMessage(message);
  for (const dev of recipient.activeCompanions()) {
    const enc = await encryptFromPhone(sender, dev, payload);
    net.deliver(dev, {
      tag: 'message',
      attrs: {
        id,
        t,
        type: messageTypeOf(message),
        ...(opts.attrs ?? {}),
        from: listJid,
        participant: pnJid(sender.phone),
        participant_lid: lidJid(sender.lid),
        notify: sender.pushName,
      },
      content: [encNode(enc)],
    });
  }
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: 0, chatJid: listJid, recipientPhone: recipient.phone, isAudio: !!message.audioMessage, t: Number(t) });
  net.counters.inc('phone.sent.broadcast');
  return id;
}
