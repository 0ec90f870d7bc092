// Crash safety of the sender: a message is committed as in flight before the engine sees it, and
// a new sender over the same database sends it again with the same messageId, in FIFO order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptedTransport, senderFixture } from '../helpers/sender-fixture.js';

test('after a crash mid-send the in-flight message is sent again with the same id, then the rest in order', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    await f.sender.start();
    const inst = await f.createInstance();
    // The third send never returns: the process "dies" while the engine holds it.
    f.transport.script = (m) =>
      m.message.content.type === 'text' && m.message.content.message === 'm2' ? { hang: new Promise<void>(() => {}) } : undefined;
    const accepted = [];
    for (let i = 0; i < 5; i++) accepted.push(await f.sendText(inst, '5511987650000', `m${i}`));
    await f.transport.until(() => f.transport.calls.length === 3, 5_000, 'the third call');
    await f.store.messages.drain();
    const states = await Promise.all(accepted.map(async (a) => (await f.store.messages.findByZaapId(inst.id, a.zaapId))?.state));
    assert.deepEqual(states, ['sent', 'sent', 'in_flight', 'queued', 'queued']);

    const after = new ScriptedTransport(f.clock);
    after.setConnected(inst.id, true);
    const restarted = f.restart(after);
    await restarted.start();
    await after.until(() => after.sent.length === 3, 5_000, 'the recovered sends');
    await restarted.idle();

    // The in-flight one again (same messageId as handed over before the crash), then the queued ones.
    assert.deepEqual(
      after.sent.map((s) => [s.text, s.messageId]),
      accepted.slice(2).map((a, i) => [`m${i + 2}`, a.messageId]),
    );
    assert.equal(f.transport.calls[2]?.messageId, accepted[2]?.messageId);
    // Nothing that had been sent before the crash went out again.
    assert.equal(after.calls.length, 3);
    const final = await Promise.all(accepted.map(async (a) => (await f.store.messages.findByZaapId(inst.id, a.zaapId))?.state));
    assert.deepEqual(final, ['sent', 'sent', 'sent', 'sent', 'sent']);
    // One DeliveryCallback per message: the in-flight one had not been reported before the crash.
    const delivered = (await f.store.events.listForInstance(inst.id)).map((e) => JSON.parse(e.payload).zaapId);
    assert.deepEqual(delivered, accepted.map((a) => a.zaapId));
  } finally {
    await f.close();
  }
});

test('a restarted sender picks up every instance that had messages waiting', async () => {
  const f = await senderFixture({ timeScale: 0.001 });
  try {
    // The first sender never started (the process died right after accepting).
    const instances = await Promise.all([1, 2, 3, 4].map(() => f.createInstance({ connected: false })));
    for (const inst of instances) for (let i = 0; i < 3; i++) await f.sendText(inst, '5511987650000', `${inst.id}:${i}`);
    const after = new ScriptedTransport(f.clock);
    for (const inst of instances) after.setConnected(inst.id, true);
    const restarted = f.restart(after);
    await restarted.start();
    await after.until(() => after.sent.length === 12, 5_000, 'every queue');
    for (const inst of instances) {
      assert.deepEqual(after.sentBy(inst.id).map((s) => s.text), [0, 1, 2].map((i) => `${inst.id}:${i}`));
    }
  } finally {
    await f.close();
  }
});
