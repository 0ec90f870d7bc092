// How the sender is wired to the rest: incoming messages make a number known (no longer a stranger),
// and update-antiban reaches the sender's lane through the sessions port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventSink, GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { recordingInboundContacts } from '../../src/sender/inbound-contacts.js';
import { withLiveAntiban } from '../../src/sender/live-antiban.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import type { SessionsPort } from '../../src/sessions/port.js';
import { senderFixture } from '../helpers/sender-fixture.js';

function incoming(phone: string, extra: Partial<ReceivedCallback> = {}): ReceivedCallback {
  return {
    type: 'ReceivedCallback',
    messageId: `id-${phone}`,
    phone,
    fromMe: false,
    momment: 0,
    status: 'RECEIVED',
    chatName: '',
    senderName: '',
    participantPhone: null,
    isGroup: false,
    text: { message: 'hi' },
    ...extra,
  };
}

test('a number that wrote to the instance is no longer a stranger; own, group and system events change nothing', async () => {
  const f = await senderFixture({ timeScale: 1 });
  try {
    const inst = await f.createInstance();
    const forwarded: GatewayEvent[] = [];
    const inner: EventSink = {
      async emit(_id, events) {
        forwarded.push(...events);
      },
    };
    const sink = recordingInboundContacts(inner, f.store.antiban, f.clock);
    const events = [
      incoming('5511911111111'),
      incoming('5511922222222', { fromMe: true }),
      incoming('120363000000000001-group', { isGroup: true }),
      incoming('5511933333333', { notification: 'GROUP_PARTICIPANT_ADD' }),
    ];
    await sink.emit(inst.id, events);
    assert.deepEqual(forwarded, events);
    assert.equal(await f.store.antiban.isStranger(inst.id, '5511911111111'), false);
    assert.equal(await f.store.antiban.isStranger(inst.id, '5511922222222'), true);
    assert.equal(await f.store.antiban.isStranger(inst.id, '5511933333333'), true);
    // A later first send to the number that wrote is not a cold message.
    await f.store.antiban.recordOutbound({ instanceId: inst.id, phone: '5511911111111', at: f.clock.now() });
    await f.store.antiban.drain();
    assert.deepEqual(await f.store.antiban.coldSendsSince(inst.id, 0), []);
  } finally {
    await f.close();
  }
});

test('update-antiban is applied by the sender and reported synced only when it and the session both ran it', () => {
  const calls: [string, boolean][] = [];
  const engine = { ...offlineSessions(), applyAntiban: () => true, isConnected: () => true };
  let senderApplied = true;
  const port = withLiveAntiban(engine, {
    applyAntiban(id: string, on: boolean) {
      calls.push([id, on]);
      return senderApplied;
    },
  });
  assert.equal(port.applyAntiban('a', true), true);
  senderApplied = false;
  assert.equal(port.applyAntiban('a', false), false);
  assert.deepEqual(calls, [
    ['a', true],
    ['a', false],
  ]);
  // Every other operation still goes to the engine itself.
  assert.equal(port.isConnected('a'), true);
});

test('methods of a class-based engine keep their own `this` through the wrapper', () => {
  // A #private field throws when reached through a Proxy receiver: the wrapper must bind to the engine.
  class Engine {
    readonly #connected = new Set(['x']);
    isConnected(id: string): boolean {
      return this.#connected.has(id);
    }
    applyAntiban(): boolean {
      return true;
    }
  }
  const port = withLiveAntiban(new Engine() as unknown as SessionsPort, { applyAntiban: () => true });
  assert.equal(port.isConnected('x'), true);
  assert.equal(port.isConnected('y'), false);
});
