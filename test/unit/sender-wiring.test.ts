// How the sender is wired to the rest: incoming messages make a number known (no longer a stranger),
// and update-antiban reaches the sender's lane as well as the session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventSink, GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { recordingInboundContacts } from '../../src/outbox/inbound-contacts.js';
import { InstancesService } from '../../src/services/instances-service.js';
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

test('update-antiban is applied by the sender and reported synced only when it and the session both ran it', async () => {
  const f = await senderFixture({ timeScale: 1 });
  try {
    const inst = await f.createInstance();
    const calls: [string, string, boolean][] = [];
    let sessionRan = true;
    let senderApplied = true;
    const engine: SessionsPort = {
      ...offlineSessions(),
      applyAntiban: (id, on) => (calls.push(['session', id, on]), sessionRan),
    };
    const sender = { applyAntiban: (id: string, on: boolean) => (calls.push(['sender', id, on]), senderApplied) };
    const instances = new InstancesService({ store: f.store, sessions: engine, clock: f.clock, liveAntiban: sender });
    assert.equal((await instances.setAntiban(inst.id, true)).workerSynced, true, 'both ran it');
    senderApplied = false;
    assert.equal((await instances.setAntiban(inst.id, false)).workerSynced, false, 'the sender did not');
    senderApplied = true;
    sessionRan = false;
    assert.equal((await instances.setAntiban(inst.id, true)).workerSynced, false, 'no session ran');
    // Each always hears the setting, even when the other did not run it.
    assert.deepEqual(calls, [
      ['session', inst.id, true],
      ['sender', inst.id, true],
      ['session', inst.id, false],
      ['sender', inst.id, false],
      ['session', inst.id, true],
      ['sender', inst.id, true],
    ]);
    assert.equal((await f.store.instances.findById(inst.id))?.antiban, 1, 'the setting is stored');
  } finally {
    await f.close();
  }
});
