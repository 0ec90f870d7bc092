// What WhatsApp encrypts with an earlier message's secret (messageContextInfo.messageSecret): a
// vote on a poll, an answer to an event, an event's edit. The key is derived from the secret, the
// original message's id and sender and the modifier's jid, as Baileys' decryptPollVote and
// decryptEventResponse read it; only a holder of that message can build or read one.
import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import type { proto, WAMessageKey } from 'baileys';
import { errors } from '../../../errors.js';
import type { ContentTools } from './parts.js';

export type SecretUseCase = 'Poll Vote' | 'Event Response' | 'Event Edit';

/** What an encrypted modification of `target` is keyed with: the jids WhatsApp signs it with. */
export interface SecretTarget {
  key: WAMessageKey;
  message: proto.IMessage;
  secret: Uint8Array;
  /** The original message's sender (no device part). */
  creatorJid: string;
  /** This instance, in the same address space as the creator (its LID when the creator is a LID). */
  modifierJid: string;
}

/** AES-256-GCM under a key made from the secret; votes and event answers also bind the id and modifier as AAD. */
export function encryptWithSecret(useCase: SecretUseCase, t: SecretTarget, plaintext: Uint8Array): { encPayload: Buffer; encIv: Buffer } {
  const targetId = t.key.id ?? '';
  const sign = Buffer.concat([Buffer.from(targetId), Buffer.from(t.creatorJid), Buffer.from(t.modifierJid), Buffer.from(useCase), Buffer.from([1])]);
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(t.secret).digest();
  const key = createHmac('sha256', key0).update(sign).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  if (useCase !== 'Event Edit') cipher.setAAD(Buffer.from(`${targetId}\u0000${t.modifierJid}`));
  const encPayload = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { encPayload, encIv: iv };
}

const bare = (jid: string): string => jid.replace(/:\d+(?=@)/, '');

/**
 * The remembered message `id` with its secret, and who signs a modification of it; refused (the
 * message fails) when this instance does not hold it: the secret exists only on the devices that
 * saw the message (docs/contract.md §6).
 */
export async function secretTarget(id: string, what: string, tools: ContentTools): Promise<SecretTarget> {
  const known = await tools.known(id);
  const secret = known?.message?.messageContextInfo?.messageSecret;
  if (!known?.message || !secret?.length) {
    throw errors.networkRefused(`${what}: message ${id} is not known to this instance (its secret is needed; messages are kept 14 days)`);
  }
  const me = tools.me;
  if (!me) throw errors.notConnected();
  const key = known.key;
  const group = key.remoteJid?.endsWith('@g.us') ?? false;
  let creatorJid: string;
  if (key.fromMe) creatorJid = group ? (me.lid ?? me.pn) : me.pn;
  else creatorJid = bare((group ? key.participant : key.remoteJid) ?? '');
  const modifierJid = creatorJid.endsWith('@lid') && me.lid ? me.lid : me.pn;
  return { key: { remoteJid: key.remoteJid, fromMe: key.fromMe, id: key.id, ...(key.participant ? { participant: key.participant } : {}) }, message: known.message, secret, creatorJid, modifierJid };
}
