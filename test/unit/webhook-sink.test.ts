// The event sink: an emit resolves only after its commit, deliveries reach the dispatcher only after
// it, same-tick emits share one commit, and an instance deleted mid-batch does not sink the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import type { GatewayEvent } from '../../src/events/types.js';
import { OutboxSink, timeOrderedId, type OutboxStore } from '../../src/outbox/sink.js';
import type { DueDelivery, InstanceDeliveryContext, NewDelivery, NewOutboxEvent } from '../../src/store/deliveries-repo.js';

function ctx(instanceId: string): InstanceDeliveryContext {
  return { instanceId, phone: '5511999990000', notifySentByMe: false, secrets: ['whsec_a'], urls: new Map([['connected', `https://${instanceId}.example/`]]) };
}

const connected = (phone: string): GatewayEvent => ({ type: 'ConnectedCallback', connected: true, phone, momment: 1 });

class FakeStore implements OutboxStore {
  known = new Set(['A', 'B']);
  commits: { events: readonly NewOutboxEvent[]; deliveries: readonly NewDelivery[] }[] = [];
  gate: Promise<void> = Promise.resolve();
  failNext: Error | null = null;

  async contexts(ids: readonly string[]): Promise<Map<string, InstanceDeliveryContext>> {
    return new Map([...new Set(ids)].filter((id) => this.known.has(id)).map((id) => [id, ctx(id)]));
  }

  async commit(events: readonly NewOutboxEvent[], deliveries: readonly NewDelivery[]): Promise<ReadonlySet<string>> {
    await this.gate;
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    this.commits.push({ events, deliveries });
    return new Set();
  }
}

test('emit resolves after the commit, and only then are deliveries handed over', async () => {
  const store = new FakeStore();
  let release!: () => void;
  store.gate = new Promise((r) => (release = r));
  const handed: DueDelivery[] = [];
  const sink = new OutboxSink(store, systemClock(), (jobs) => handed.push(...jobs));
  let resolved = false;
  const a = sink.emit('A', [connected('1')]).then(() => (resolved = true));
  const b = sink.emit('B', [connected('2'), connected('3')]);
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  assert.equal(resolved, false, 'not before the commit');
  assert.equal(handed.length, 0, 'nothing to deliver before the commit');
  release();
  await Promise.all([a, b]);
  assert.equal(store.commits.length, 1, 'emits of one tick share one commit');
  assert.equal(store.commits[0]!.events.length, 3);
  assert.deepEqual(handed.map((j) => [j.instanceId, j.url]), [['A', 'https://A.example/'], ['B', 'https://B.example/'], ['B', 'https://B.example/']]);
  assert.deepEqual(handed.map((j) => j.eventId), store.commits[0]!.events.map((e) => e.id), 'the webhook-id is the stored event id');
  const body = JSON.parse(handed[0]!.body) as Record<string, unknown>;
  assert.equal(body.instanceId, 'A');
  assert.equal(body.connectedPhone, '5511999990000');
});

test('an instance deleted mid-batch: the others\' events are committed, its own are dropped', async () => {
  const store = new FakeStore();
  const handed: DueDelivery[] = [];
  const sink = new OutboxSink(store, systemClock(), (jobs) => handed.push(...jobs));
  let release!: () => void;
  store.gate = new Promise((r) => (release = r));
  store.failNext = new Error('FOREIGN KEY constraint failed');
  const pending = [sink.emit('A', [connected('1')]), sink.emit('B', [connected('2')])];
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  store.known.delete('B'); // deleted after its context was read, before the commit
  release();
  await Promise.all(pending);
  assert.equal(store.commits.length, 1);
  assert.deepEqual(store.commits[0]!.events.map((e) => e.instanceId), ['A']);
  assert.deepEqual(handed.map((j) => j.instanceId), ['A']);
});

test('any other commit failure rejects the emits (the emitter must not acknowledge)', async () => {
  const store = new FakeStore();
  const sink = new OutboxSink(store, systemClock(), () => undefined);
  store.failNext = new Error('disk I/O error');
  await assert.rejects(sink.emit('A', [connected('1')]), /disk I\/O error/);
  await sink.close();
  await assert.rejects(sink.emit('A', [connected('1')]), /closed/);
});

test('ids are time-ordered, unique and whitespace-free', () => {
  const ids = Array.from({ length: 1000 }, (_, i) => timeOrderedId('msg_', 1_700_000_000_000 + i));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, /^msg_[0-9a-f]{32}$/);
});
