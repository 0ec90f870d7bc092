// simnet's time-lapse (src/clock.ts) with jumps: between jumps it runs like the time-lapse, 1 /
// timeScale times faster than real time; jump(ms) moves the network's time ahead at once, firing
// every timer due on the way in order, so a test sees a spam window roll over or a call ring out
// without sleeping through it. Guards stay on real time (they time things outside the network).
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { TimeLapseClock, type Cancel } from '../src/index.js';

interface Timer {
  at: number;
  fn: () => void;
  cancelReal: Cancel;
}

export class JumpClock extends TimeLapseClock {
  private offset = 0;
  private readonly timers = new Map<number, Timer>();
  private nextId = 0;

  override now(): number {
    return super.now() + this.offset;
  }

  override setTimer(ms: number, fn: () => void): Cancel {
    const id = this.nextId++;
    this.arm(id, this.now() + Math.max(0, ms), fn);
    return () => {
      this.timers.get(id)?.cancelReal();
      this.timers.delete(id);
    };
  }

  /** Moves the network's time `ms` ahead; every timer due by then fires, earliest first. */
  jump(ms: number): void {
    this.offset += Math.max(0, ms);
    for (;;) {
      let first: [number, Timer] | undefined;
      for (const entry of this.timers) if (entry[1].at <= this.now() && (!first || entry[1].at < first[1].at)) first = entry;
      if (!first) break;
      first[1].cancelReal();
      this.timers.delete(first[0]);
      first[1].fn();
    }
    // The rest are due sooner in real time now.
    for (const [id, t] of [...this.timers]) {
      t.cancelReal();
      this.arm(id, t.at, t.fn);
    }
  }

  private arm(id: number, at: number, fn: () => void): void {
    const cancelReal = super.setTimer(at - this.now(), () => {
      this.timers.delete(id);
      fn();
    });
    this.timers.set(id, { at, fn, cancelReal });
  }
}
