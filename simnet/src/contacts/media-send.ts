// Media a contact's phone sends: encrypted as WhatsApp does (AES-256-CBC + 10-byte HMAC under keys derived from a random
// media key), uploaded to the media host as that contact's blob, and remembered (bounded) so the phone can re-upload it
// when a linked device asks (media retry).
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { getMediaKeys, type proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import { HttpError } from '../http-error.js';

/** The HKDF "kind" of the media keys (ptv and gifs use the video keys; stickers the image keys, under their own name). */
export type ContactMediaKind = 'image' | 'video' | 'audio' | 'document' | 'sticker';

/** Media-type part of the direct path, like WhatsApp's CDN paths (/v/t62.7118-24/... for images). */
const PATH_TYPE: Record<ContactMediaKind, string> = {
  image: '7118',
  video: '7161',
  audio: '7114',
  document: '7119',
  sticker: '15575',
};

export interface EncryptedMedia {
  enc: Buffer;
  mediaKey: Buffer;
  fileSha256: Buffer;
  fileEncSha256: Buffer;
}

/** `md-msg-hist`: the phone's history-sync blobs (handlers/history-sync.ts). */
export async function encryptMedia(plain: Buffer, kind: ContactMediaKind | 'md-msg-hist', mediaKey = randomBytes(32)): Promise<EncryptedMedia> {
  const keys = await getMediaKeys(mediaKey, kind);
  const iv = Buffer.from(keys.iv);
  const c = createCipheriv('aes-256-cbc', Buffer.from(keys.cipherKey), iv);
  const body = Buffer.concat([c.update(plain), c.final()]);
  const mac = createHmac('sha256', Buffer.from(keys.macKey!)).update(iv).update(body).digest().subarray(0, 10);
  const enc = Buffer.concat([body, mac]);
  return { enc, mediaKey, fileSha256: createHash('sha256').update(plain).digest(), fileEncSha256: createHash('sha256').update(enc).digest() };
}

/** The fields every WhatsApp media message carries for its blob. */
export type MediaFields = Pick<
  proto.Message.IImageMessage,
  'url' | 'directPath' | 'mediaKey' | 'fileSha256' | 'fileEncSha256' | 'fileLength' | 'mediaKeyTimestamp'
>;

interface Remembered {
  sender: string;
  kind: ContactMediaKind;
  enc: Buffer;
  mediaKey: Buffer;
}

/** What phones keep of the media they sent, by message id: FIFO, bounded in entries and bytes. */
export class SentMediaMemory {
  private readonly byId = new Map<string, Remembered>();
  private bytes = 0;

  constructor(
    private readonly maxEntries = 2000,
    private readonly maxBytes = 128 * 1024 * 1024,
  ) {}

  remember(id: string, m: Remembered): void {
    this.forget(id);
    this.byId.set(id, m);
    this.bytes += m.enc.length;
    while ((this.byId.size > this.maxEntries || this.bytes > this.maxBytes) && this.byId.size > 1) {
      const first = this.byId.keys().next().value;
      if (first === undefined) break;
      this.forget(first);
    }
  }

  get(id: string): Remembered | undefined {
    return this.byId.get(id);
  }

  private forget(id: string): void {
    const old = this.byId.get(id);
    if (!old) return;
    this.bytes -= old.enc.length;
    this.byId.delete(id);
  }
}

const memories = new WeakMap<SimnetContext, SentMediaMemory>();

export function sentMedia(net: SimnetContext): SentMediaMemory {
  let m = memories.get(net);
  if (!m) {
    m = new SentMediaMemory();
    memories.set(net, m);
  }
  return m;
}

/** Encrypts and uploads `plain` as `sender`'s blob; remembers it under `messageId` for media retry. */
export async function uploadContactMedia(net: SimnetContext, sender: string, messageId: string, plain: Buffer, kind: ContactMediaKind): Promise<MediaFields> {
  const media = net.media;
  if (!media) throw new HttpError(503, 'media host not running');
  if (!plain.length) throw new HttpError(400, 'empty media');
  const e = await encryptMedia(plain, kind);
  const directPath = media.put(e.enc, PATH_TYPE[kind], { uploader: sender });
  sentMedia(net).remember(messageId, { sender, kind, enc: e.enc, mediaKey: e.mediaKey });
  return {
    url: `https://${media.hostname}${directPath}`,
    directPath,
    mediaKey: e.mediaKey,
    fileSha256: e.fileSha256,
    fileEncSha256: e.fileEncSha256,
    fileLength: plain.length,
    mediaKeyTimestamp: Math.floor(net.now() / 1000),
  };
}

/** The phone uploads remembered media again (same key and bytes, new direct path), exempt from an 'expired' fault. */
export function reuploadContactMedia(net: SimnetContext, messageId: string): { directPath: string; mediaKey: Buffer } | undefined {
  const m = sentMedia(net).get(messageId);
  if (!m || !net.media) return undefined;
  return { directPath: net.media.put(m.enc, PATH_TYPE[m.kind], { uploader: m.sender, reupload: true }), mediaKey: m.mediaKey };
}

export function rememberedMediaKey(net: SimnetContext, messageId: string): { sender: string; mediaKey: Buffer } | undefined {
  const m = sentMedia(net).get(messageId);
  return m && { sender: m.sender, mediaKey: m.mediaKey };
}
