// Downloads one received media file from the network's media host and decrypts it into the media
// store, never holding the file in memory: the encrypted body streams to a temp file while its
// HMAC and hash are computed, is checked (WhatsApp's 10-byte HMAC-SHA256 over iv‖ciphertext, and
// the sender's fileEncSha256 / fileSha256 when given), then decrypted (AES-256-CBC) into a second
// temp file that is renamed under its content address (a channel post's file is not encrypted:
// it is only checked against the sender's hash). Sizes and time are bounded. With the
// instance's proxy as `agent` the download tunnels through it (a socks5 proxy is given the pinned
// address; socks5h and http proxies resolve the media host themselves).
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import type { Agent } from 'node:http';
import { request } from 'node:https';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getMediaKeys, type MediaType } from 'baileys';
import type { Clock } from '../../clock.js';
import type { MediaStore } from '../../media/store.js';
import type { AddressGuard } from '../../net/address-guard.js';

/** What a received message says about its file (stored as the media row's `source`). */
export interface MediaSource {
  /** The key family the file was encrypted with (image, video, audio, document, sticker, …). */
  mediaType: MediaType;
  directPath: string;
  /** Absent for a channel post's file, which is not encrypted (its fileSha256 is then required). */
  mediaKey?: string;
  fileEncSha256?: string;
  fileSha256?: string;
  fileLength?: number;
}

export interface DownloadLimits {
  maxBytes: number;
  /** Ms the media host may take to answer, and the body to arrive: guards, never scaled. */
  timeoutMs: number;
}

/** A signal aborted once `ms` (a guard) pass; `cancel` when the work is done. */
function deadline(clock: Clock, ms: number): { signal: AbortSignal; cancel: () => void } {
  const controller = new AbortController();
  const cancel = clock.setGuard(ms, () => controller.abort(new MediaDownloadError(`the download took longer than ${ms} ms`)));
  return { signal: controller.signal, cancel };
}

/** The file is no longer on the media host (expired): the sender's phone can upload it again. */
export class MediaGoneError extends Error {
  override name = 'MediaGoneError';
}

class MediaDownloadError extends Error {
  override name = 'MediaDownloadError';
}

const MAC_LENGTH = 10;

/** Fetches `source` from `host` (the network's media host) into `store`; returns its address. */
export async function downloadMedia(
  source: MediaSource,
  host: string,
  deps: { store: MediaStore; guard: AddressGuard; agent: Agent | undefined; limits: DownloadLimits; clock: Clock },
): Promise<{ sha256: string; size: number }> {
  // The direct path comes from the sender's message: it may only name a file on the media host.
  if (!/^\/[A-Za-z0-9._~\-/%=&?+]*$/.test(source.directPath) || source.directPath.startsWith('//')) {
    throw new MediaDownloadError('the message names no valid media path');
  }
  const url = new URL(`https://${host}${source.directPath}`);
  if (url.host !== host) throw new MediaDownloadError('the message names no valid media path');
  const decision = await deps.guard.checkUrl(url);
  if (!decision.ok) throw new MediaDownloadError(`media host refused by the address guard: ${decision.reason}`);
  const pinned = decision.addresses[0]!;
  if (!source.mediaKey) return downloadPlain(source, url, pinned, deps);
  const keys = await getMediaKeys(Buffer.from(source.mediaKey, 'base64'), source.mediaType);
  const macKey = Buffer.from(keys.macKey ?? []);
  const iv = Buffer.from(keys.iv);
  // Padding adds up to 16 bytes, the MAC 10.
  const maxEncrypted = deps.limits.maxBytes + 16 + MAC_LENGTH;
  const encPath = await deps.store.tempPath();
  const plainPath = await deps.store.tempPath();
  try {
    const mac = createHmac('sha256', macKey).update(iv);
    const encHash = createHash('sha256');
    let tail = Buffer.alloc(0);
    let total = 0;
    const response = await getFile(url, pinned, deps.agent, deps.limits.timeoutMs);
    const declared = Number(response.headers['content-length'] ?? NaN);
    if (declared > maxEncrypted) {
      response.destroy();
      throw new MediaDownloadError(`the file is larger than the ${deps.limits.maxBytes}-byte limit`);
    }
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        if (total > maxEncrypted) return done(new MediaDownloadError(`the file is larger than the ${deps.limits.maxBytes}-byte limit`));
        encHash.update(chunk);
        // Everything but the last 10 bytes is MACed: hold back a tail of 10.
        const joined = tail.length ? Buffer.concat([tail, chunk]) : chunk;
        const cut = Math.max(0, joined.length - MAC_LENGTH);
        mac.update(joined.subarray(0, cut));
        tail = Buffer.from(joined.subarray(cut));
        done(null, chunk);
      },
    });
    const body = deadline(deps.clock, deps.limits.timeoutMs);
    await pipeline(response, meter, createWriteStream(encPath, { mode: 0o600 }), { signal: body.signal }).finally(body.cancel);
    if (total <= MAC_LENGTH) throw new MediaDownloadError('the media host sent an empty file');
    if (!mac.digest().subarray(0, MAC_LENGTH).equals(tail)) throw new MediaDownloadError('the file failed its integrity check (HMAC)');
    if (source.fileEncSha256 && encHash.digest('base64') !== source.fileEncSha256) throw new MediaDownloadError('the file failed its integrity check (fileEncSha256)');

    const plainHash = createHash('sha256');
    const decipher = createDecipheriv('aes-256-cbc', Buffer.from(keys.cipherKey), iv);
    const hashing = new Transform({
      transform(chunk: Buffer, _enc, done) {
        plainHash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(createReadStream(encPath, { end: total - MAC_LENGTH - 1 }), decipher, hashing, createWriteStream(plainPath, { mode: 0o600 }));
    const digest = plainHash.digest();
    if (source.fileSha256 && digest.toString('base64') !== source.fileSha256) throw new MediaDownloadError('the decrypted file does not match the sender\'s hash');
    const sha256 = digest.toString('hex');
    const { size } = await stat(plainPath);
    await deps.store.adopt(plainPath, sha256);
    return { sha256, size };
  } catch (err) {
    await rm(plainPath, { force: true });
    if (err instanceof MediaGoneError || err instanceof MediaDownloadError) throw err;
    const e = err as Error;
    throw new MediaDownloadError(e.name === 'TimeoutError' || e.name === 'AbortError' ? `the download took longer than ${deps.limits.timeoutMs} ms` : `download failed: ${e.message}`, { cause: err });
  } finally {
    await rm(encPath, { force: true });
  }
}

/** A channel post's file: not encrypted, so it streams straight to the store, checked by the sender's hash. */
async function downloadPlain(
  source: MediaSource,
  url: URL,
  pinned: { address: string; family: number },
  deps: { store: MediaStore; agent: Agent | undefined; limits: DownloadLimits; clock: Clock },
): Promise<{ sha256: string; size: number }> {
  if (!source.fileSha256) throw new MediaDownloadError('an unencrypted file without its hash cannot be checked');
  const plainPath = await deps.store.tempPath();
  try {
    const hash = createHash('sha256');
    let total = 0;
    const response = await getFile(url, pinned, deps.agent, deps.limits.timeoutMs);
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        total += chunk.length;
        if (total > deps.limits.maxBytes) return done(new MediaDownloadError(`the file is larger than the ${deps.limits.maxBytes}-byte limit`));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const body = deadline(deps.clock, deps.limits.timeoutMs);
    await pipeline(response, meter, createWriteStream(plainPath, { mode: 0o600 }), { signal: body.signal }).finally(body.cancel);
    if (total === 0) throw new MediaDownloadError('the media host sent an empty file');
    const digest = hash.digest();
    if (digest.toString('base64') !== source.fileSha256) throw new MediaDownloadError('the file does not match the sender\'s hash');
    const sha256 = digest.toString('hex');
    await deps.store.adopt(plainPath, sha256);
    return { sha256, size: total };
  } catch (err) {
    await rm(plainPath, { force: true });
    if (err instanceof MediaGoneError || err instanceof MediaDownloadError) throw err;
    const e = err as Error;
    throw new MediaDownloadError(e.name === 'TimeoutError' || e.name === 'AbortError' ? `the download took longer than ${deps.limits.timeoutMs} ms` : `download failed: ${e.message}`, { cause: err });
  }
}

/** The file's response: a file the host no longer has is MediaGoneError, any other answer but 200 MediaDownloadError. */
async function getFile(url: URL, pinned: { address: string; family: number }, agent: Agent | undefined, timeoutMs: number): Promise<import('node:http').IncomingMessage> {
  const response = await get(url, pinned, agent, timeoutMs);
  if (response.statusCode === 404 || response.statusCode === 410) {
    response.resume();
    throw new MediaGoneError(`the media host no longer has the file (HTTP ${response.statusCode})`);
  }
  if (response.statusCode !== 200) {
    response.resume();
    throw new MediaDownloadError(`the media host answered HTTP ${response.statusCode}`);
  }
  return response;
}

function get(url: URL, pinned: { address: string; family: number }, agent: Agent | undefined, timeoutMs: number): Promise<import('node:http').IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      agent,
      // Connect to the address the guard checked, not to whatever a second DNS answer says.
      lookup: (_host, options, cb) => {
        if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
        else cb(null, pinned.address, pinned.family);
      },
      headers: { Origin: 'https://web.whatsapp.com' },
      timeout: timeoutMs,
    });
    req.on('timeout', () => req.destroy(new MediaDownloadError(`the media host did not answer within ${timeoutMs} ms`)));
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}
