// A phone answers a retry receipt as WhatsApp phones do: it re-encrypts the same message (same id) for the one device that
// could not decrypt it: over the session it has on a first retry, over a new one from the receipt's keys or the device's bundle after.
import { encodeWAMessage, proto, type BinaryNode } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child } from '../server/stanza.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import type { RetryRecord } from '../network/recent-sent.js';
import { pnJid } from '../network/jid.js';
import { directAttrs, encNode, groupAttrs } from './outbound.js';
import type { RemoteBundle } from './signal-device.js';

/** Resends per (message, device) before the phone gives up (Baileys asks at most 5 times). */
export const MAX_RESENDS = 5;

const uint = (b: Buffer | undefined): number | undefined => (b && b.length > 0 && b.length <= 6 ? b.readUIntBE(0, b.length) : undefined);

/** The <keys> of a retry receipt (identity, one-time pre-key, signed pre-key) as a bundle, or null if absent or malformed. */
export function bundleFromRetry(node: BinaryNode): RemoteBundle | null {
  const keys = child(node, 'keys');
  if (!keys) return null;
  const identity = bytesOf(child(keys, 'identity'));
  const skey = child(keys, 'skey');
  const registrationId = uint(bytesOf(child(node, 'registration')));
  const skeyId = uint(bytesOf(child(skey, 'id')));
  const skeyPub = bytesOf(child(skey, 'value'));
  const skeySig = bytesOf(child(skey, 'signature'));
  if (!identity || identity.length !== 32 || registrationId === undefined || skeyId === undefined || !skeyPub || !skeySig) return null;
  const key = child(keys, 'key');
  const keyId = uint(bytesOf(child(key, 'id')));
  const keyPub = bytesOf(child(key, 'value'));
  return {
    registrationId,
    identityKey: identity,
    signedPreKey: { id: skeyId, pub: skeyPub.length === 33 ? skeyPub.subarray(1) : skeyPub, sig: skeySig },
    preKey: keyId !== undefined && keyPub ? { id: keyId, pub: keyPub.length === 33 ? keyPub.subarray(1) : keyPub } : undefined,
  };
}

/** `sender`'s phone got a retry receipt from `dev` for a message it sent: re-encrypt and deliver, bounded. */
export async function phoneAnswerRetry(net: SimnetContext, sender: Account, dev: LinkedDevice, node: BinaryNode): Promise<RetryRecord> {
  const id = node.attrs.id ?? '';
  const count = Number(child(node, 'retry')?.attrs.count ?? 1) || 1;
  const bundle = bundleFromRetry(node);
  const rec: RetryRecord = { messageId: id, from: dev.account.phone, deviceId: dev.id, count, withKeys: !!bundle, action: 'resent', t: net.now() };
  const sent = sender.recentSent.get(id);
  if (!sent) {
    rec.action = 'unknown';
    return rec;
  }
  if (sender.recentSent.countResend(id, `${dev.account.phone}.${dev.id}`) > MAX_RESENDS) {
    rec.action = 'exhausted';
    return rec;
  }
  try {
    const message = proto.Message.decode(sent.message);
    let payload: Uint8Array;
    let attrs: Record<string, string>;
    const base = { id, t: sent.t, ...sent.attrs };
    if (sent.groupJid) {
      // Pairwise, carrying the sender key again: the device may have lost that too.
      const skdm = await sender.phoneSignal.groupSkdm(sent.groupJid, sender.lid);
      payload = encodeWAMessage({ ...message, senderKeyDistributionMessage: { groupId: sent.groupJid, axolotlSenderKeyDistributionMessage: skdm } });
      attrs = groupAttrs(sender, sent.groupJid, base);
    } else {
      const recipient = net.registry.byNumber(sent.recipientPhone ?? '');
      if (!recipient) throw new Error(`recipient ${sent.recipientPhone} gone`);
      const own = dev.account === sender;
      if (!own && dev.account !== recipient) throw new Error(`device ${dev.account.phone}.${dev.id} was not a recipient`);
      payload = own ? encodeWAMessage({ deviceSentMessage: { destinationJid: pnJid(recipient.phone), message } }) : encodeWAMessage(message);
      attrs = directAttrs(sender, recipient, base, own);
    }
    // As WhatsApp's phones (and whatsmeow) do: the first retry without keys is re-encrypted over the
    // session the phone has (the device may only have missed a step); keys in the receipt (Baileys
    // sends them from the second retry on) start a new session from them; with no session at all,
    // one is started from the device's bundle on the server.
    const sig = sender.phoneSignal;
    const reuse = !bundle && count < 2 && sig.hasSession(`${dev.account.lid}.${dev.id}`);
    if (reuse) {
      // nothing to set up
    } else if (bundle) {
      await sig.initOutgoing(dev.account.lid, dev.id, bundle);
      if (bundle.registrationId) dev.registrationId = bundle.registrationId;
    } else {
      if (!dev.signedPreKey) throw new Error('device has no signed pre-key');
      await sig.initOutgoing(dev.account.lid, dev.id, {
        registrationId: dev.registrationId,
        identityKey: dev.identityKey,
        signedPreKey: dev.signedPreKey,
        preKey: dev.preKeys.take(),
      });
    }
    const enc = await sig.encrypt(dev.account.lid, dev.id, payload);
    rec.encType = enc.type;
    const e = encNode(enc);
    e.attrs.count = String(count);
    net.deliver(dev, { tag: 'message', attrs, content: [e] });
    net.counters.inc('retry.resent');
  } catch (err) {
    rec.action = 'failed';
    rec.error = (err as Error).message;
    net.counters.inc('retry.failed');
  }
  return rec;
}
