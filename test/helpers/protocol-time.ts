// Letting protocol time pass in a test that owns the gateway's clock (a flowing VirtualClock,
// test/helpers/virtual-clock.ts): the gateway's pacing gaps, typing, pauses and retries are real
// lengths of protocol time, and a test that is not about them should not wait them out in real time.
// - skipWaits(clock, work): awaits `work` (an event the test waits for) while jumping the clock over
//   every short protocol wait in its way (a pacing gap, "typing…", a receipt's delay), never over a
//   long one (a sweep, a retention, an hourly cap) unless the horizon says so.
// - passTime(clock, ms): lets `ms` of protocol time pass, timer by timer, each given a moment of real
//   time for the work it starts (a send, a delivery attempt) before the next one fires.
import { setTimeout as realSleep } from 'node:timers/promises';
import type { VirtualClock } from './virtual-clock.js';

export interface SkipOptions {
  /** Only timers due within this many protocol ms are jumped to (default 30 s). */
  horizonMs?: number;
  /** Real ms the process is given between two jumps, for the work a timer starts (default 20). */
  quietMs?: number;
  /**
   * When no timer is due within the horizon, move the clock this far instead (default: not at
   * all). For waits the gateway measures by comparing times rather than with a timer (a
   * campaign's pace, read by the campaign runner's real-time poll).
   */
  idleStepMs?: number;
}

/**
 * Resolves (or rejects) as `work` does; meanwhile, whenever `quietMs` of real time pass, the clock
 * jumps to its next timer if that is due within `horizonMs`. `work` keeps its own real-time bound.
 */
export async function skipWaits<T>(clock: VirtualClock, work: Promise<T> | (() => Promise<T>), options: SkipOptions = {}): Promise<T> {
  const horizonMs = options.horizonMs ?? 30_000;
  const quietMs = options.quietMs ?? 20;
  let settled = false;
  const running = (typeof work === 'function' ? work() : work).finally(() => {
    settled = true;
  });
  const pump = (async () => {
    while (!settled) {
      await realSleep(quietMs);
      if (settled) return;
      const at = clock.nextAt();
      if (at !== null && at - clock.now() <= horizonMs) await clock.advanceTo(at);
      else if (options.idleStepMs !== undefined) await clock.advance(options.idleStepMs);
    }
  })();
  try {
    return await running;
  } finally {
    await pump;
  }
}

/**
 * Moves the clock `ms` ahead like advance(), but fires the timers due on the way one at a time with
 * `quietMs` of real time after each: what a timer starts (an HTTP attempt, a send) finishes, and
 * the timer it sets in turn is seen, before time moves on.
 */
export async function passTime(clock: VirtualClock, ms: number, options: { quietMs?: number } = {}): Promise<void> {
  const quietMs = options.quietMs ?? 20;
  const target = clock.now() + ms;
  for (;;) {
    const at = clock.nextAt();
    if (at === null || at > target) break;
    await clock.advanceTo(at);
    await realSleep(quietMs);
  }
  await clock.advanceTo(target);
}
