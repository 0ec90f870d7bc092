// Scheduled sends in the sender lane: a message that falls due while the lane is between its two
// reads of the queue (the due head, then the next scheduled time) still leaves. The lane once took
// a fresh "now" for the second read, found nothing scheduled after it, went idle, and the message
// waited for the next enqueue: seen in the scheduled-kill9 e2e test on a loaded machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { senderFixture } from '../helpers/sender-fixture.js';

test('a scheduled message that falls due between the lane\'s two queue reads is still sent', async () => {
  const f = await senderFixture({ timeScale: 1, pacing: false });
  try {
    const inst = await f.createInstance();
    const dueAt = f.clock.now() + 300;
    await f.sendText(inst, '5511987650000', 'at its time', { scheduledAt: dueAt });
    // The head read answers "nothing due" just before the message's time, and the lane goes on only
    // after it (a slow read or commit on a loaded machine), so the next read comes after the time.
    const messages = f.store.messages;
    const nextHead = messages.nextHead.bind(messages);
    let stalled = 0;
    messages.nextHead = async (...args) => {
      const head = await nextHead(...args);
      if (!head && f.clock.now() < dueAt) {
        stalled++;
        await sleep(dueAt - f.clock.now() + 20);
      }
      return head;
    };
    await f.sender.start();
    await f.transport.until(() => f.transport.sent.length === 1, 3_000, 'the scheduled send');
    assert.ok(stalled > 0, 'the head read was held past the message\'s time');
    assert.ok(f.transport.sent[0]!.calledAt >= dueAt, 'not before its time');
  } finally {
    await f.close();
  }
});
