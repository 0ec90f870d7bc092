// simnet keeps time by the clock it is given (simnet/src/clock.ts): a test that owns the clock owns
// the network's time. QR refs show it through the admin API: one lives 60 s of the network's time,
// whatever real time does, and is refused (410) once the clock has moved past that.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, endSock, memoryAuth, startEnv, waitForQr, type Sock } from './helpers.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import type { Cancel, SimClock } from '../src/clock.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { SimnetError } from '../src/index.js';

/** Time moves only by advance(); timers and guards due on the way fire in order, each at its time. */
class ManualClock implements SimClock {
  private readonly timers = new Set<{ at: number; fn: () => void }>();

  constructor(private time: number) {}

  now(): number {
    return this.time;
  }

  setTimer(ms: number, fn: () => void): Cancel {
    const timer = { at: this.time + Math.max(0, ms), fn };
    this.timers.add(timer);
    return () => this.timers.delete(timer);
  }

  setGuard(ms: number, fn: () => void): Cancel {
    return this.setTimer(ms, fn);
  }

  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers.delete(due);
      this.time = due.at;
      due.fn();
    }
    this.time = target;
  }
}

test('on an injected clock a QR ref lives 60 s of that clock, not of real time', async () => {
  // Far from the wall clock, so anything still reading real time (besides certificates, which
  // Baileys checks against its own real clock) would show.
  const clock = new ManualClock(Date.UTC(2031, 0, 1));
  // With the clock given, the time scale is not used: at this one the first ref would be gone in
  // 0.06 ms of real time, long before a companion could show it.
  const env = await startEnv({ clock, timeScale: 1e-6 });
  let early: Sock | undefined;
  let late: Sock | undefined;
  try {
    await env.admin.createUser({ phone: '5511900000070', pushName: 'Early' });
    await env.admin.createUser({ phone: '5511900000071', pushName: 'Late' });
    early = connect(env, memoryAuth());
    late = connect(env, memoryAuth());
    // Both registrations start at the same instant of the network's time.
    const [earlyQr, lateQr] = await Promise.all([waitForQr(early), waitForQr(late)]);

    clock.advance(59_999);
    const linked = await env.admin.scanQr('5511900000070', earlyQr);
    assert.match(linked.jid, /^5511900000070:\d+@s\.whatsapp\.net$/);

    clock.advance(2);
    const refused = await env.admin.scanQr('5511900000071', lateQr).then(
      () => assert.fail('a ref past its 60 s was scanned'),
      (err: unknown) => err,
    );
    assert.ok(refused instanceof SimnetError);
    assert.equal(refused.status, 410);
    assert.match(refused.message, /QR ref expired/);
  } finally {
    await endSock(early);
    await endSock(late);
    await env.close();
  }
});
