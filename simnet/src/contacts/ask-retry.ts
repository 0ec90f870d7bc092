// A phone that cannot decrypt a message from a linked device asks for it again, as WhatsApp's phones
// do: a <receipt type="retry"> to the sending device with the retry count and the phone's
// registration id, and from the second try on its keys (identity, a fresh one-time pre-key, the
// signed pre-key), so the sender can start a new session instead of re-using one the phone no
// longer follows (a sender restored from an older copy of its ratchet, after a crash).
import type { BinaryNode } from 'baileys';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { lidJid, pnJid } from '../network/jid.js';
import type { SimnetContext } from '../server/context.js';

/** Retries asked per (message, device) before the phone gives up (Baileys answers up to 5). */
export const MAX_RETRY_ASKS = 5;
/** Pending asks remembered per phone, the oldest forgotten first. */
const MAX_TRACKED = 2000;
/** whatsmeow and WhatsApp's phones send their keys from the second retry on. */
const KEYS_FROM_COUNT = 2;

const asked = new WeakMap<Account, Map<string, number>>();

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u24 = (n: number): Buffer => u32(n).subarray(1);

/**
 * `phone` failed to decrypt message `id` that `dev` sent it: ask `dev` to send it again. Returns
 * the retry count asked, or 0 when the phone has given up on this message.
 */
export function phoneAsksRetry(net: SimnetContext, phone: Account, dev: LinkedDevice, id: string, viaLid: boolean): number {
  let counts = asked.get(phone);
  if (!counts) asked.set(phone, (counts = new Map()));
  const key = `${id}:${dev.account.phone}.${dev.id}`;
  const count = (counts.get(key) ?? 0) + 1;
  if (count > MAX_RETRY_ASKS) {
    net.counters.inc('retry.asked.exhausted');
    return 0;
  }
  counts.delete(key);
  counts.set(key, count);
  if (counts.size > MAX_TRACKED) counts.delete(counts.keys().next().value!);
  const t = net.nowSec();
  const sig = phone.phoneSignal;
  const content: BinaryNode[] = [
    { tag: 'retry', attrs: { count: String(count), id, t, v: '1' } },
    { tag: 'registration', attrs: {}, content: u32(sig.registrationId) },
  ];
  if (count >= KEYS_FROM_COUNT) {
    const b = sig.issueBundle();
    content.push({
      tag: 'keys',
      attrs: {},
      content: [
        { tag: 'type', attrs: {}, content: Buffer.from([5]) },
        { tag: 'identity', attrs: {}, content: b.identity },
        ...(b.preKey ? [{ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: u24(b.preKey.id) }, { tag: 'value', attrs: {}, content: b.preKey.pub }] }] : []),
        {
          tag: 'skey',
          attrs: {},
          content: [
            { tag: 'id', attrs: {}, content: u24(b.signedPreKey.id) },
            { tag: 'value', attrs: {}, content: b.signedPreKey.pub },
            { tag: 'signature', attrs: {}, content: b.signedPreKey.sig },
          ],
        },
      ],
    });
  }
  net.deliver(dev, { tag: 'receipt', attrs: { id, type: 'retry', from: viaLid ? lidJid(phone.lid) : pnJid(phone.phone), t }, content });
  net.counters.inc('retry.asked');
  return count;
}

/** The phone decrypted `id` from `dev` after asking: forget the ask. */
export function retryAnswered(phone: Account, dev: LinkedDevice, id: string): void {
  asked.get(phone)?.delete(`${id}:${dev.account.phone}.${dev.id}`);
}
