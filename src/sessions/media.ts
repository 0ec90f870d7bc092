// Media for outgoing messages: data URIs decoded, URLs fetched under the address guard with the
// contract's size limit, stickers converted to the 512×512 WebP WhatsApp requires.
import sharp from 'sharp';
import { errors } from '../errors.js';
import { GuardedFetchError, guardedFetch, type AddressGuard } from '../net/address-guard.js';

export interface LoadedMedia {
  data: Buffer;
  mimetype: string;
}

export interface MediaLoader {
  load(ref: string): Promise<LoadedMedia>;
}

export const MAX_MEDIA_BYTES = 16 * 1024 * 1024;
const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+);base64,(.*)$/is;

export function mediaLoader(guard: AddressGuard, maxBytes = MAX_MEDIA_BYTES, timeoutMs = 30_000): MediaLoader {
  return {
    async load(ref) {
      const inline = DATA_URI.exec(ref);
      if (inline) {
        const data = Buffer.from(inline[2] ?? '', 'base64');
        if (data.length === 0) throw errors.networkRefused('media: empty data URI');
        if (data.length > maxBytes) throw errors.networkRefused(`media: larger than ${maxBytes} bytes`);
        return { data, mimetype: (inline[1] ?? 'application/octet-stream').toLowerCase() };
      }
      try {
        const res = await guardedFetch(guard, ref, { maxBytes, timeoutMs });
        if (res.status < 200 || res.status > 299) throw errors.networkRefused(`media download failed: HTTP ${res.status}`);
        const type = res.headers['content-type'];
        const mimetype = (Array.isArray(type) ? type[0] : type)?.split(';')[0]?.trim().toLowerCase() || (await sniff(res.body));
        return { data: res.body, mimetype };
      } catch (err) {
        if (err instanceof GuardedFetchError) throw errors.networkRefused(`media: ${err.reason}`, err);
        if (err instanceof Error && err.name !== 'DomainError') throw errors.networkRefused(`media download failed: ${err.message}`, err);
        throw err;
      }
    },
  };
}

async function sniff(data: Buffer): Promise<string> {
  try {
    const { format } = await sharp(data).metadata();
    return format ? `image/${format === 'jpg' ? 'jpeg' : format}` : 'application/octet-stream';
  } catch {
    return 'application/octet-stream';
  }
}

/** Any image → 512×512 WebP, letterboxed on transparency (WhatsApp rejects other sticker sizes). */
export async function toSticker(data: Buffer): Promise<Buffer> {
  try {
    return await sharp(data, { animated: false })
      .resize(512, 512, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .webp({ quality: 80 })
      .toBuffer();
  } catch (err) {
    throw errors.networkRefused('sticker: not a readable image', err);
  }
}

/** Images WhatsApp shows inline; anything else is converted to JPEG first. */
export async function toSendableImage(media: LoadedMedia): Promise<LoadedMedia> {
  if (media.mimetype === 'image/jpeg' || media.mimetype === 'image/png') return media;
  try {
    return { data: await sharp(media.data).jpeg({ quality: 90 }).toBuffer(), mimetype: 'image/jpeg' };
  } catch (err) {
    throw errors.networkRefused('image: not a readable image', err);
  }
}
