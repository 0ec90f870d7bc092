// Fetch through the address guard with every redirect hop re-checked and a size cap (media downloads).
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { AddressRefusedError, ResponseTooLargeError, TooManyRedirectsError, type AddressGuard } from './address-guard.js';

interface GuardedFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Largest body accepted, in bytes. Default 16 MiB, the media limit of the contract. */
  maxBytes?: number;
  /** Whole-operation deadline across every hop and the body. Default 30 s. */
  timeoutMs?: number;
  /** Redirect hops followed at most. Default 5. */
  maxRedirects?: number;
  signal?: AbortSignal;
}

interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that finally answered, after redirects. */
  url: URL;
}

const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not travel to wherever it redirects.
const CROSS_ORIGIN_DROPPED = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * Fetches through the guard's Agent, following at most `maxRedirects` redirects and checking
 * each hop through the guard before connecting to it. Throws AddressRefusedError,
 * ResponseTooLargeError or TooManyRedirectsError; network errors and aborts pass through.
 */
export async function guardedFetch(guard: AddressGuard, url: string | URL, init: GuardedFetchInit = {}): Promise<GuardedResponse> {
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = init.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const deadline = AbortSignal.timeout(init.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = init.signal === undefined ? deadline : AbortSignal.any([init.signal, deadline]);
  const dispatcher = guard.dispatcher();

  let method = (init.method ?? 'GET').toUpperCase();
  let body = init.body;
  let headers: Record<string, string> = { ...init.headers };
  let current: string | URL = url;

  for (let hop = 0; ; hop++) {
    const decision = await guard.checkUrl(current);
    if (!decision.ok) throw new AddressRefusedError(hop === 0 ? decision.reason : `redirect refused: ${decision.reason}`);
    const target = decision.url;

    const res = await request(target, { method, headers, body, signal, dispatcher });
    const location = res.headers.location;
    const locationText = Array.isArray(location) ? location[0] : location;

    if (!REDIRECT_STATUSES.has(res.statusCode) || locationText === undefined) {
      return { status: res.statusCode, headers: res.headers, body: await readCapped(res.body, res.headers, maxBytes), url: target };
    }

    await res.body.dump();
    if (hop >= maxRedirects) throw new TooManyRedirectsError(`more than ${maxRedirects} redirects`);
    let next: URL;
    try {
      next = new URL(locationText, target);
    } catch {
      throw new AddressRefusedError('redirect refused: Location is not a valid URL');
    }
    // Fetch-standard method rewriting: 303 always, and 301/302 for POST, become a bodiless GET.
    if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^content-/i.test(k)));
    }
    if (next.origin !== target.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !CROSS_ORIGIN_DROPPED.has(k.toLowerCase())));
    }
    current = next;
  }
}

type ResponseBody = Awaited<ReturnType<typeof request>>['body'];

async function readCapped(body: ResponseBody, headers: IncomingHttpHeaders, maxBytes: number): Promise<Buffer> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw new ResponseTooLargeError(`response is ${declared} bytes, more than the limit of ${maxBytes}`, maxBytes);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      // Destroying the body aborts the transfer instead of downloading the rest to discard it.
      body.destroy();
      throw new ResponseTooLargeError(`response is more than the limit of ${maxBytes} bytes`, maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
