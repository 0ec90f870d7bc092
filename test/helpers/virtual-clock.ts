// A Clock the test owns (src/clock.ts is the gateway's side). Three ways to let time pass:
// - 'flowing' (default): time moves with real time, so real I/O (Baileys, simnet, HTTP) keeps its
//   natural pace and nothing is compressed, and the test jumps it with advance() when it wants
//   protocol time to pass (a pacing gap, a retry, a QR lifetime, a scheduled time). Every timer
//   due in the jump fires in order, each at its own time.
// - 'frozen': time moves only by advance().
// 'flowing' keeps guards (setGuard, withTimeout, waitUntil's bound) on real time: see setGuard.
// - 'auto': time stands still until everything waiting on it is asleep (the gate, e.g. "every
//   sender lane is waiting") and the process has been quiet a few event-loop turns; then it jumps to
//   the earliest timer. Hours of pacing run in milliseconds, and a measured gap is exactly the gap
//   the code asked for. Only for code with no real I/O in flight (a guard would fire early).
import { performance } from 'node:perf_hooks';
import { ClockBase, type Cancel } from '../../src/clock.js';

/** Event-loop turns with no timer activity before 'auto' time may move (work in flight finishes first). */
const QUIET_TURNS = 50;
/** Turns given to the work a fired timer starts, before advance() fires the next one. */
const SETTLE_TURNS = 5;

export type VirtualClockMode = 'flowing' | 'frozen' | 'auto';

export interface VirtualClockOptions {
  mode?: VirtualClockMode;
  /** The clock's start (ms since the epoch); default: the wall clock now. */
  start?: number;
  /**
   * Where guards run: 'real' (default while flowing) or 'virtual' (default when frozen or auto).
   * A frozen clock in front of real I/O (a gateway with Baileys and simnet) wants 'real'.
   */
  guards?: 'real' | 'virtual';
}

interface Timer {
  at: number;
  fn: () => void;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VirtualClock extends ClockBase {
  readonly mode: VirtualClockMode;
  private readonly realGuards: boolean;
  // now() = base + (real ms since realBase) while flowing; base alone otherwise.
  private base: number;
  private realBase = performance.now();
  private readonly timers = new Map<number, Timer>();
  private nextId = 0;
  private armed: ReturnType<typeof setTimeout> | null = null;
  private advancing = false;
  // 'auto' only.
  private pumping = false;
  private quiet = 0;
  private held = false;
  private gate: () => Promise<void> = async () => {};

  constructor(options: VirtualClockOptions = {}) {
    super();
    this.mode = options.mode ?? 'flowing';
    this.realGuards = (options.guards ?? (this.mode === 'flowing' ? 'real' : 'virtual')) === 'real';
    this.base = options.start ?? Date.now();
  }

  now(): number {
    if (this.mode !== 'flowing') return this.base;
    return Math.floor(this.base + (performance.now() - this.realBase));
  }

  setTimer(ms: number, fn: () => void): Cancel {
    const id = this.nextId++;
    this.timers.set(id, { at: this.now() + Math.max(0, ms), fn });
    this.changed();
    return () => {
      if (this.timers.delete(id)) this.changed();
    };
  }

  /**
   * 'flowing': guards stay on real time. What they wait for (a socket, simnet, an HTTP peer, a
   * child process) runs on real time in such a test, so a jump of protocol time must never make a
   * real answer look late. 'frozen' and 'auto': the test owns all time, guards included (there is
   * no real I/O to wait for), so a test fires a guard by advancing past it.
   */
  setGuard(ms: number, fn: () => void): Cancel {
    if (!this.realGuards) return this.setTimer(ms, fn);
    const timer = setTimeout(fn, Math.max(0, ms));
    timer.unref();
    return () => clearTimeout(timer);
  }

  /** How many timers are waiting (for a test to see that something is, or is not, scheduled). */
  get pending(): number {
    return this.timers.size;
  }

  /** When the earliest timer is due, or null. */
  nextAt(): number | null {
    const first = this.earliest();
    return first ? first[1].at : null;
  }

  /**
   * Moves time `ms` ahead. Every timer due by then fires in order, at its own time, with a few
   * event-loop turns between for the work it starts (which may set timers that are due too).
   */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.now() + Math.max(0, ms));
  }

  async advanceTo(target: number): Promise<void> {
    this.advancing = true;
    try {
      for (;;) {
        const first = this.earliest();
        if (!first || first[1].at > target) break;
        this.timers.delete(first[0]);
        this.setNow(Math.max(this.now(), first[1].at));
        first[1].fn();
        for (let i = 0; i < SETTLE_TURNS; i++) await turn();
      }
      this.setNow(Math.max(this.now(), target));
    } finally {
      this.advancing = false;
      this.changed();
    }
  }

  /** Jumps to the earliest timer and fires it (and any due with it); false when none is waiting. */
  async advanceToNext(): Promise<boolean> {
    const at = this.nextAt();
    if (at === null) return false;
    await this.advanceTo(at);
    return true;
  }

  /**
   * Lets protocol time run as fast as the work allows until `done()` holds: whenever the process
   * has been quiet for `quietMs` of real time, jumps to the next timer. For scenarios that span
   * hours of pacing (a campaign, a warm-up). Fails after `maxJumps` jumps or `timeoutMs` real ms.
   */
  async runUntil(what: string, done: () => boolean | Promise<boolean>, options: { quietMs?: number; maxJumps?: number; timeoutMs?: number } = {}): Promise<void> {
    const quietMs = options.quietMs ?? 20;
    const maxJumps = options.maxJumps ?? 100_000;
    const deadline = performance.now() + (options.timeoutMs ?? 120_000);
    for (let jumps = 0; ; ) {
      if (await done()) return;
      if (jumps >= maxJumps || performance.now() > deadline) throw new Error(`runUntil: ${what} did not happen (${jumps} jumps, clock at ${new Date(this.now()).toISOString()})`);
      await new Promise((resolve) => setTimeout(resolve, quietMs));
      if (await done()) return;
      if (await this.advanceToNext()) jumps++;
    }
  }

  /** 'auto': time moves only once `gate()` resolves (work in flight elsewhere, e.g. a database thread, finishes first). */
  setGate(gate: () => Promise<void>): void {
    this.gate = gate;
  }

  /** 'auto': stops time until `release()` is called (to look at a state that only lasts a while). */
  hold(): () => void {
    this.held = true;
    return () => {
      this.held = false;
      this.changed();
    };
  }

  private setNow(t: number): void {
    this.base = t;
    this.realBase = performance.now();
  }

  private earliest(): [number, Timer] | undefined {
    let first: [number, Timer] | undefined;
    for (const entry of this.timers) if (!first || entry[1].at < first[1].at) first = entry;
    return first;
  }

  private changed(): void {
    if (this.mode === 'flowing') this.arm();
    else if (this.mode === 'auto') this.poke();
  }

  /** 'flowing': one real timer, for the earliest virtual one. */
  private arm(): void {
    if (this.armed) clearTimeout(this.armed);
    this.armed = null;
    if (this.advancing) return;
    const at = this.nextAt();
    if (at === null) return;
    this.armed = setTimeout(() => {
      this.armed = null;
      void this.advanceTo(this.now());
    }, Math.max(0, at - this.now()));
    this.armed.unref();
  }

  private poke(): void {
    this.quiet = 0;
    if (this.pumping || this.held || this.advancing) return;
    this.pumping = true;
    setImmediate(() => this.autoTurn());
  }

  private autoTurn(): void {
    if (this.timers.size === 0 || this.held) {
      this.pumping = false;
      return;
    }
    if (++this.quiet < QUIET_TURNS) {
      setImmediate(() => this.autoTurn());
      return;
    }
    void this.gate().then(() => {
      // New timers may have come while the gate was closed: still fire the earliest one.
      if (this.quiet >= QUIET_TURNS && !this.held) {
        const first = this.earliest();
        if (first) {
          this.timers.delete(first[0]);
          this.base = Math.max(this.base, first[1].at);
          first[1].fn();
        }
      }
      this.quiet = 0;
      setImmediate(() => this.autoTurn());
    });
  }
}
