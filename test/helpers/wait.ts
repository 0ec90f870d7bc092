// Waiting in tests: a test waits for the event it means (a delivery, a row, a status, a log line, a
// process exit), never for a fixed time. Every wait polls or races until its event and fails
// naming what it waited for and the last thing it saw. The timeout only turns a hang into a
// failure: it is no bound on the behaviour, so it is generous — a loaded machine (two cores shared
// with CPU-burning processes) may run everything several times slower, and must not fail for it.
// A time a test means to assert (a service level) is measured and printed, not hidden here.
import { setTimeout as delay } from 'node:timers/promises';

/** How long a wait lasts before it fails, unless a test says otherwise. */
export const WAIT_TIMEOUT_MS = 60_000;
/** How often a wait reads again, unless a test says otherwise. */
export const POLL_MS = 50;

export interface WaitOptions {
  /** Fail after this long (default WAIT_TIMEOUT_MS). A hang guard, not a bound. */
  timeoutMs?: number;
  /** Between two reads (default POLL_MS): longer for a read that costs the system under test. */
  pollMs?: number;
}

/** A wait that ran out: `what` it waited for and the last value it read. */
export class WaitTimeout extends Error {
  constructor(
    readonly what: string,
    readonly last: unknown,
    readonly timeoutMs: number,
  ) {
    super(`timed out after ${timeoutMs} ms waiting for ${what}; last read: ${describe(last)}`);
    this.name = 'WaitTimeout';
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    const text = JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? [...v] : v instanceof Set ? [...v] : v));
    return (text ?? String(value)).slice(0, 800);
  } catch {
    return String(value).slice(0, 800);
  }
}

/**
 * Reads until `done` holds for the value read, and answers that value. Fails with `what` and the
 * last value read after the timeout. An error thrown by `read` fails the wait at once.
 */
export async function until<T>(what: string, read: () => T | Promise<T>, done: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? WAIT_TIMEOUT_MS;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new WaitTimeout(what, value, timeoutMs);
    await delay(options.pollMs ?? POLL_MS);
  }
}

/** until() for a condition alone. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  await until(what, check, (ok) => ok, options);
}

/**
 * Like until(), but answers the last value read when the time runs out instead of failing: for a
 * test that asserts on that value with a message of its own (the ids still missing, say).
 */
export async function settle<T>(read: () => T | Promise<T>, done: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  try {
    return await until('', read, done, options);
  } catch (err) {
    if (err instanceof WaitTimeout) return err.last as T;
    throw err;
  }
}

/** The promise's value, or a failure naming `what` once the timeout passes (a process's exit, a close). */
export async function within<T>(what: string, promise: Promise<T>, options: Pick<WaitOptions, 'timeoutMs'> = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? WAIT_TIMEOUT_MS;
  const abort = new AbortController();
  try {
    return await Promise.race([
      promise,
      delay(timeoutMs, undefined, { signal: abort.signal }).then(() => {
        throw new WaitTimeout(what, 'still pending', timeoutMs);
      }),
    ]);
  } finally {
    abort.abort();
  }
}

/**
 * Reads for `forMs` and fails as soon as `ok` does not hold for a value read: a property that must
 * hold over a stretch of time (nothing sent while paused, a revoked key stays refused). The
 * stretch is the scenario's, chosen by the test; answers the last value read.
 */
export async function holds<T>(what: string, read: () => T | Promise<T>, ok: (value: T) => boolean, options: { forMs: number; pollMs?: number }): Promise<T> {
  const end = performance.now() + options.forMs;
  for (;;) {
    const value = await read();
    if (!ok(value)) throw new Error(`${what} no longer held after ${(options.forMs - (end - performance.now())).toFixed(0)} ms; read: ${describe(value)}`);
    if (performance.now() >= end) return value;
    await delay(Math.min(options.pollMs ?? POLL_MS, Math.max(0, end - performance.now())));
  }
}

/**
 * Real time passing, for a scenario's own pacing (traffic at some rate, an outage of some length)
 * — never to wait for something to happen: that is until() or within().
 */
export function sleep(ms: number): Promise<void> {
  return delay(ms);
}
