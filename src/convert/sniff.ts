// What a payload really is, from its first bytes. A URL's content-type and a data URI's label
// are claims; only the magic bytes decide which decoder may see the payload.

type MediaFamily = 'image' | 'audio' | 'video' | 'other';

interface Sniffed {
  family: MediaFamily;
  /** The mimetype the bytes show (application/octet-stream when unknown). */
  mimetype: string;
}

const ascii = (b: Buffer, at: number, s: string): boolean => b.length >= at + s.length && b.toString('latin1', at, at + s.length) === s;
const bytes = (b: Buffer, at: number, ...v: number[]): boolean => b.length >= at + v.length && v.every((x, i) => b[at + i] === x);

/** ISO-BMFF (`ftyp`) brands: which are audio-only, which are images. */
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
const IMAGE_BRANDS: Record<string, string> = { avif: 'image/avif', avis: 'image/avif', heic: 'image/heic', heix: 'image/heic', mif1: 'image/heif', msf1: 'image/heif' };

export function sniff(b: Buffer): Sniffed {
  if (bytes(b, 0, 0xff, 0xd8, 0xff)) return { family: 'image', mimetype: 'image/jpeg' };
  if (bytes(b, 0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return { family: 'image', mimetype: 'image/png' };
  if (ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a')) return { family: 'image', mimetype: 'image/gif' };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) return { family: 'image', mimetype: 'image/webp' };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WAVE')) return { family: 'audio', mimetype: 'audio/wav' };
  if (ascii(b, 0, 'RIFF') && ascii(b, 8, 'AVI ')) return { family: 'video', mimetype: 'video/x-msvideo' };
  if (bytes(b, 0, 0x49, 0x49, 0x2a, 0x00) || bytes(b, 0, 0x4d, 0x4d, 0x00, 0x2a)) return { family: 'image', mimetype: 'image/tiff' };
  if (ascii(b, 0, 'BM') && b.length > 26) return { family: 'image', mimetype: 'image/bmp' };
  if (ascii(b, 4, 'ftyp')) {
    const brand = b.toString('latin1', 8, 12);
    const image = IMAGE_BRANDS[brand];
    if (image) return { family: 'image', mimetype: image };
    if (AUDIO_BRANDS.has(brand)) return { family: 'audio', mimetype: 'audio/mp4' };
    if (brand.startsWith('3g')) return { family: 'video', mimetype: 'video/3gpp' };
    if (brand === 'qt  ') return { family: 'video', mimetype: 'video/quicktime' };
    return { family: 'video', mimetype: 'video/mp4' };
  }
  if (bytes(b, 0, 0x1a, 0x45, 0xdf, 0xa3)) {
    // Matroska/WebM: the DocType says which; audio-only WebM is told apart by probing later.
    return { family: 'video', mimetype: b.subarray(0, 64).includes('webm') ? 'video/webm' : 'video/x-matroska' };
  }
  if (ascii(b, 0, 'OggS')) {
    const head = b.subarray(0, 128);
    if (head.includes('OpusHead')) return { family: 'audio', mimetype: 'audio/ogg' };
    if (head.includes('theora')) return { family: 'video', mimetype: 'video/ogg' };
    return { family: 'audio', mimetype: 'audio/ogg' };
  }
  if (ascii(b, 0, 'ID3')) return { family: 'audio', mimetype: 'audio/mpeg' };
  if (ascii(b, 0, 'fLaC')) return { family: 'audio', mimetype: 'audio/flac' };
  if (ascii(b, 0, '#!AMR')) return { family: 'audio', mimetype: 'audio/amr' };
  if (b.length >= 2 && b[0] === 0xff && ((b[1] ?? 0) & 0xf6) === 0xf0) return { family: 'audio', mimetype: 'audio/aac' };
  if (b.length >= 2 && b[0] === 0xff && ((b[1] ?? 0) & 0xe0) === 0xe0) return { family: 'audio', mimetype: 'audio/mpeg' };
  if (b.length >= 1 && b[0] === 0x47 && b.length > 188 && b[188] === 0x47) return { family: 'video', mimetype: 'video/mp2t' };
  return { family: 'other', mimetype: 'application/octet-stream' };
}

/** Image formats the image pipeline decodes (sharp's built-in loaders). */
export const DECODABLE_IMAGES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp', 'image/tiff', 'image/avif']);
