// simnet's one source of time. Every timestamp the network hands out (message and receipt `t`, QR
// ref lifetimes, spam windows, call rings) and every wait it schedules goes through a SimClock, so a
// test can own simnet's time the way it owns the gateway's: pass the same clock to both. Nothing else
// in simnet/src reads Date.now or calls setTimeout/setInterval.
//
// The shape is the part of the gateway's Clock (src/clock.ts) simnet needs, so the gateway's clocks
// (its system clock, a test's virtual clock) fit as they are; simnet never imports them.
//
// Two kinds of waits, as in the gateway:
// - protocol time (`now`, `setTimer`): what the network schedules (QR lifetimes, receipt delays,
//   calls, spam windows). A time-lapse compresses it; a virtual clock jumps it.
// - guards (`setGuard`): how long the network gives something outside it (a companion finishing
//   code pairing, a socket answering its close) and how long it makes a client wait (a media
//   delay fault). Real time under a time-lapse, because the other side's own guards are.

/** Cancels a timer; calling it again, or after the timer fired, does nothing. */
export type Cancel = () => void;

export interface SimClock {
  /** Milliseconds since the epoch on the network's clock (protocol time). */
  now(): number;
  /** Runs `fn` once `ms` of protocol time have passed. */
  setTimer(ms: number, fn: () => void): Cancel;
  /** Runs `fn` after `ms` of unscaled time: a deadline on something outside the network. */
  setGuard(ms: number, fn: () => void): Cancel;
}

/**
 * The wall clock, or under a time scale below 1 a time-lapse: from `origin` it runs `1 / timeScale`
 * times faster, so timestamps and waits agree. The gateway runs the same time-lapse (its
 * ZAPGATE_TIME_SCALE and ZAPGATE_TIME_ORIGIN): give both the same origin or their clocks disagree by
 * how far apart they started, times the speed-up.
 */
export class TimeLapseClock implements SimClock {
  constructor(
    readonly timeScale = 1,
    readonly origin = Date.now(),
  ) {}

  now(): number {
    const wall = Date.now();
    return this.timeScale === 1 ? wall : Math.floor(this.origin + (wall - this.origin) / this.timeScale);
  }

  setTimer(ms: number, fn: () => void): Cancel {
    return realTimer(Math.round(ms * this.timeScale), fn);
  }

  setGuard(ms: number, fn: () => void): Cancel {
    return realTimer(ms, fn);
  }
}

/**
 * The wall clock, for what real stacks check against it and not against the network's clock: the
 * validity of certificates (TLS of the media host, the Noise certificate chain).
 */
export function wallNow(): number {
  return Date.now();
}

/**
 * A wait in real time, for client code (admin/client.ts polls simnet over HTTP from a test): it runs
 * beside the network, not on its clock, and a test's deadline is real.
 */
export function realDelay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

// Unref'd: a pending timer must not keep a process alive (simnet's servers do that while it runs,
// and close() cancels every timer it set).
function realTimer(ms: number, fn: () => void): Cancel {
  const timer = setTimeout(fn, Math.max(0, ms));
  timer.unref();
  return () => clearTimeout(timer);
}
