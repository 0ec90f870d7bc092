// Lets a test file that runs real Baileys sockets exit as soon as its tests end. Import it (for its
// effect) before anything opens a socket; every e2e file that pairs an instance in-process does.
import { UPLOAD_TIMEOUT } from 'baileys';

/**
 * The query timeout e2e gateways run with (ZAPGATE_COMMAND_TIMEOUT_MS). A value nothing else
 * uses, so its timers can be told apart: Baileys' end() drops the ws 'close' listeners that would
 * reject queries still in flight (init queries of a socket closed right after it opened), so their
 * timeout timers run out in full after the test.
 */
export const E2E_COMMAND_TIMEOUT_MS = 10_003;

// Baileys 7 rc14 races every pre-key upload against a 30 s timer it never clears (UPLOAD_TIMEOUT),
// and orphaned queries wait out their timeout: each would hold a test process ~10–30 s past its
// last test. Unref exactly those timers. While a test runs, its servers and sockets keep the
// process alive, so the timers still fire when they matter. The gateway itself needs none of this:
// `zapgate serve` exits with process.exit once gateway.close() has resolved.
const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
  const timer = realSetTimeout(fn, ms, ...args);
  if (ms === UPLOAD_TIMEOUT || ms === E2E_COMMAND_TIMEOUT_MS) timer.unref();
  return timer;
}) as typeof setTimeout;
