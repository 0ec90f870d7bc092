// The gateway's one source of time. Everything that reads the time or waits goes through a Clock,
// so a test can own time (test/helpers/virtual-clock.ts) and a time-lapse run can compress it; a
// lint rule (eslint.config.js, test/unit/clock-only.test.ts) keeps Date.now, setTimeout and
// setInterval out of every other module. docs/design.md, "Time through one clock".
//
// Two kinds of waits, because they answer to different clocks:
// - protocol time (`now`, `setTimer`, `sleep`, `every`): pacing, schedules, retries, retention,
//   QR lifetimes. ZAPGATE_TIME_SCALE compresses it; a virtual clock jumps it.
// - guards (`setGuard`, `withTimeout`, `waitUntil`): how long something outside the process may
//   take to answer (a peer, a socket, a child process, a lock). A remote does not answer faster
//   because our protocol clock runs faster, so guards are never scaled.

import { performance } from 'node:perf_hooks';

/** Cancels a timer; calling it again, or after the timer fired, does nothing. */
export type Cancel = () => void;

export interface Clock {
  /**
   * Milliseconds since the epoch on the gateway's clock: the wall clock, or under a time scale a
   * clock that runs `1 / scale` times faster from its origin. Every timestamp and every deadline
   * computed from `now()` is in this one unit.
   */
  now(): number;
  /** Runs `fn` once `ms` of protocol time have passed. Never keeps the process alive. */
  setTimer(ms: number, fn: () => void): Cancel;
  /** Runs `fn` after `ms` of unscaled time: a deadline on something outside the process. */
  setGuard(ms: number, fn: () => void): Cancel;
  /** Waits `ms` of protocol time; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * `work`, unless it takes more than `ms` (a guard): then it rejects with `onTimeout()`. `work`
   * is not cancelled (pass it a signal for that); a late rejection of it is swallowed.
   */
  withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T>;
  /**
   * Resolves true once `check()` holds, false when `ms` (a guard) pass first. `changed` is how the
   * caller learns of a change worth checking again: it gets a wake-up function and returns an
   * unsubscribe. Without it, `check` is read again every `pollMs` (default 25).
   */
  waitUntil(check: () => boolean | Promise<boolean>, ms: number, options?: WaitOptions): Promise<boolean>;
}

export interface WaitOptions {
  changed?: (wake: () => void) => Cancel;
  pollMs?: number;
  signal?: AbortSignal;
}

/** sleep/withTimeout/waitUntil written once over now/setTimer/setGuard, for every clock. */
export abstract class ClockBase implements Clock {
  abstract now(): number;
  abstract setTimer(ms: number, fn: () => void): Cancel;
  abstract setGuard(ms: number, fn: () => void): Cancel;

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        cancel();
        reject(signal?.reason);
      };
      const cancel = this.setTimer(ms, () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const cancel = this.setGuard(ms, () => reject(onTimeout()));
      work.then(
        (value) => {
          cancel();
          resolve(value);
        },
        (err: unknown) => {
          cancel();
          reject(err);
        },
      );
    });
  }

  async waitUntil(check: () => boolean | Promise<boolean>, ms: number, options: WaitOptions = {}): Promise<boolean> {
    let expired = false;
    // A change seen while `check()` runs is kept, not lost: the next wait returns at once.
    let changed = false;
    let wake: () => void = () => undefined;
    const kick = (): void => {
      changed = true;
      wake();
    };
    const cancelGuard = this.setGuard(ms, () => {
      expired = true;
      kick();
    });
    const unsubscribe = options.changed?.(kick);
    options.signal?.addEventListener('abort', kick);
    try {
      for (;;) {
        changed = false;
        if (options.signal?.aborted) throw options.signal.reason;
        if (await check()) return true;
        if (expired) return false;
        if (changed) continue;
        await new Promise<void>((resolve) => {
          const cancelPoll = options.changed ? () => undefined : this.setGuard(options.pollMs ?? 25, kick);
          wake = () => {
            cancelPoll();
            resolve();
          };
        });
        wake = () => undefined;
      }
    } finally {
      cancelGuard();
      unsubscribe?.();
      options.signal?.removeEventListener('abort', kick);
    }
  }
}

/**
 * The process's clock. At `timeScale` 1 (production) it is the wall clock. Below 1 it is a
 * time-lapse for tests, benches and demos: from `origin` it runs `1 / timeScale` times faster, so
 * timestamps and waits agree with each other. Processes that share data (a restart, a cluster)
 * must share `origin` (ZAPGATE_TIME_ORIGIN) or their clocks disagree.
 */
export class SystemClock extends ClockBase {
  constructor(
    readonly timeScale = 1,
    readonly origin = Date.now(),
  ) {
    super();
  }

  now(): number {
    if (this.timeScale === 1) return Date.now();
    // Sub-millisecond wall time: at scale 0.001 Date.now() would make this clock move in 1 s steps.
    const wall = performance.timeOrigin + performance.now();
    return Math.floor(this.origin + (wall - this.origin) / this.timeScale);
  }

  setTimer(ms: number, fn: () => void): Cancel {
    return this.setGuard(Math.round(ms * this.timeScale), fn);
  }

  setGuard(ms: number, fn: () => void): Cancel {
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  }
}

export function systemClock(timeScale = 1, origin?: number): Clock {
  return new SystemClock(timeScale, origin);
}

export interface PeriodicTaskOptions {
  /** Protocol ms from the end of one run to the start of the next. */
  everyMs: number;
  /** One run; a thrown error goes to `onError` and the task keeps its schedule. */
  run: () => Promise<void> | void;
  onError: (err: unknown) => void;
  /** When the first run starts after start(): 0 runs at once (default: one period). */
  firstAfterMs?: number;
  /**
   * 'protocol' (default): the period is protocol time (retention, sweeps: ages on the clock).
   * 'guard': a poll of something outside (a lease, another node's writes, the disk), timed like a
   * guard and never scaled: at a time scale of 0.05 a 100 ms poll would otherwise run every 5 ms.
   */
  timing?: 'protocol' | 'guard';
}

/**
 * A background job that runs every `everyMs` on a clock: the sweepers, retention, housekeeping,
 * the audit prune, the campaign runner, the watchers and the cluster heartbeats. Runs never
 * overlap (the next is timed from the end of the last); `soon()` runs it early; `stop()` cancels
 * the next run and resolves once the run under way has finished.
 */
export class PeriodicTask {
  private cancel: Cancel | null = null;
  private current: Promise<void> | null = null;
  private stopped = true;
  private again = false;

  constructor(
    private readonly clock: Clock,
    private readonly options: PeriodicTaskOptions,
  ) {}

  get started(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(this.options.firstAfterMs ?? this.options.everyMs);
  }

  /** Runs as soon as possible (after the run under way, if any); the period restarts from there. */
  soon(): void {
    if (this.stopped) return;
    if (this.current) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /** Runs once now, whatever the schedule (resolves when that run ends). */
  async runNow(): Promise<void> {
    if (this.current) await this.current;
    this.cancel?.();
    this.cancel = null;
    await this.runOnce();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = null;
    await this.current;
  }

  private schedule(ms: number): void {
    this.cancel?.();
    const fire = (): void => {
      this.cancel = null;
      void this.runOnce();
    };
    this.cancel = this.options.timing === 'guard' ? this.clock.setGuard(ms, fire) : this.clock.setTimer(ms, fire);
  }

  private async runOnce(): Promise<void> {
    const run = (async () => {
      try {
        await this.options.run();
      } catch (err) {
        this.options.onError(err);
      }
    })();
    this.current = run;
    await run;
    this.current = null;
    if (this.stopped) return;
    const again = this.again;
    this.again = false;
    this.schedule(again ? 0 : this.options.everyMs);
  }
}
