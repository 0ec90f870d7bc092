// Retry receipts: a linked device could not decrypt a message and asks its sender to re-encrypt it. The server routes the
// receipt to the sender: a simnet phone answers itself (contacts/resend.ts); a linked device hears it as a <receipt type="retry">.
// The linked device's targeted re-send (a <message> with one <enc count=..>) is forwarded to the asking device.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes } from '../server/stanza.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { isGroupJid, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { RetryRecord } from '../network/recent-sent.js';
import { phoneAnswerRetry } from '../contacts/resend.js';
import { pushBounded, sendAck } from './message-helpers.js';

/** Per sending phone: retries are answered one at a time, in the order they came. */
const chains = new WeakMap<Account, Promise<void>>();

export function handleRetryReceipt(net: SimnetContext, dev: LinkedDevice, node: BinaryNode): void {
  const id = node.attrs.id ?? '';
  net.counters.inc('retry.received');
  const idx = net.messages.get(id);
  if (!idx) {
    net.counters.inc('retry.unknown');
    return;
  }
  const sender = net.registry.byNumber(idx.senderPhone);
  if (!sender) return;
  if (idx.senderDevice !== 0) return relayRetry(net, dev, sender, idx.senderDevice, idx.chatJid, idx.groupId, node);
  const prev = chains.get(sender) ?? Promise.resolve();
  const next = prev
    .then(async () => {
      const rec = await phoneAnswerRetry(net, sender, dev, node);
      if (rec.action !== 'resent') net.counters.inc(`retry.${rec.action}`);
      pushBounded(sender.retryLog, rec, 1000);
    })
    .catch((e) => net.config.log('retry handling failed', e));
  chains.set(sender, next);
}

/** The message came from another linked device: it gets the receipt from the asking device, as from the real server. */
function relayRetry(net: SimnetContext, asking: LinkedDevice, sender: Account, senderDevice: number, chatJid: string, groupId: string | undefined, node: BinaryNode): void {
  const target = sender.companions.get(senderDevice);
  const rec: RetryRecord = {
    messageId: node.attrs.id ?? '',
    from: asking.account.phone,
    deviceId: asking.id,
    count: Number(child(node, 'retry')?.attrs.count ?? 1) || 1,
    withKeys: !!child(node, 'keys'),
    action: 'relayed',
    t: net.now(),
  };
  pushBounded(sender.retryLog, rec, 1000);
  if (!target || target.removed) return;
  const viaLid = parseJid(chatJid)?.server === 'lid' || !!groupId;
  const askingJid = viaLid ? lidJid(asking.account.lid, asking.id) : pnJid(asking.account.phone, asking.id);
  const attrs: Record<string, string> = { id: rec.messageId, type: 'retry', t: node.attrs.t ?? net.nowSec() };
  if (groupId) {
    attrs.from = groupId;
    attrs.participant = askingJid;
  } else if (asking.account === sender) {
    // Another device of the sender's own account could not read the device-sent copy.
    attrs.from = askingJid;
    attrs.recipient = chatJid;
  } else {
    // Baileys finds its recent message by (chat, id): the chat as it wrote it, the asking device as participant.
    attrs.from = chatJid;
    attrs.participant = askingJid;
  }
  net.deliver(target, { tag: 'receipt', attrs, content: childNodes(node) });
  net.counters.inc('retry.relayed');
}

/**
 * A linked device's re-send after a retry receipt: an <enc> (with count) straight under <message>, addressed to the asking
 * device (1:1: to=device jid; group: to=group, participant=device jid). Returns false if the stanza is not one.
 */
export function forwardTargetedResend(net: SimnetContext, conn: ClientConnection, dev: LinkedDevice, node: BinaryNode): boolean {
  const enc = child(node, 'enc');
  // rc14's re-send also carries a <participants><to jid=device> with a second encryption for the same device; the direct
  // <enc count=..> is the re-send proper, and the only one forwarded.
  if (!enc || node.attrs.category === 'peer') return false;
  const to = node.attrs.to ?? '';
  const group = isGroupJid(to) ? net.groups.get(to) : undefined;
  const targetJid = group ? parseJid(node.attrs.participant) : parseJid(to);
  if (!targetJid || targetJid.device === 0) return false;
  const acc = net.registry.byUser(targetJid.user, targetJid.server);
  const target = acc?.companions.get(targetJid.device);
  sendAck(net, conn, node);
  if (!acc || !target || target.removed) return true;
  const sender = dev.account;
  const viaLid = targetJid.server === 'lid';
  const attrs: Record<string, string> = { id: node.attrs.id ?? '', t: net.nowSec(), type: node.attrs.type ?? 'text', notify: dev.pushName };
  if (group) {
    Object.assign(attrs, { from: group.jid, participant: lidJid(sender.lid, dev.id), participant_pn: pnJid(sender.phone, dev.id), addressing_mode: 'lid' });
  } else {
    attrs.from = viaLid ? lidJid(sender.lid, dev.id) : pnJid(sender.phone, dev.id);
    if (viaLid) attrs.sender_pn = pnJid(sender.phone, dev.id);
    else attrs.sender_lid = lidJid(sender.lid, dev.id);
    if (acc === sender && node.attrs.recipient) attrs.recipient = node.attrs.recipient;
  }
  if (node.attrs.edit) attrs.edit = node.attrs.edit;
  const content: BinaryNode[] = [enc];
  const deviceIdentity = child(node, 'device-identity');
  if (deviceIdentity && enc.attrs.type === 'pkmsg') content.push(deviceIdentity);
  net.deliver(target, { tag: 'message', attrs, content });
  net.counters.inc('retry.forwarded');
  return true;
}
