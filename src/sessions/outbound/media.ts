// Media for outgoing messages: data URIs decoded, URLs fetched under the address guard with the
// size and time limits, every payload sniffed and converted through src/convert (bounded in
// pixels, seconds, memory and concurrency). Every failure is a classified SendFailure, so the
// sender knows whether retrying can help.
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from '../../convert/limits.js';
import { prepareImage, prepareSticker, type PreparedImage } from '../../convert/image.js';
import { prepareVideo, prepareVoiceNote, type PreparedAudio, type PreparedVideo, type VideoMode } from '../../convert/av.js';
import { Semaphore } from '../../convert/semaphore.js';
import { decodeDataUri } from '../../convert/data-uri.js';
import { parseMediaRef } from '../../media/outgoing-store.js';
import { SendFailure, sendFailures } from '../../domain/send-failure.js';
import { AddressRefusedError, ResponseTooLargeError, TooManyRedirectsError, type AddressGuard } from '../../net/address-guard.js';
import { guardedFetch } from '../../net/guarded-fetch.js';

export interface MediaPipeline {
  readonly limits: MediaLimits;
  /**
   * Runs a whole media send (download, conversion, upload) in one of a bounded number of slots,
   * so the payloads in memory at once are bounded across every instance.
   */
  hold<T>(fn: () => Promise<T>): Promise<T>;
  /** The payload's bytes as sent (documents: byte for byte). */
  load(ref: string, what: string): Promise<Buffer>;
  image(ref: string, what?: string): Promise<PreparedImage>;
  sticker(ref: string): Promise<Buffer>;
  voiceNote(ref: string): Promise<PreparedAudio>;
  video(ref: string, mode: VideoMode): Promise<PreparedVideo>;
}

/** Files stored at enqueue for the data URIs of queued messages (src/media/outgoing-store.ts). */
export interface StoredMediaReader {
  read(sha256: string): Promise<Buffer | null>;
}

/** HTTP statuses after which the same URL may answer later. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const UNTRUSTED_CODE = /^(CERT_|UNABLE_TO_|SELF_SIGNED|DEPTH_ZERO|ERR_TLS_CERT)/;
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_)/;

function errorCode(err: unknown): string {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return '';
}

/** A failed download, classified: what the URL said, or what the connection did. */
function downloadFailure(what: string, err: unknown): SendFailure {
  if (err instanceof SendFailure) return err;
  if (err instanceof ResponseTooLargeError) return sendFailures.tooLarge(`${what}: ${err.reason}`);
  if (err instanceof AddressRefusedError || err instanceof TooManyRedirectsError) {
    return sendFailures.downloadFailed(`${what}: download refused: ${err.reason}`, true, err);
  }
  const code = errorCode(err);
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError' || /TIMEOUT/.test(code)) {
    return sendFailures.downloadFailed(`${what}: the download timed out`, false, err);
  }
  if (UNTRUSTED_CODE.test(code)) return sendFailures.downloadFailed(`${what}: download failed: TLS certificate not trusted (${code})`, true, err);
  if (TLS_CODE.test(code)) return sendFailures.downloadFailed(`${what}: download failed: TLS handshake failed (${code})`, true, err);
  if (code === 'ENOTFOUND') return sendFailures.downloadFailed(`${what}: download failed: unknown host`, true, err);
  return sendFailures.downloadFailed(`${what}: download failed${code ? ` (${code})` : ''}`, false, err);
}

export function mediaPipeline(guard: AddressGuard, limits: MediaLimits = DEFAULT_MEDIA_LIMITS, stored?: StoredMediaReader): MediaPipeline {
  const conversions = Math.max(1, limits.concurrentConversions);
  // Conversions running at once (CPU and decoder memory)…
  const slots = new Semaphore(conversions);
  // …and media sends in progress (downloading, converting, uploading): without this, a hundred
  // lanes each sending the largest payload would hold a hundred of them in memory.
  const held = new Semaphore(conversions * 4);

  async function load(ref: string, what: string): Promise<Buffer> {
    // `zapgate-media:…`: a data URI the gateway stored when the message was queued.
    const address = parseMediaRef(ref)?.sha256;
    if (address) {
      const bytes = stored ? await stored.read(address) : null;
      if (!bytes) throw sendFailures.invalidMedia(`${what}: the queued media file is no longer stored`);
      if (bytes.length > limits.maxBytes) throw sendFailures.tooLarge(`${what}: ${bytes.length} bytes is more than the limit of ${limits.maxBytes}`);
      return bytes;
    }
    const inline = decodeDataUri(ref);
    if (inline) {
      if (inline.length === 0) throw sendFailures.invalidMedia(`${what}: empty data URI`);
      if (inline.length > limits.maxBytes) throw sendFailures.tooLarge(`${what}: ${inline.length} bytes is more than the limit of ${limits.maxBytes}`);
      return inline;
    }
    try {
      const res = await guardedFetch(guard, ref, { maxBytes: limits.maxBytes, timeoutMs: limits.fetchTimeoutMs });
      if (res.status < 200 || res.status > 299) {
        throw sendFailures.downloadFailed(`${what}: download failed: HTTP ${res.status}`, !RETRYABLE_STATUS.has(res.status));
      }
      if (res.body.length === 0) throw sendFailures.invalidMedia(`${what}: the URL returned no content`);
      return res.body;
    } catch (err) {
      throw downloadFailure(what, err);
    }
  }

  return {
    limits,
    hold: (fn) => held.run(fn),
    load,
    image: async (ref, what = 'image') => prepareImage(await load(ref, what), limits, slots, what),
    sticker: async (ref) => prepareSticker(await load(ref, 'sticker'), limits, slots),
    voiceNote: async (ref) => prepareVoiceNote(await load(ref, 'audio'), limits, slots),
    video: async (ref, mode) => prepareVideo(await load(ref, mode === 'video' ? 'video' : mode), mode, limits, slots),
  };
}
