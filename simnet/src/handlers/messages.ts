// Client <message> stanzas: nack faults and spam policy, server ack, decryption by the recipient's and own phone, fan-out to linked devices.
import { proto, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes } from '../server/stanza.js';
import { isGroupJid, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { LinkedDevice } from '../network/accounts.js';
import { describeMessage, type ReceivedMessage } from '../contacts/content.js';
import { scheduleContactReceipts } from './receipts.js';
import { handleGroupMessage } from './group-messages.js';
import { handleStatusMessage, STATUS_JID } from './status-messages.js';
import { handleNewsletterMessage } from './newsletters.js';
import { forwardTargetedResend } from './retry.js';
import { phoneAsksRetry, retryAnswered } from '../contacts/ask-retry.js';
import { banAccount, phoneDecrypt, pushBounded, rememberPoll, secretsOf, sendAck } from './message-helpers.js';

/** What the spam detector compares for "identical content": the message minus per-send context (secrets, ids). */
export function contentKey(msg: proto.IMessage): Uint8Array {
  const copy = proto.Message.fromObject(proto.Message.toObject(proto.Message.fromObject(msg)));
  copy.messageContextInfo = null;
  return proto.Message.encode(copy).finish();
}

export async function handleClientMessage(net: SimnetContext, conn: ClientConnection, node: BinaryNode): Promise<void> {
  const dev = conn.device;
  if (!dev) return;
  const sender = dev.account;
  const to = node.attrs.to ?? '';
  const id = node.attrs.id ?? '';
  net.counters.inc('messages.in');
  const nack = net.faults.takeNack(sender.phone);
  if (nack) {
    net.counters.inc('messages.nacked');
    return sendAck(net, conn, node, String(nack));
  }
  if (sender.banned) return sendAck(net, conn, node, '463');
  if (forwardTargetedResend(net, conn, dev, node)) return;
  if (isGroupJid(to)) return handleGroupMessage(net, conn, dev, node);
  if (to === STATUS_JID) return handleStatusMessage(net, conn, dev, node);
  if (to.endsWith('@newsletter')) return handleNewsletterMessage(net, conn, dev, node);
  const tp = parseJid(to);
  const recipient = tp ? net.registry.byUser(tp.user, tp.server) : undefined;
  if (!tp || !recipient) {
    net.counters.inc('messages.unknownRecipient');
    return sendAck(net, conn, node, '400');
  }
  const viaLid = tp.server === 'lid';
  let recipientCopy: proto.IMessage | null = null;
  let ownCopy: proto.IMessage | null = null;
  let error: string | undefined;
  const forwards: { target: LinkedDevice; enc: BinaryNode }[] = [];
  for (const t of childNodes(child(node, 'participants'))) {
    const p = parseJid(t.attrs.jid);
    const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    const enc = child(t, 'enc');
    if (!p || !acc || !enc) continue;
    if (p.device === 0) {
      try {
        const msg = await phoneDecrypt(acc, dev, enc);
        if (acc === sender) ownCopy = msg;
        else {
          recipientCopy = msg;
          retryAnswered(acc, dev, id);
        }
      } catch (e) {
        error = (e as Error).message;
        net.counters.inc('decrypt.failed');
        net.config.log('phone failed to decrypt', { id, to: t.attrs.jid, error });
        // The recipient's phone asks the sending device for the message again (its own phone's
        // copy is not asked for: the recipient's copy is what the conversation needs).
        if (acc !== sender) phoneAsksRetry(net, acc, dev, id, viaLid);
      }
    } else {
      const target = acc.companions.get(p.device);
      if (target && !target.removed && target !== dev) forwards.push({ target, enc });
    }
  }
  const verdict = net.spam.check(sender, recipient.phone, recipientCopy ? contentKey(recipientCopy) : null);
  if (verdict !== 'ok') {
    sendAck(net, conn, node, '463');
    if (verdict === 'banned') banAccount(net, sender);
    return;
  }
  sendAck(net, conn, node);
  const fetchMedia = (p: string) => net.media?.get(p);
  const audio = !!(recipientCopy?.audioMessage ?? ownCopy?.deviceSentMessage?.message?.audioMessage);
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: dev.id, chatJid: viaLid ? lidJid(recipient.lid) : pnJid(recipient.phone), recipientPhone: recipient.phone, isAudio: audio, t: net.now() / 1000 });
  if (recipientCopy || error) {
    const rec: ReceivedMessage = recipientCopy
      ? await describeMessage({ id, from: sender.phone, to: recipient.phone, fromDevice: dev.id, atMs: net.now(), message: recipientCopy, fetchMedia, ...secretsOf(recipient, sender) })
      : { id, from: sender.phone, to: recipient.phone, fromDevice: dev.id, t: Math.floor(net.now() / 1000), atMs: net.now(), type: 'unknown', error, raw: {} };
    if (node.attrs.edit) rec.editAttr = node.attrs.edit;
    pushBounded(recipient.received, rec);
    if (recipientCopy) rememberPoll(recipient, id, recipientCopy, pnJid(sender.phone), lidJid(sender.lid));
    net.counters.delivered(recipient.phone, id);
    net.emitReceived(rec);
    if (recipientCopy) scheduleContactReceipts(net, recipient, id);
  }
  if (ownCopy) {
    const inner = ownCopy.deviceSentMessage?.message ?? ownCopy;
    const rec = await describeMessage({ id, from: sender.phone, to: recipient.phone, fromDevice: dev.id, atMs: net.now(), message: inner, fetchMedia });
    rec.destination = ownCopy.deviceSentMessage?.destinationJid ?? undefined;
    pushBounded(sender.sentCopies, rec);
    net.counters.inc('phone.copies');
  }
  // Other linked devices (the recipient's, and the sender's own others) get the stanza re-addressed as incoming.
  const deviceIdentity = child(node, 'device-identity');
  for (const { target, enc } of forwards) {
    const own = target.account === sender;
    const attrs: Record<string, string> = {
      id,
      t: net.nowSec(),
      type: node.attrs.type ?? 'text',
      from: viaLid ? lidJid(sender.lid, dev.id) : pnJid(sender.phone, dev.id),
      notify: dev.pushName,
    };
    if (viaLid) attrs.sender_pn = pnJid(sender.phone, dev.id);
    else attrs.sender_lid = lidJid(sender.lid, dev.id);
    if (node.attrs.edit) attrs.edit = node.attrs.edit;
    if (own) attrs.recipient = viaLid ? lidJid(recipient.lid) : pnJid(recipient.phone);
    const content: BinaryNode[] = [enc];
    if (deviceIdentity && enc.attrs.type === 'pkmsg') content.push(deviceIdentity);
    net.deliver(target, { tag: 'message', attrs, content });
  }
}
