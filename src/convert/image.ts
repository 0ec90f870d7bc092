// Images for sending: the real format sniffed, the size read from the header before anything is
// decoded, the pixel count bounded (sharp's limitInputPixels), scaled down before re-encoding,
// and only a few decodes at a time across the whole gateway.
import sharp, { type Sharp } from 'sharp';
import { sendFailures } from '../domain/send-failure.js';
import { STICKER_SIDE, type MediaLimits } from './limits.js';
import type { Semaphore } from './semaphore.js';
import { DECODABLE_IMAGES, sniff } from './sniff.js';

// libvips' operation cache keeps decoded images around for reuse we never have: off. One worker
// thread per operation: the semaphore, not libvips, decides how many decodes run at once.
sharp.cache(false);
sharp.concurrency(1);

export interface PreparedImage {
  data: Buffer;
  mimetype: string;
  width: number;
  height: number;
  /** Small JPEG preview (the message's jpegThumbnail), so the engine never decodes the image itself. */
  thumbnail: Buffer;
}

interface ImageHeader {
  mimetype: string;
  width: number;
  height: number;
  hasAlpha: boolean;
  orientation: number;
}

/**
 * Reads what the bytes are and how big the image is, from the header only (no pixel is decoded).
 * Throws a permanent SendFailure for anything that is not a supported image or is over the limits.
 */
export async function readImageHeader(data: Buffer, limits: MediaLimits, what = 'image'): Promise<ImageHeader> {
  if (data.length > limits.maxBytes) throw sendFailures.tooLarge(`${what}: ${data.length} bytes is more than the limit of ${limits.maxBytes}`);
  const { family, mimetype } = sniff(data);
  if (family !== 'image') throw sendFailures.invalidMedia(`${what}: the payload is not an image (${mimetype === 'application/octet-stream' ? 'unknown data' : mimetype})`);
  if (!DECODABLE_IMAGES.has(mimetype)) throw sendFailures.invalidMedia(`${what}: ${mimetype} is not a supported image format`);
  let meta: sharp.Metadata;
  try {
    meta = await sharp(data, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw sendFailures.invalidMedia(`${what}: not a readable ${mimetype} image`, err);
  }
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  if (width <= 0 || height <= 0) throw sendFailures.invalidMedia(`${what}: the image has no size`);
  if (width * height > limits.maxPixels) {
    throw sendFailures.tooLarge(`${what}: ${width}×${height} pixels is more than the limit of ${limits.maxPixels}`);
  }
  return { mimetype, width, height, hasAlpha: meta.hasAlpha === true, orientation: meta.orientation ?? 1 };
}

function decoder(data: Buffer, limits: MediaLimits): Sharp {
  return sharp(data, { limitInputPixels: limits.maxPixels, sequentialRead: true, animated: false, failOn: 'error' }).timeout({
    seconds: Math.max(1, Math.ceil(limits.convertTimeoutMs / 1000)),
  });
}

async function thumbnailOf(data: Buffer, limits: MediaLimits): Promise<Buffer> {
  return decoder(data, limits).rotate().resize(72, 72, { fit: 'inside' }).jpeg({ quality: 50 }).toBuffer();
}

function conversionFailed(what: string, err: unknown): Error {
  const message = err instanceof Error ? err.message : String(err);
  if (/timeout/i.test(message)) return sendFailures.conversionFailed(`${what}: the conversion took too long`, false, err);
  if (/pixel limit/i.test(message)) return sendFailures.tooLarge(`${what}: more pixels than the limit`);
  return sendFailures.invalidMedia(`${what}: the image could not be decoded`, err);
}

/**
 * An image WhatsApp shows inline: JPEG or PNG within `imageMaxSide` is sent byte for byte;
 * anything else (other formats, larger, rotated by EXIF) is decoded once, scaled down and
 * re-encoded (JPEG, or PNG when it has transparency).
 */
export async function prepareImage(data: Buffer, limits: MediaLimits, slots: Semaphore, what = 'image'): Promise<PreparedImage> {
  const head = await readImageHeader(data, limits, what);
  return slots.run(async () => {
    try {
      const fits = Math.max(head.width, head.height) <= limits.imageMaxSide;
      if (fits && head.orientation === 1 && (head.mimetype === 'image/jpeg' || head.mimetype === 'image/png')) {
        return { data, mimetype: head.mimetype, width: head.width, height: head.height, thumbnail: await thumbnailOf(data, limits) };
      }
      const side = limits.imageMaxSide;
      const pipeline = decoder(data, limits).rotate().resize(side, side, { fit: 'inside', withoutEnlargement: true });
      const out = head.hasAlpha
        ? await pipeline.png({ compressionLevel: 6 }).toBuffer({ resolveWithObject: true })
        : await pipeline.jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true });
      return {
        data: out.data,
        mimetype: head.hasAlpha ? 'image/png' : 'image/jpeg',
        width: out.info.width,
        height: out.info.height,
        thumbnail: await thumbnailOf(out.data, limits),
      };
    } catch (err) {
      throw conversionFailed(what, err);
    }
  });
}

/** Any image → the 512×512 WebP WhatsApp requires for stickers, letterboxed on transparency. */
export async function prepareSticker(data: Buffer, limits: MediaLimits, slots: Semaphore): Promise<Buffer> {
  await readImageHeader(data, limits, 'sticker');
  return slots.run(async () => {
    try {
      return await decoder(data, limits)
        .rotate()
        .resize(STICKER_SIDE, STICKER_SIDE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
        .webp({ quality: 80 })
        .toBuffer();
    } catch (err) {
      throw conversionFailed('sticker', err);
    }
  });
}

/** A JPEG thumbnail no wider or taller than `width` (a link preview's), from an untrusted image: pixel count bounded. */
export async function jpegThumbnail(data: Buffer, width: number): Promise<Buffer> {
  return sharp(data, { limitInputPixels: 50_000_000, animated: false })
    .resize({ width, height: width, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality: 70 })
    .toBuffer();
}
