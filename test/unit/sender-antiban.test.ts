// The anti-ban strategy: its pure rules, and the sender honouring them on a virtual clock —
// stranger caps and warm-up, identical-content spacing, typing, pause on restriction, live toggle.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, type AntibanSettings } from '../../src/config.js';
import { errors } from '../../src/errors.js';
import {
  DAY_MS,
  HOUR_MS,
  humanGapMs,
  identicalReadyAt,
  pauseAfterRestriction,
  strangerCaps,
  strangerReadyAt,
  typingMs,
  warmupFactor,
} from '../../src/sender/pacing.js';
import { senderFixture, type SentRecord } from '../helpers/sender-fixture.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const DEFAULTS: AntibanSettings = loadConfig({}).antiban;
const settings = (o: Partial<AntibanSettings>): AntibanSettings => ({ ...DEFAULTS, ...o });

describe('anti-ban rules', () => {
  test('the warm-up ramps a new number from the start fraction to the full caps', () => {
    const s = settings({ warmupDays: 10, warmupStart: 0.2 });
    assert.equal(warmupFactor(0, s), 0.2);
    assert.equal(warmupFactor(null, s), 0.2);
    assert.ok(Math.abs(warmupFactor(5 * DAY_MS, s) - 0.6) < 1e-9);
    assert.equal(warmupFactor(30 * DAY_MS, s), 1);
    assert.deepEqual(strangerCaps(0.2, settings({ strangersPerHour: 12, strangersPerDay: 150 })), { perHour: 2, perDay: 30 });
    assert.deepEqual(strangerCaps(0.01, settings({ strangersPerHour: 12, strangersPerDay: 0 })), { perHour: 1, perDay: 0 });
  });

  test('a cold send waits for the spacing and for the hourly and daily windows', () => {
    const windows = { hour: HOUR_MS, day: DAY_MS };
    const caps = { perHour: 3, perDay: 5 };
    assert.equal(strangerReadyAt([], caps, windows, 60_000), 0);
    assert.equal(strangerReadyAt([1000], caps, windows, 60_000), 61_000);
    // Three in the last hour: the oldest of them must leave the hour first.
    assert.equal(strangerReadyAt([0, 100_000, 200_000], caps, windows, 60_000), HOUR_MS);
    // Five in the last day: the oldest of the five must leave the day.
    const day = [0, 2 * HOUR_MS, 4 * HOUR_MS, 6 * HOUR_MS, 8 * HOUR_MS];
    assert.equal(strangerReadyAt(day, caps, windows, 60_000), DAY_MS);
  });

  test('identical content to more recipients than the cap waits an hour; known recipients do not', () => {
    const sends = [
      { phone: 'a', at: 0 },
      { phone: 'b', at: 10 },
      { phone: 'a', at: 20 },
    ];
    assert.equal(identicalReadyAt(sends, 'c', 3, HOUR_MS), 0);
    assert.equal(identicalReadyAt(sends, 'c', 2, HOUR_MS), 10 + HOUR_MS);
    assert.equal(identicalReadyAt(sends, 'a', 2, HOUR_MS), 0);
    assert.equal(identicalReadyAt(sends, 'c', 0, HOUR_MS), 0);
  });

  test('each restriction within a day doubles the pause, up to the maximum', () => {
    const s = settings({ pauseMs: 1000, maxPauseMs: 5000 });
    assert.deepEqual(pauseAfterRestriction(undefined, null, s), { pauseMs: 1000, restrictions: 1 });
    assert.deepEqual(pauseAfterRestriction({ restrictions: 1, lastRestrictionAt: 0 }, HOUR_MS, s), { pauseMs: 2000, restrictions: 2 });
    assert.deepEqual(pauseAfterRestriction({ restrictions: 3, lastRestrictionAt: 0 }, HOUR_MS, s), { pauseMs: 5000, restrictions: 4 });
    assert.deepEqual(pauseAfterRestriction({ restrictions: 3, lastRestrictionAt: 0 }, 2 * DAY_MS, s), { pauseMs: 1000, restrictions: 1 });
  });

  test('typing lasts as long as the text takes, within bounds; a longer delayMessage wins over the think gap', () => {
    const s = settings({ typingCharsPerSecond: 5, maxTypingMs: 15_000 });
    assert.equal(typingMs({ type: 'text', message: 'x'.repeat(25) }, s, () => 0.5), 5000);
    assert.equal(typingMs({ type: 'text', message: 'x'.repeat(25) }, s, () => 0), 3750);
    assert.equal(typingMs({ type: 'text', message: 'hi' }, s, () => 0.5), 1000);
    assert.equal(typingMs({ type: 'text', message: 'x'.repeat(1000) }, s, () => 1), 15_000);
    assert.equal(humanGapMs(null, settings({ minGapMs: 3000, maxGapMs: 8000 }), () => 0.5), 5500);
    assert.equal(humanGapMs(12, settings({ minGapMs: 3000, maxGapMs: 8000 }), () => 0.5), 12_000);
    assert.equal(humanGapMs(1, settings({ minGapMs: 3000, maxGapMs: 8000 }), () => 0.5), 5500);
  });
});

// A virtual clock in 'auto' mode: time moves only while the sender sleeps, so hours pass in
// milliseconds and what is measured is exactly what the sender decided.
const protocolSeconds = (clockMs: number): number => clockMs / 1000;
const clock = (): VirtualClock => new VirtualClock({ mode: 'auto' });
const near = (a: number, b: number, eps = 1e-6): boolean => Math.abs(a - b) < eps;
const quick = { minGapMs: 100, maxGapMs: 200, strangerGapMs: 1000, identicalPerHour: 0, warmupDays: 0 };

function strangers(n: number, from = 0): string[] {
  return Array.from({ length: n }, (_, i) => `55119000${String(from + i).padStart(5, '0')}`);
}

describe('the sender with the strategy on', () => {
  test('first messages to strangers are capped per hour; numbers that wrote first are not held', async () => {
    const f = await senderFixture({ clock: clock(), antiban: { ...quick, strangersPerHour: 3, strangersPerDay: 0 } });
    try {
      const inst = await f.createInstance({ antiban: true });
      const known = ['5511988880001', '5511988880002'];
      await f.store.antiban.recordInbound(inst.id, known, f.clock.now());
      const cold = strangers(5);
      for (const phone of [...cold.slice(0, 3), ...known, ...cold.slice(3)]) await f.sendText(inst, phone, `hello ${phone}`);
      // Everything is accepted before the sender starts: the clock only moves while it sleeps.
      await f.sender.start();
      await f.transport.until(() => f.transport.sent.length === 7, 10_000, '7 sends');
      const t = (phone: string): number => (f.transport.sent.find((s) => s.phone === phone) as SentRecord).calledAt;
      const hours = (a: number, b: number): number => protocolSeconds(b - a) / 3600;
      // The fourth stranger waits until the first leaves the hour; the fifth until the second does.
      assert.ok(hours(t(cold[0] as string), t(cold[3] as string)) >= 1 - 1e-9, 'fourth stranger inside the first hour');
      assert.ok(hours(t(cold[1] as string), t(cold[4] as string)) >= 1 - 1e-9, 'fifth stranger inside the hour');
      // The replies to people who wrote went out minutes after the third stranger, not an hour later.
      assert.ok(hours(t(cold[2] as string), t(known[1] as string)) < 0.5, 'known contacts were held by the stranger cap');
      // Every first message was spaced by at least the stranger gap (1 protocol second here).
      const coldTimes = cold.map(t);
      for (let i = 1; i < coldTimes.length; i++) {
        assert.ok(protocolSeconds((coldTimes[i] as number) - (coldTimes[i - 1] as number)) >= 0.9);
      }
    } finally {
      await f.close();
    }
  });

  test('a newly paired number gets a fraction of the caps during the warm-up', async () => {
    const f = await senderFixture({
      clock: clock(),
      antiban: { ...quick, strangersPerHour: 10, strangersPerDay: 0, warmupDays: 7, warmupStart: 0.2 },
    });
    try {
      const fresh = await f.createInstance({ antiban: true, pairedAt: f.clock.now() });
      const seasoned = await f.createInstance({ antiban: true });
      for (const phone of strangers(3)) {
        await f.sendText(fresh, phone, 'hi');
        await f.sendText(seasoned, phone, 'hi');
      }
      // Everything is accepted before the sender starts: the clock only moves while it sleeps.
      await f.sender.start();
      await f.transport.until(() => f.transport.sent.length === 6, 10_000, '6 sends');
      const span = (id: string): number => {
        const s = f.transport.sentBy(id);
        return protocolSeconds((s[2] as SentRecord).calledAt - (s[0] as SentRecord).calledAt) / 3600;
      };
      // 0.2 × 10 per hour = 2: the third stranger of the new number waits for the hour.
      assert.ok(span(fresh.id) >= 1 - 1e-9, `new number: ${span(fresh.id).toFixed(2)} h`);
      assert.ok(span(seasoned.id) < 0.5, `seasoned number: ${span(seasoned.id).toFixed(2)} h`);
    } finally {
      await f.close();
    }
  });

  test('identical content goes to at most the capped number of recipients per hour', async () => {
    const f = await senderFixture({ clock: clock(), antiban: { ...quick, identicalPerHour: 2, strangersPerHour: 0, strangersPerDay: 0 } });
    try {
      const inst = await f.createInstance({ antiban: true });
      const phones = strangers(3);
      for (const phone of phones) await f.sendText(inst, phone, 'Promo! 50% off today');
      // Everything is accepted before the sender starts: the clock only moves while it sleeps.
      await f.sender.start();
      await f.transport.until(() => f.transport.sent.length === 3, 10_000, '3 sends');
      const s = f.transport.sent;
      const hours = protocolSeconds((s[2] as SentRecord).calledAt - (s[0] as SentRecord).calledAt) / 3600;
      assert.ok(hours >= 1 - 1e-9, `third identical message after ${hours.toFixed(2)} h`);
      assert.deepEqual(s.map((x) => x.text), ['Promo! 50% off today', 'Promo! 50% off today', 'Promo! 50% off today']);
    } finally {
      await f.close();
    }
  });

  test('each message is preceded by "typing…" scaled to its length, after a human gap', async () => {
    const f = await senderFixture({ clock: clock(), random: () => 0.5, antiban: { minGapMs: 2000, maxGapMs: 2000, typingCharsPerSecond: 10, strangersPerHour: 0, strangersPerDay: 0, strangerGapMs: 0 } });
    try {
      const inst = await f.createInstance({ antiban: true });
      await f.sendText(inst, '5511987650000', 'ok');
      await f.sendText(inst, '5511987650000', 'x'.repeat(80));
      // Everything is accepted before the sender starts: the clock only moves while it sleeps.
      await f.sender.start();
      await f.transport.until(() => f.transport.sent.length === 2, 10_000, '2 sends');
      const [p1, p2] = f.transport.presences;
      const [s1, s2] = f.transport.sent;
      assert.ok(p1 && p2 && s1 && s2);
      assert.equal(p1.state, 'composing');
      const typed1 = protocolSeconds(s1.calledAt - p1.at);
      const typed2 = protocolSeconds(s2.calledAt - p2.at);
      assert.ok(typed1 >= 0.98 && typed1 < 1.5, `short message typed for ${typed1} s`);
      assert.ok(typed2 >= 7.98 && typed2 < 8.5, `80 characters at 10/s typed for ${typed2} s`);
      const thought = protocolSeconds(p2.at - s1.doneAt);
      assert.ok(thought >= 1.98 && thought < 2.5, `gap before typing: ${thought} s`);
      assert.deepEqual(f.transport.sent.map((s) => s.text), ['ok', 'x'.repeat(80)]);
    } finally {
      await f.close();
    }
  });

  test('a restriction signal pauses the instance, reports why, and the refused message is sent after the pause', async () => {
    const vc = clock();
    const f = await senderFixture({ clock: vc, antiban: { ...quick, pauseMs: 10 * 60_000, strangersPerHour: 0, strangersPerDay: 0 } });
    try {
      await f.sender.start();
      const inst = await f.createInstance({ antiban: true });
      let refusals = 0;
      let release = (): void => {};
      f.transport.script = (m) => {
        if (m.message.content.type === 'text' && m.message.content.message === 'm1' && refusals < 2) {
          // Time stands still during the first pause so the test can look at it.
          if (refusals === 0) release = vc.hold();
          refusals++;
          f.transport.restrict({ instanceId: inst.id, reason: 'nack 463', fatal: false });
          return { error: errors.networkRefused('nack 463') };
        }
        return undefined;
      };
      for (let i = 0; i < 3; i++) await f.sendText(inst, '5511987650000', `m${i}`);
      await f.transport.until(() => f.transport.calls.length === 2, 5_000, 'the refused call');
      await f.sender.idle();
      const status = await f.instances.status(inst.id);
      assert.equal(status.antiban.paused, true);
      assert.equal(status.antiban.reason, 'nack 463');
      assert.ok(near(protocolSeconds((status.antiban.until ?? 0) - vc.now()), 600));
      // Paused, the instance still accepts messages: they wait in the queue.
      assert.equal(await f.store.messages.countWaiting(inst.id), 2);
      release();
      await f.transport.until(() => f.transport.sent.length === 3, 10_000, 'the sends after the pauses');
      await f.sender.idle();
      assert.deepEqual(f.transport.sent.map((s) => s.text), ['m0', 'm1', 'm2']);
      const m1Calls = f.transport.calls.filter((c) => c.message.content.type === 'text' && c.message.content.message === 'm1');
      assert.equal(m1Calls.length, 3);
      // The first pause is 10 protocol minutes, the second (same day) 20.
      const events = (await f.store.events.listForInstance(inst.id)).map((e) => JSON.parse(e.payload));
      const pauses = events.filter((e) => e.notification === 'ANTIBAN_PAUSED');
      assert.equal(pauses.length, 2);
      assert.equal(pauses[0].type, 'ReceivedCallback');
      assert.equal(pauses[0].notificationParameters[0], 'nack 463');
      const length = (e: { momment: number; notificationParameters: string[] }): number =>
        protocolSeconds(Number(e.notificationParameters[1]) - e.momment) / 60;
      assert.ok(Math.abs(length(pauses[0]) - 10) < 0.1 && Math.abs(length(pauses[1]) - 20) < 0.1, `pauses ${length(pauses[0])}, ${length(pauses[1])} min`);
      const sentM1 = f.transport.sent[1] as SentRecord;
      const waited = protocolSeconds(sentM1.calledAt - pauses[0].momment) / 60;
      assert.ok(waited >= 29.9, `m1 went out ${waited.toFixed(1)} min after the first restriction (10 + 20 min of pauses)`);
      // Only DeliveryCallbacks of success: the refused message was not reported failed.
      assert.deepEqual(events.filter((e) => e.type === 'DeliveryCallback').map((e) => e.error), [undefined, undefined, undefined]);
      assert.equal((await f.instances.status(inst.id)).antiban.paused, false);
    } finally {
      await f.close();
    }
  });

  test('the governor pauses when too many of the latest sends are refused, and says why', async () => {
    const vc = clock();
    const f = await senderFixture({ clock: vc, antiban: { ...quick, pauseMs: 10 * 60_000, strangersPerHour: 0, strangersPerDay: 0, failureWindow: 4, maxFailureRatio: 0.5 } });
    try {
      await f.sender.start();
      const inst = await f.createInstance({ antiban: true });
      let release = (): void => {};
      f.transport.script = (m) => {
        const text = m.message.content.type === 'text' ? m.message.content.message : '';
        if (text === 'm1' || text === 'm2') return { error: errors.networkRefused('the network refused the message (404): not on WhatsApp') };
        // Time stands still from the send that crosses the ratio, so the test can look at the pause.
        if (text === 'm3') release = vc.hold();
        return undefined;
      };
      for (let i = 0; i < 6; i++) await f.sendText(inst, `55119876500${String(i).padStart(2, '0')}`, `m${i}`);
      await f.transport.until(() => f.transport.calls.length === 4, 5_000, 'four calls');
      await f.sender.idle();
      const status = await f.instances.status(inst.id);
      assert.equal(status.antiban.paused, true, 'paused after 2 refusals in the last 4 sends');
      assert.match(String(status.antiban.reason), /^failure ratio 0\.50 over the last 4 sends \(max 0\.5\)$/);
      assert.equal(await f.store.messages.countWaiting(inst.id), 2, 'the rest waits out the pause');
      release();
      await f.transport.until(() => f.transport.sent.length === 4, 10_000, 'the sends after the pause');
      assert.deepEqual(f.transport.sent.map((s) => s.text), ['m0', 'm3', 'm4', 'm5']);
      const events = (await f.store.events.listForInstance(inst.id)).map((e) => JSON.parse(e.payload) as { notification?: string; notificationParameters?: string[] });
      const pauses = events.filter((e) => e.notification === 'ANTIBAN_PAUSED');
      assert.equal(pauses.length, 1, 'one pause: the window starts afresh');
      assert.equal(pauses[0]?.notificationParameters?.[0], status.antiban.reason);
    } finally {
      await f.close();
    }
  });

  test('with the strategy off a restriction changes nothing: the refused message fails and the queue goes on', async () => {
    const f = await senderFixture({ clock: clock() });
    try {
      await f.sender.start();
      const inst = await f.createInstance({ antiban: false });
      f.transport.script = (m) => {
        if (m.message.content.type === 'text' && m.message.content.message === 'm0') {
          f.transport.restrict({ instanceId: inst.id, reason: 'nack 463', fatal: false });
          return { error: errors.networkRefused('nack 463') };
        }
        return undefined;
      };
      const m0 = await f.sendText(inst, '5511987650000', 'm0');
      await f.sendText(inst, '5511987650000', 'm1');
      await f.transport.until(() => f.transport.sent.length === 1, 5_000, 'm1');
      await f.sender.idle();
      assert.equal((await f.store.messages.findByZaapId(inst.id, m0.zaapId))?.error, 'nack 463');
      assert.equal((await f.instances.status(inst.id)).antiban.paused, false);
    } finally {
      await f.close();
    }
  });

  test('update-antiban applies to the running lane at once and says whether a session ran', async () => {
    const f = await senderFixture({ clock: clock(), random: () => 0, antiban: { minGapMs: 500, maxGapMs: 500, strangerGapMs: 0 } });
    try {
      await f.sender.start();
      const inst = await f.createInstance({ antiban: false });
      await f.sendText(inst, '5511987650000', 'plain');
      await f.transport.until(() => f.transport.sent.length === 1, 5_000, 'first send');
      assert.equal(f.transport.presences.length, 0);
      assert.deepEqual(await f.instances.setAntiban(inst.id, true), { value: true, antiBanEnabled: true, workerSynced: true });
      await f.sendText(inst, '5511987650000', 'humanised');
      await f.transport.until(() => f.transport.sent.length === 2, 5_000, 'second send');
      assert.equal(f.transport.presences.length, 1);
      f.transport.setConnected(inst.id, false);
      assert.deepEqual(await f.instances.setAntiban(inst.id, false), { value: true, antiBanEnabled: false, workerSynced: false });
    } finally {
      await f.close();
    }
  });
});
