// A Clock whose time moves only when everything waiting on it is asleep: once the process has been
// quiet for a few event-loop turns and the gate (e.g. "every sender lane is waiting") opens, it
// jumps to the earliest timer and fires it. Hours of pacing run in milliseconds, and a measured gap
// is exactly the gap the code asked for — no scheduler noise on a loaded machine.
import type { Clock } from '../../src/clock.js';

/** Event-loop turns with no timer activity before time may move (work in flight finishes first). */
const QUIET_TURNS = 50;

export class VirtualClock implements Clock {
  private t: number;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 0;
  private pumping = false;
  private quiet = 0;
  private held = false;
  private gate: () => Promise<void> = async () => {};

  constructor(
    readonly timeScale = 1,
    start = Date.now(),
  ) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  scale(ms: number): number {
    return ms * this.timeScale;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + Math.max(0, ms) * this.timeScale, fn });
    this.poke();
    return () => {
      this.timers.delete(id);
    };
  }

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

  /** Time moves only once `gate()` resolves (work in flight elsewhere, e.g. a database thread, finishes first). */
  setGate(gate: () => Promise<void>): void {
    this.gate = gate;
  }

  /** Stops time until `release()` is called (to look at a state that only lasts a while). */
  hold(): () => void {
    this.held = true;
    return () => {
      this.held = false;
      this.poke();
    };
  }

  private poke(): void {
    this.quiet = 0;
    if (this.pumping || this.held) return;
    this.pumping = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    if (this.timers.size === 0 || this.held) {
      this.pumping = false;
      return;
    }
    if (++this.quiet < QUIET_TURNS) {
      setImmediate(() => this.turn());
      return;
    }
    void this.gate().then(() => {
      // New timers may have come while the gate was closed: still fire the earliest one.
      if (this.quiet >= QUIET_TURNS && !this.held) {
        let first: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of this.timers) if (!first || entry[1].at < first[1].at) first = entry;
        if (first) {
          this.timers.delete(first[0]);
          this.t = Math.max(this.t, first[1].at);
          first[1].fn();
        }
      }
      this.quiet = 0;
      setImmediate(() => this.turn());
    });
  }
}
