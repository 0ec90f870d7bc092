// The sender's Z-API pacing on a virtual clock in 'auto' mode (time moves only while the sender
// sleeps, so a measured gap is exactly the gap it asked for): default 1–3 s gaps, exact delayMessage,
// "typing…" for delayTyping, and ZAPGATE_PACING=off removing every gap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { senderFixture } from '../helpers/sender-fixture.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

/** Time jumps to the sender's next timer whenever every lane waits. */
const autoClock = (): VirtualClock => new VirtualClock({ mode: 'auto' });
/** Clock ms → seconds. */
const seconds = (ms: number): number => ms / 1000;
const near = (a: number, b: number): boolean => Math.abs(a - b) < 1e-6;

/** Gaps between one send finishing and the next one starting, in protocol seconds. */
function gaps(sent: { calledAt: number; doneAt: number }[]): number[] {
  return sent.slice(1).map((s, i) => seconds(s.calledAt - (sent[i] as { doneAt: number }).doneAt));
}

test('default gaps are random between 1 and 3 seconds', async () => {
  // A fixed jitter sequence hits both ends of the range, then the middle.
  const draws = [0, 0.999, 0.5];
  let n = 0;
  const f = await senderFixture({ clock: autoClock(), random: () => draws[n++ % draws.length] as number });
  try {
    const inst = await f.createInstance();
    for (let i = 0; i < 7; i++) await f.sendText(inst, '5511987650000', `m${i}`);
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === 7, 10_000, '7 sends');
    // The first message used draw 0 (1 s after its enqueue); then 3, 2, 1, 3, 2, 1.
    assert.deepEqual(gaps(f.transport.sent).map((g) => Math.round(g * 1000) / 1000), [2.998, 2, 1, 2.998, 2, 1]);
  } finally {
    await f.close();
  }
});

test('with real jitter every gap stays within 1–3 seconds, and they differ', async () => {
  const f = await senderFixture({ clock: autoClock() });
  try {
    const inst = await f.createInstance();
    for (let i = 0; i < 30; i++) await f.sendText(inst, '5511987650000', `m${i}`);
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === 30, 10_000, '30 sends');
    const measured = gaps(f.transport.sent);
    for (const g of measured) assert.ok(g >= 1 && g <= 3, `gap ${g.toFixed(3)} s outside 1–3 s`);
    assert.ok(Math.max(...measured) - Math.min(...measured) > 0.5, `gaps are not jittered: ${measured.map((g) => g.toFixed(2))}`);
  } finally {
    await f.close();
  }
});

test('delayMessage waits exactly that many seconds before the message', async () => {
  const f = await senderFixture({ clock: autoClock(), random: () => 0 });
  try {
    const inst = await f.createInstance();
    const delays = [5, 2, 15, 1];
    for (const [i, d] of delays.entries()) await f.sendText(inst, '5511987650000', `m${i}`, { delayMessage: d });
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === delays.length, 10_000, 'all sends');
    const measured = gaps(f.transport.sent);
    for (const [i, g] of measured.entries()) {
      assert.ok(near(g, delays[i + 1] as number), `message ${i + 1}: waited ${g} s, asked ${delays[i + 1]} s`);
    }
  } finally {
    await f.close();
  }
});

test('a message enqueued into an idle queue waits its gap from the moment it was accepted', async () => {
  const clock = autoClock();
  const f = await senderFixture({ clock, random: () => 0.5 });
  try {
    const inst = await f.createInstance();
    await f.sender.start();
    const acceptedAt = clock.now();
    await f.sendText(inst, '5511987650000', 'hello', { delayMessage: 4 });
    await f.transport.until(() => f.transport.sent.length === 1, 10_000, 'the send');
    assert.ok(near(seconds((f.transport.sent[0]?.calledAt ?? 0) - acceptedAt), 4));
  } finally {
    await f.close();
  }
});

test('delayTyping shows "typing…" to the recipient for that long before the message', async () => {
  const f = await senderFixture({ clock: autoClock(), random: () => 0 });
  try {
    const inst = await f.createInstance();
    await f.sendText(inst, '5511987650001', 'hello', { delayTyping: 4 });
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === 1, 10_000, 'the send');
    const [presence] = f.transport.presences;
    const [sent] = f.transport.sent;
    assert.ok(presence && sent);
    assert.equal(presence.state, 'composing');
    assert.equal(presence.phone, '5511987650001');
    assert.ok(near(seconds(sent.calledAt - presence.at), 4));
  } finally {
    await f.close();
  }
});

test('ZAPGATE_PACING=off sends back to back, ignoring delayMessage and delayTyping', async () => {
  // On the real clock at scale 1: a single default gap would take 1–3 real seconds.
  const f = await senderFixture({ timeScale: 1, pacing: false });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    for (let i = 0; i < 20; i++) await f.sendText(inst, '5511987650000', `m${i}`, i % 2 ? { delayMessage: 15, delayTyping: 15 } : {});
    await f.transport.until(() => f.transport.sent.length === 20, 5_000, '20 sends');
    assert.equal(f.transport.presences.length, 0);
  } finally {
    await f.close();
  }
});
