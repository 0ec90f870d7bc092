// One delivery attempt: a signed POST through the guarded keep-alive Agent, judged by docs/contract.md §5
// (2xx within the timeout = delivered; redirects are not followed; 410 = the URL is gone).
import { request, type Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import { AddressRefusedError } from '../net/address-guard.js';
import { parseRetryAfter } from './schedule.js';
import { signWebhook } from './signing.js';

interface AttemptInput {
  /** The `webhook-id`: the event's id, the same on every attempt. */
  webhookId: string;
  url: string;
  body: string;
  secrets: readonly string[];
}

interface AttemptOptions {
  dispatcher: Dispatcher;
  /** Gives the attempt its `webhook-timestamp` and times its guard. */
  clock: Clock;
  /** Ms the receiver may take to answer: a guard, never scaled. */
  timeoutMs: number;
  allowHttp: boolean;
  /** Aborted when the gateway stops: the attempt is then neither a success nor a failure. */
  signal: AbortSignal;
}

type AttemptResult =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'failed'; status: number | null; error: string; retryAfterMs: number | null }
  /** 410 Gone: the receiver asks never to be called again at this URL. */
  | { outcome: 'gone'; status: 410; error: string }
  | { outcome: 'aborted' };

// What a receiver says back is not ours to keep: read a little (so the connection is reusable), drop it.
const RESPONSE_DRAIN_LIMIT = 64 * 1024;

/** The checks on the URL itself; the address it resolves to is checked by the Agent on connect. */
function urlProblem(raw: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) return 'only https URLs are allowed';
  if (url.username !== '' || url.password !== '') return 'URLs with a username or password are not allowed';
  return null;
}

function describe(err: unknown, timeoutMs: number, timedOut: boolean): string {
  if (timedOut) return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  if (err instanceof AddressRefusedError) return `address refused: ${err.reason}`;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  const cause = e.cause as { code?: unknown } | undefined;
  const code = typeof e.code === 'string' ? e.code : typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  return code === undefined ? `request failed: ${String(e.message ?? err)}` : `request failed (${code})`;
}

export async function attemptDelivery(input: AttemptInput, options: AttemptOptions): Promise<AttemptResult> {
  const problem = urlProblem(input.url, options.allowHttp);
  if (problem !== null) return { outcome: 'failed', status: null, error: `address refused: ${problem}`, retryAfterMs: null };
  const now = options.clock.now();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'zapgate-webhooks/1',
    ...signWebhook({ id: input.webhookId, timestamp: Math.floor(now / 1000), body: input.body, secrets: input.secrets }),
  };
  // A controller of its own rather than AbortSignal.any()/timeout(), which are slow on Node 20.
  const controller = new AbortController();
  let timedOut = false;
  const cancelGuard = options.clock.setGuard(options.timeoutMs, () => {
    timedOut = true;
    controller.abort();
  });
  const onStop = (): void => controller.abort();
  options.signal.addEventListener('abort', onStop, { once: true });
  const signal = controller.signal;
  try {
    const res = await request(input.url, {
      method: 'POST',
      headers,
      body: input.body,
      dispatcher: options.dispatcher,
      signal,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    await res.body.dump({ limit: RESPONSE_DRAIN_LIMIT });
    const status = res.statusCode;
    if (status >= 200 && status < 300) return { outcome: 'delivered', status };
    if (status === 410) return { outcome: 'gone', status, error: 'receiver answered 410 Gone' };
    if (status >= 300 && status < 400) return { outcome: 'failed', status, error: `redirect (${status}) not followed`, retryAfterMs: null };
    return { outcome: 'failed', status, error: `receiver answered HTTP ${status}`, retryAfterMs: parseRetryAfter(res.headers['retry-after'], now) };
  } catch (err) {
    if (options.signal.aborted) return { outcome: 'aborted' };
    return { outcome: 'failed', status: null, error: describe(err, options.timeoutMs, timedOut), retryAfterMs: null };
  } finally {
    cancelGuard();
    options.signal.removeEventListener('abort', onStop);
  }
}
