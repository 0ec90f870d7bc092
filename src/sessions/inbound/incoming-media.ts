// Which files a received message carries, as the media registry needs them: the main file (with
// the key family it was encrypted with) and its inline thumbnail, if any.
import type { MediaType, proto } from 'baileys';
import type { MediaPart } from './inbound-media.js';
import type { MediaSource } from './media-download.js';

type MediaMessage = {
  directPath?: string | null;
  mediaKey?: Uint8Array | null;
  fileEncSha256?: Uint8Array | null;
  fileSha256?: Uint8Array | null;
  fileLength?: number | Long | null;
  mimetype?: string | null;
  jpegThumbnail?: Uint8Array | null;
};
type Long = { toNumber(): number };

const b64 = (v: Uint8Array | null | undefined): string | undefined => (v && v.length > 0 ? Buffer.from(v).toString('base64') : undefined);

/**
 * The download reference of a media sub-message, or null when it names no file. A file without a
 * media key is a channel post's (channel media is not encrypted): it is taken only with the
 * sender's fileSha256, which the download then checks.
 */
export function sourceOf(m: MediaMessage, mediaType: MediaType): MediaSource | null {
  if (!m.directPath) return null;
  const key = b64(m.mediaKey);
  const plain = b64(m.fileSha256);
  if (!key && !plain) return null;
  const length = m.fileLength === null || m.fileLength === undefined ? undefined : Number(m.fileLength);
  const source: MediaSource = { mediaType, directPath: m.directPath, ...(key ? { mediaKey: key } : {}) };
  const enc = b64(m.fileEncSha256);
  if (enc) source.fileEncSha256 = enc;
  if (plain) source.fileSha256 = plain;
  if (length !== undefined && Number.isFinite(length)) source.fileLength = length;
  return source;
}

/** The parts to register for a media message: the file, and its inline JPEG thumbnail. */
export function partsOf(m: MediaMessage, mediaType: MediaType, fallbackMime: string, fileName: string | null = null, withThumbnail = true): MediaPart[] {
  const parts: MediaPart[] = [];
  const source = sourceOf(m, mediaType);
  if (source) parts.push({ part: 'file', mimetype: m.mimetype || fallbackMime, fileName, source });
  if (withThumbnail && m.jpegThumbnail && m.jpegThumbnail.length > 0) {
    parts.push({ part: 'thumbnail', mimetype: 'image/jpeg', fileName: null, source: { inline: Buffer.from(m.jpegThumbnail) } });
  }
  return parts;
}

export type { proto };
