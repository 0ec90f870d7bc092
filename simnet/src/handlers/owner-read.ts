// The account's own phone reads messages it received: its linked devices get <receipt type="read-self"> (READ_BY_ME), and
// the senders get the read receipt as from the account.
import type { BinaryNode } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { Account, ReceiptRecord } from '../network/accounts.js';
import { digitsOf, isGroupJid, lidJid, pnJid } from '../network/jid.js';
import { pushBounded } from './message-helpers.js';

export interface OwnerReadOutcome {
  /** Linked devices that got (or will get, when back online) a read-self receipt. */
  devices: number;
  /** Receipt stanzas sent per device (one per chat, and per sender in groups). */
  receipts: number;
  /** Ids the network never routed (still receipted if `chat` was given). */
  unknown: string[];
}

/** `chat`: the contact's phone or jid, or a group jid; when absent each id's chat comes from the network's message index. */
export function ownerRead(net: SimnetContext, acc: Account, ids: string[], chat?: string): OwnerReadOutcome {
  const out: OwnerReadOutcome = { devices: 0, receipts: 0, unknown: [] };
  // (chat jid, group sender jid or '') → ids, in first-seen order.
  const batches = new Map<string, { chat: string; sender?: string; ids: string[] }>();
  const chatJid = chat ? (chat.includes('@') ? chat : pnJid(digitsOf(chat))) : undefined;
  for (const id of ids) {
    const idx = net.messages.get(id);
    if (!idx) out.unknown.push(id);
    if (!idx && !chatJid) continue;
    const group = chatJid && isGroupJid(chatJid) ? chatJid : idx?.groupId;
    let c: string;
    let sender: string | undefined;
    if (group) {
      c = group;
      const s = idx ? net.registry.byNumber(idx.senderPhone) : undefined;
      sender = s ? lidJid(s.lid) : undefined;
    } else c = chatJid ?? pnJid(idx!.senderPhone);
    const key = `${c}|${sender ?? ''}`;
    let b = batches.get(key);
    if (!b) batches.set(key, (b = { chat: c, sender, ids: [] }));
    b.ids.push(id);
    if (idx) readReceiptToSender(net, acc, id);
  }
  const t = net.nowSec();
  const devices = acc.activeCompanions();
  for (const b of batches.values()) {
    const attrs: Record<string, string> = { id: b.ids[0]!, type: 'read-self', t };
    if (isGroupJid(b.chat)) {
      attrs.from = b.chat;
      attrs.participant = pnJid(acc.phone);
      if (b.sender) attrs.recipient = b.sender;
    } else {
      attrs.from = pnJid(acc.phone);
      attrs.recipient = b.chat;
    }
    const rest = b.ids.slice(1);
    const node: BinaryNode = rest.length
      ? { tag: 'receipt', attrs, content: [{ tag: 'list', attrs: {}, content: rest.map((id) => ({ tag: 'item', attrs: { id } })) }] }
      : { tag: 'receipt', attrs };
    for (const d of devices) net.deliver(d, node);
    out.receipts++;
  }
  out.devices = batches.size ? devices.length : 0;
  net.counters.inc('receipts.read-self', out.receipts);
  return out;
}

/** The sender of a message the account's phone read hears a read receipt (a linked-device sender gets it as a stanza). */
function readReceiptToSender(net: SimnetContext, reader: Account, id: string): void {
  const idx = net.messages.get(id);
  if (!idx || idx.senderPhone === reader.phone) return;
  const sender = net.registry.byNumber(idx.senderPhone);
  if (!sender) return;
  const rec: ReceiptRecord = { messageId: id, from: reader.phone, to: sender.phone, type: 'read', t: net.now(), groupId: idx.groupId };
  pushBounded(reader.receiptsSent, rec);
  pushBounded(sender.receiptsReceived, rec);
  if (idx.senderDevice === 0) return;
  const viaLid = idx.chatJid.endsWith('@lid');
  const attrs: Record<string, string> = { id, t: net.nowSec(), type: 'read' };
  if (idx.groupId) {
    attrs.from = idx.groupId;
    attrs.participant = lidJid(reader.lid);
  } else attrs.from = viaLid ? lidJid(reader.lid) : pnJid(reader.phone);
  for (const d of sender.activeCompanions()) net.deliver(d, { tag: 'receipt', attrs });
}
