// Group sends from a linked device: SKDMs to member devices, the sender-key message decrypted by member phones, fan-out, receipts.
import { proto, unpadRandomMax16, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes } from '../server/stanza.js';
import { lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { describeMessage } from '../contacts/content.js';
import { phoneDecrypt, pushBounded, rememberPoll, secretsOf, sendAck } from './message-helpers.js';
import { scheduleContactReceipts } from './receipts.js';

export async function handleGroupMessage(net: SimnetContext, conn: ClientConnection, dev: LinkedDevice, node: BinaryNode): Promise<void> {
  const sender = dev.account;
  const id = node.attrs.id ?? '';
  const group = net.groups.get(node.attrs.to ?? '');
  if (!group) return sendAck(net, conn, node, '404');
  // A community's parent group is no chat: the server refuses it (its announcement group is where admins post).
  if (group.community) return sendAck(net, conn, node, '420');
  const member = group.participants.get(sender.phone);
  if (!member) return sendAck(net, conn, node, '403');
  if (group.announce && !member.role) return sendAck(net, conn, node, '403');
  const skmsg = childNodes(node).find((c) => c.tag === 'enc' && c.attrs.type === 'skmsg');
  const pairwise = new Map<LinkedDevice, BinaryNode>();
  // SKDMs for phones first: a phone can only read the sender-key message once it holds the sender key.
  for (const t of childNodes(child(node, 'participants'))) {
    const p = parseJid(t.attrs.jid);
    const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    const enc = child(t, 'enc');
    if (!p || !acc || !enc) continue;
    if (p.device === 0) {
      try {
        const msg = await phoneDecrypt(acc, dev, enc);
        const skdm = msg.senderKeyDistributionMessage?.axolotlSenderKeyDistributionMessage;
        if (skdm) await acc.phoneSignal.processSenderKeyDistribution(group.jid, sender.lid, dev.id, skdm);
      } catch (e) {
        net.counters.inc('decrypt.failed');
        net.config.log('phone failed to decrypt SKDM', { id, to: t.attrs.jid, error: (e as Error).message });
      }
    } else {
      const target = acc.companions.get(p.device);
      if (target && !target.removed && target !== dev) pairwise.set(target, enc);
    }
  }
  sendAck(net, conn, node);
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: dev.id, chatJid: group.jid, groupId: group.jid, isAudio: false, t: net.now() / 1000 });
  net.counters.inc('groups.messages');
  const fetchMedia = (p: string) => net.media?.get(p);
  if (skmsg?.content instanceof Uint8Array) {
    for (const m of group.members()) {
      const acc = net.registry.byNumber(m.phone);
      if (!acc) continue;
      let msg: proto.IMessage;
      try {
        msg = proto.Message.decode(unpadRandomMax16(await acc.phoneSignal.decryptGroup(group.jid, sender.lid, dev.id, skmsg.content)));
      } catch (e) {
        net.counters.inc('decrypt.group.failed');
        net.config.log('phone failed to decrypt group message', { id, member: acc.phone, error: (e as Error).message });
        continue;
      }
      const rec = await describeMessage({ id, from: sender.phone, to: acc.phone, fromDevice: dev.id, atMs: net.now(), groupId: group.jid, message: msg, fetchMedia, ...secretsOf(acc, sender) });
      if (node.attrs.edit) rec.editAttr = node.attrs.edit;
      if (acc === sender) {
        pushBounded(sender.sentCopies, { ...rec, destination: group.jid });
        continue;
      }
      pushBounded(acc.received, rec);
      rememberPoll(acc, id, msg, pnJid(sender.phone), lidJid(sender.lid));
      net.counters.delivered(acc.phone, id);
      net.emitReceived(rec);
      scheduleContactReceipts(net, acc, id);
    }
  }
  // Member linked devices (and the sender's other devices) get the stanza as an incoming group message.
  const deviceIdentity = child(node, 'device-identity');
  const attrs: Record<string, string> = {
    id,
    t: net.nowSec(),
    type: node.attrs.type ?? 'text',
    from: group.jid,
    participant: lidJid(sender.lid, dev.id),
    participant_pn: pnJid(sender.phone, dev.id),
    addressing_mode: 'lid',
    notify: dev.pushName,
  };
  if (node.attrs.edit) attrs.edit = node.attrs.edit;
  const targets = new Set<LinkedDevice>(pairwise.keys());
  for (const m of group.members()) {
    const acc: Account | undefined = net.registry.byNumber(m.phone);
    for (const d of acc?.activeCompanions() ?? []) if (d !== dev) targets.add(d);
  }
  for (const target of targets) {
    const content: BinaryNode[] = [];
    const pw = pairwise.get(target);
    if (pw) content.push(pw);
    if (skmsg) content.push(skmsg);
    if (pw && deviceIdentity && pw.attrs.type === 'pkmsg') content.push(deviceIdentity);
    net.deliver(target, { tag: 'message', attrs, content });
  }
}
