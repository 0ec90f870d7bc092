// What a phone (a virtual contact or the account's own phone) sends to linked devices: libsignal-encrypted <message> stanzas.
import { encodeWAMessage, proto, type BinaryNode } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { directSender, groupSender } from '../network/addressing.js';
import { lidJid, pnJid } from '../network/jid.js';
import type { Group } from '../network/groups.js';

/** Encrypts for one linked device from a phone, starting the session from the device's uploaded bundle if needed. */
export async function encryptFromPhone(sender: Account, target: LinkedDevice, plaintext: Uint8Array): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Buffer }> {
  const sig = sender.phoneSignal;
  const name = target.account.lid;
  if (!sig.hasSession(`${name}.${target.id}`)) {
    if (!target.signedPreKey) throw new Error('target device has no signed pre-key');
    // Each sender takes its own one-time pre-key; a reused one is rejected by the device ("Invalid PreKey ID").
    const preKey = target.preKeys.take();
    await sig.initOutgoing(name, target.id, {
      registrationId: target.registrationId,
      identityKey: target.identityKey,
      signedPreKey: target.signedPreKey,
      preKey,
    });
  }
  return sig.encrypt(name, target.id, plaintext);
}

export function messageTypeOf(msg: proto.IMessage): string {
  if (msg.reactionMessage) return 'reaction';
  if (msg.pollCreationMessage || msg.pollCreationMessageV2 || msg.pollCreationMessageV3 || msg.pollUpdateMessage) return 'poll';
  if (msg.imageMessage || msg.videoMessage || msg.audioMessage || msg.documentMessage || msg.stickerMessage || msg.locationMessage) return 'media';
  return 'text';
}

export interface PhoneSendOptions {
  id?: string;
  /** Extra attributes (e.g. edit="1"/"7"). */
  attrs?: Record<string, string>;
  category?: string;
}

/** A contact's phone writes a 1:1 message: the recipient's linked devices get it, the sender's own linked devices get a device-sent copy. */
export async function phoneSendDirect(net: SimnetContext, sender: Account, recipient: Account, message: proto.IMessage, opts: PhoneSendOptions = {}): Promise<string> {
  const id = opts.id ?? net.newId();
  const t = net.nowSec();
  const type = messageTypeOf(message);
  const payload = encodeWAMessage(message);
  const base: Record<string, string> = { id, t, type, ...(opts.attrs ?? {}) };
  sender.recentSent.add({ id, t, message: proto.Message.encode(message).finish(), attrs: { type, ...(opts.attrs ?? {}) }, recipientPhone: recipient.phone });
  for (const dev of recipient.activeCompanions()) {
    const enc = await encryptFromPhone(sender, dev, payload);
    net.deliver(dev, { tag: 'message', attrs: directAttrs(sender, recipient, base, false), content: [encNode(enc)] });
  }
  if (sender !== recipient) {
    const dsm = encodeWAMessage({ deviceSentMessage: { destinationJid: pnJid(recipient.phone), message } });
    for (const dev of sender.activeCompanions()) {
      const enc = await encryptFromPhone(sender, dev, dsm);
      net.deliver(dev, { tag: 'message', attrs: directAttrs(sender, recipient, base, true), content: [encNode(enc)] });
    }
  }
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: 0, chatJid: pnJid(sender.phone), recipientPhone: recipient.phone, isAudio: !!message.audioMessage, t: Number(t) });
  net.counters.inc('phone.sent');
  return id;
}

/** Stanza attributes of a phone's 1:1 message: as the recipient's devices get it, or (own) as the sender's other devices get the copy. */
export function directAttrs(sender: Account, recipient: Account, base: Record<string, string>, own: boolean): Record<string, string> {
  return own
    ? { ...base, from: pnJid(sender.phone), recipient: pnJid(recipient.phone), sender_lid: lidJid(sender.lid) }
    : { ...base, ...directSender(sender), notify: sender.pushName };
}

/** Stanza attributes of a phone's group message as member devices get it. */
export function groupAttrs(sender: Account, groupJid: string, base: Record<string, string>): Record<string, string> {
  return { ...base, from: groupJid, ...groupSender(sender), notify: sender.pushName };
}

/** The account's own phone talks to one of its linked devices (app-state key share, history notice). */
export async function phoneSendToOwnDevice(net: SimnetContext, dev: LinkedDevice, message: proto.IMessage): Promise<string> {
  const acc = dev.account;
  const id = net.newId();
  const enc = await encryptFromPhone(acc, dev, encodeWAMessage(message));
  net.deliver(dev, {
    tag: 'message',
    attrs: { id, t: net.nowSec(), type: 'text', category: 'peer', from: pnJid(acc.phone), sender_lid: lidJid(acc.lid), push_priority: 'high_force' },
    content: [encNode(enc)],
  });
  return id;
}

/** A contact's phone writes to a group: sender-key message, with the SKDM pairwise-encrypted for devices that lack it. */
export async function phoneSendGroup(net: SimnetContext, sender: Account, group: Group, message: proto.IMessage, opts: PhoneSendOptions = {}): Promise<string> {
  const id = opts.id ?? net.newId();
  const t = net.nowSec();
  const { skdm, ciphertext } = await sender.phoneSignal.encryptGroup(group.jid, sender.lid, encodeWAMessage(message));
  sender.recentSent.add({ id, t, message: proto.Message.encode(message).finish(), attrs: { type: messageTypeOf(message), ...(opts.attrs ?? {}) }, groupJid: group.jid });
  const skdmMsg = encodeWAMessage({ senderKeyDistributionMessage: { groupId: group.jid, axolotlSenderKeyDistributionMessage: skdm } });
  for (const member of group.members()) {
    const acc = net.registry.byNumber(member.phone);
    if (!acc) continue;
    for (const dev of acc.activeCompanions()) {
      if (acc === sender) continue;
      const content: BinaryNode[] = [];
      const key = `${sender.phone}>${acc.phone}.${dev.id}`;
      if (!group.skdmSent.has(key)) {
        content.push(encNode(await encryptFromPhone(sender, dev, skdmMsg)));
        group.skdmSent.add(key);
      }
      content.push({ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: Buffer.from(ciphertext) });
      net.deliver(dev, { tag: 'message', attrs: groupAttrs(sender, group.jid, { id, t, type: messageTypeOf(message), ...(opts.attrs ?? {}) }), content });
    }
  }
  net.messages.add({ id, senderPhone: sender.phone, senderDevice: 0, chatJid: group.jid, groupId: group.jid, isAudio: !!message.audioMessage, t: Number(t) });
  net.counters.inc('phone.sent.group');
  return id;
}

export function encNode(enc: { type: string; ciphertext: Uint8Array }): BinaryNode {
  return { tag: 'enc', attrs: { v: '2', type: enc.type }, content: Buffer.from(enc.ciphertext) };
}

export const APP_STATE_KEY_SHARE = proto.Message.ProtocolMessage.Type.APP_STATE_SYNC_KEY_SHARE;
