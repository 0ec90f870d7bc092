// The sending phone's side of media retry. A linked device that cannot download media (expired on the CDN) sends
// <receipt type="server-error"> with the message id, an AES-GCM-encrypted ServerErrorReceipt (key: HKDF of the media key,
// info "WhatsApp Media Retry Notification", AAD: the message id) and <rmr jid from_me participant>. The phone that sent
// the media uploads it again and answers that device with <notification type="mediaretry"> carrying the encrypted
// MediaRetryNotification {stanzaId, directPath, result}, or <error code> (2 NOT_FOUND, 3 DECRYPTION_ERROR).
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { proto, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child } from '../server/stanza.js';
import { pnJid } from '../network/jid.js';
import { rememberedMediaKey, reuploadContactMedia } from './media-send.js';

const Result = proto.MediaRetryNotification.ResultType;

function retryKey(mediaKey: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', mediaKey, Buffer.alloc(0), 'WhatsApp Media Retry Notification', 32));
}

function gcm(key: Buffer, iv: Buffer, aad: Buffer, plain: Uint8Array): Buffer {
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(aad);
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

function ungcm(key: Buffer, iv: Buffer, aad: Buffer, data: Buffer): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, iv);
  d.setAAD(aad);
  d.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]);
}

/** Handles a client's <receipt type="server-error"> (its ack was already sent). */
export function handleMediaRetryReceipt(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  const id = node.attrs.id;
  if (!dev || !id) return;
  const rmr = child(node, 'rmr');
  const reply = (content: BinaryNode[]) => {
    net.deliver(dev, {
      tag: 'notification',
      attrs: { id, type: 'mediaretry', from: pnJid(dev.account.phone), t: net.nowSec() },
      content: [...content, { tag: 'rmr', attrs: { ...(rmr?.attrs ?? {}) } }],
    });
  };
  const known = rememberedMediaKey(net, id);
  if (!known) {
    net.counters.inc('mediaretry.not_found');
    return reply([{ tag: 'error', attrs: { code: String(Result.NOT_FOUND) } }]);
  }
  const key = retryKey(known.mediaKey);
  const encrypt = child(node, 'encrypt');
  const encP = bytesOf(child(encrypt, 'enc_p'));
  const encIv = bytesOf(child(encrypt, 'enc_iv'));
  if (encP && encIv) {
    // The request proves the device holds the media key: it must decrypt to a ServerErrorReceipt naming this message.
    try {
      const req = proto.ServerErrorReceipt.decode(ungcm(key, encIv, Buffer.from(id), encP));
      if (req.stanzaId !== id) throw new Error('stanza id mismatch');
    } catch {
      net.counters.inc('mediaretry.decryption_error');
      return reply([{ tag: 'error', attrs: { code: String(Result.DECRYPTION_ERROR) } }]);
    }
  }
  const re = reuploadContactMedia(net, id);
  if (!re) {
    net.counters.inc('mediaretry.not_found');
    return reply([{ tag: 'error', attrs: { code: String(Result.NOT_FOUND) } }]);
  }
  const iv = randomBytes(12);
  const plain = proto.MediaRetryNotification.encode({ stanzaId: id, directPath: re.directPath, result: Result.SUCCESS }).finish();
  net.counters.inc('mediaretry.reuploaded');
  reply([
    {
      tag: 'encrypt',
      attrs: {},
      content: [
        { tag: 'enc_p', attrs: {}, content: gcm(key, iv, Buffer.from(id), plain) },
        { tag: 'enc_iv', attrs: {}, content: iv },
      ],
    },
  ]);
}
