// Bounded waits for tests. A test waits on an event (a promise, a callback); where the only thing
// it can see is a state it has to read again (a count, a row, a status over HTTP), `until` reads
// it, a few ms apart, until it holds. The bounds are real time and only turn a hang into a failure
// that names what did not happen: they are never how long something is expected to take.
// (A shared test/helpers/wait.ts may take these over.)
import { performance } from 'node:perf_hooks';

/** Between two reads of a state: short, so a wait ends about when the state changes. */
const POLL_MS = 10;

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/** `check()`'s first truthy answer; fails naming `what` once `timeoutMs` of real time have passed. */
export async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `event`, unless it has not happened after `timeoutMs` of real time: then a failure naming `what`. */
export async function within<T>(what: string, event: Promise<T>, timeoutMs = 10_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  try {
    return await Promise.race([event, late]);
  } finally {
    clearTimeout(timer);
  }
}
