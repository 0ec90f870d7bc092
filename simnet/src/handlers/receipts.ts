// Receipts both ways: contacts' delivered/read/played receipts (automatic per policy or on admin call) and clients' receipts/acks.
import type { BinaryNode } from 'baileys';
import { handleMediaRetryReceipt } from '../contacts/media-retry.js';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes } from '../server/stanza.js';
import type { Account, ReceiptRecord } from '../network/accounts.js';
import { lidJid, parseJid, pnJid } from '../network/jid.js';
import { pushBounded } from './message-helpers.js';
import { handleRetryReceipt } from './retry.js';

export type ReceiptKind = 'delivered' | 'read' | 'played';

/** After a contact's phone got a message: delivered/read (and played for audio) per the contact's policy. */
export function scheduleContactReceipts(net: SimnetContext, contact: Account, messageId: string): void {
  const pol = contact.policy;
  if (pol.delivered === 'auto') net.after(pol.deliveredDelayMs, () => contactReceipt(net, contact, messageId, 'delivered'));
  if (pol.read === 'auto') {
    net.after(pol.readDelayMs, () => {
      contactReceipt(net, contact, messageId, 'read');
      if (net.messages.get(messageId)?.isAudio) contactReceipt(net, contact, messageId, 'played');
    });
  }
}

/** The contact's phone sends a receipt for a message a linked device sent it. Returns false if the message is unknown. */
/** `device`: which of the contact's devices sends it (0 = its phone); the receipt's jid names it. */
export function contactReceipt(net: SimnetContext, contact: Account, messageId: string, kind: ReceiptKind, device = 0): boolean {
  const idx = net.messages.get(messageId);
  if (!idx || idx.senderDevice === 0) return false;
  const sender = net.registry.byNumber(idx.senderPhone);
  if (!sender) return false;
  const attrs: Record<string, string> = { id: messageId, t: net.nowSec() };
  if (idx.groupId) {
    attrs.from = idx.groupId;
    attrs.participant = lidJid(contact.lid, device);
  } else {
    attrs.from = device ? idx.chatJid.replace('@', `:${device}@`) : idx.chatJid;
  }
  if (kind !== 'delivered') attrs.type = kind;
  const node: BinaryNode = { tag: 'receipt', attrs };
  for (const dev of sender.activeCompanions()) net.deliver(dev, node);
  const rec: ReceiptRecord = { messageId, from: contact.phone, to: sender.phone, type: kind, t: net.now(), groupId: idx.groupId };
  pushBounded(contact.receiptsSent, rec);
  pushBounded(sender.receiptsReceived, rec);
  net.counters.inc(`receipts.${kind}`);
  return true;
}

/** A client's <receipt> for stanzas we delivered: release them, record or forward the receipt, and ack it. */
export function handleClientReceipt(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  conn.sendNode({ tag: 'ack', attrs: { class: 'receipt', id: node.attrs.id ?? '', from: node.attrs.to ?? '', ...(node.attrs.type ? { type: node.attrs.type } : {}) } });
  // A media-retry request: the phone that sent the media answers (contacts/media-retry.ts).
  if (node.attrs.type === 'server-error') return handleMediaRetryReceipt(net, conn, node);
  if (!dev) return;
  const ids = [node.attrs.id ?? '', ...childNodes(child(node, 'list')).map((i) => i.attrs.id ?? '')].filter(Boolean);
  const type = node.attrs.type;
  // A retry receipt asks the sender for a re-send; the delivery it failed on is nacked after it.
  if (type === 'retry') return handleRetryReceipt(net, dev, node);
  if (!dev.dropAcks) for (const id of ids) net.acknowledged(dev, 'message', id, 'all');
  if (type && type !== 'read' && type !== 'read-self' && type !== 'played' && type !== 'inactive') return;
  const kind: ReceiptKind = type === 'read' || type === 'read-self' ? 'read' : type === 'played' ? 'played' : 'delivered';
  const me = dev.account;
  for (const id of ids) {
    const idx = net.messages.get(id);
    if (!idx || idx.senderPhone === me.phone) continue;
    const sender = net.registry.byNumber(idx.senderPhone);
    if (!sender) continue;
    const rec: ReceiptRecord = { messageId: id, from: me.phone, to: sender.phone, type: kind, t: net.now(), groupId: idx.groupId };
    pushBounded(sender.receiptsReceived, rec);
    net.counters.inc(`client.receipts.${kind}`);
    if (idx.senderDevice === 0) continue;
    // Sent by another linked device: it hears the receipt like from a phone.
    const to = parseJid(node.attrs.to);
    const attrs: Record<string, string> = { id, t: net.nowSec() };
    if (idx.groupId) {
      attrs.from = idx.groupId;
      attrs.participant = lidJid(me.lid);
    } else attrs.from = to?.server === 'lid' ? lidJid(me.lid) : pnJid(me.phone);
    if (kind !== 'delivered') attrs.type = kind;
    for (const d of sender.activeCompanions()) net.deliver(d, { tag: 'receipt', attrs });
  }
}

export function handleClientAck(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  if (!dev || !node.attrs.id || dev.dropAcks) return;
  net.acknowledged(dev, node.attrs.class ?? '', node.attrs.id);
}
