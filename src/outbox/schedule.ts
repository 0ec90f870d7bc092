// The retry schedule of docs/contract.md §5 and the Retry-After header, as protocol-time delays.

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Delay before each attempt: the first goes immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
 * After the last attempt fails the delivery is `failed` (about 27.6 hours after the event).
 */
export const RETRY_DELAYS_MS: readonly number[] = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;

/**
 * A broker sink's waits between publishes of the event holding its lane: short, then every 30 s
 * (±20 %) until the budget runs out. A sink lane holds everything behind a failed event (strict
 * order), so the webhook schedule's hours would keep a whole instance's stream back for hours after
 * a broker outage of seconds; the broker is the operator's own service, cheap to ask again.
 */
const SINK_RETRY_DELAYS_MS: readonly number[] = [SECOND, 2 * SECOND, 5 * SECOND, 10 * SECOND, 30 * SECOND];

export function nextSinkDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  return jitter(SINK_RETRY_DELAYS_MS[Math.min(Math.max(attemptsMade - 1, 0), SINK_RETRY_DELAYS_MS.length - 1)]!, random);
}

/** The longest wait a receiver's Retry-After can impose (the schedule's own longest step). */
const MAX_RETRY_AFTER_MS = 10 * HOUR;

/** ±20 % so that deliveries failed together do not all come back in the same instant. */
export function jitter(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (0.8 + 0.4 * random()));
}

/**
 * The protocol-time delay before the next attempt after `attemptsMade` failed ones, or null
 * when the schedule is exhausted. A Retry-After longer than the scheduled step wins (capped).
 */
export function nextDelayMs(attemptsMade: number, retryAfterMs: number | null, random: () => number = Math.random): number | null {
  const step = RETRY_DELAYS_MS[attemptsMade];
  if (step === undefined) return null;
  const scheduled = jitter(step, random);
  if (retryAfterMs === null) return scheduled;
  return Math.max(scheduled, Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
}

/** Parses Retry-After (delay-seconds or an HTTP date) into milliseconds; null when absent or invalid. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return null;
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  // HTTP dates end in GMT (RFC 9110); Date.parse alone would read "-5" as a year.
  if (!/ GMT$/.test(text)) return null;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - nowMs);
}
