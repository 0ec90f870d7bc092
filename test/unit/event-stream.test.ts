// The event stream hub over an in-memory outbox: a commit landing while a stream is still finding
// its cursor is neither missed nor the cause of a replay from the start; a slow consumer is read
// for only as fast as it takes events; per-account bounds; closeAll; the heartbeat and the commit
// wake-ups the pull API waits on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventStreamHub, type StreamEvent } from '../../src/services/event-stream.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { until } from '../helpers/poll.js';

class MemoryOutbox {
  readonly rows: (StreamEvent & { instanceId: string })[] = [];
  resumeGate: Promise<void> = Promise.resolve();
  reads = 0;
  add(instanceId: string, n: number): void {
    for (let i = 0; i < n; i++) {
      const seq = this.rows.length + 1;
      this.rows.push({ seq, id: `msg_${String(seq).padStart(4, '0')}`, kind: 'ReceivedCallback', payload: `{"n":${seq}}`, instanceId });
    }
  }
  lastSeq = async (): Promise<number> => this.rows.length;
  resumeAfter = async (id: string): Promise<number | null> => {
    await this.resumeGate;
    return this.rows.find((r) => r.id === id)?.seq ?? null;
  };
  forInstance = async (instanceId: string, after: number, limit: number): Promise<StreamEvent[]> => {
    this.reads++;
    return this.rows.filter((r) => r.instanceId === instanceId && r.seq > after).slice(0, limit);
  };
  forAccount = async (_accountId: string, after: number, limit: number): Promise<StreamEvent[]> => {
    this.reads++;
    return this.rows.filter((r) => r.seq > after).slice(0, limit);
  };
}

/** The outbox is in memory: one turn of the event loop runs every read a notification started. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('a commit while the cursor is being found is delivered once, after the cursor, not from the start', async () => {
  const outbox = new MemoryOutbox();
  outbox.add('i1', 5);
  let open!: () => void;
  outbox.resumeGate = new Promise((r) => (open = r));
  const hub = new EventStreamHub(outbox, new VirtualClock(), { maxPerAccount: 5, batch: 2, heartbeatMs: 1_000 });
  const got: number[] = [];
  const opening = hub.openStream({ accountId: 'a', instanceId: 'i1' }, 'msg_0003', async (events) => void got.push(...events.map((e) => e.seq)), () => undefined);
  outbox.add('i1', 1);
  hub.notify(new Set(['i1'])); // lands before the cursor is known
  open();
  const stream = await opening;
  await until('events 4-6', () => got.length >= 3);
  // One more commit: the stream delivers in order, so a repeat of 4-6 would come before it.
  outbox.add('i1', 1);
  hub.notify(new Set(['i1']));
  await until('event 7', () => got.includes(7));
  assert.deepEqual(got, [4, 5, 6, 7], 'after msg_0003, each once, in order (read in batches of two)');
  stream.close();
});

test('a consumer that has not taken its events holds the reads back (back-pressure)', async () => {
  const outbox = new MemoryOutbox();
  const hub = new EventStreamHub(outbox, new VirtualClock(), { maxPerAccount: 5, batch: 10, heartbeatMs: 1_000 });
  let release!: () => void;
  const blocked = new Promise<void>((r) => (release = r));
  const got: number[] = [];
  const stream = await hub.openStream({ accountId: 'a', instanceId: null }, undefined, async (events) => {
    got.push(...events.map((e) => e.seq));
    await blocked;
  }, () => undefined);
  outbox.add('i1', 25);
  hub.notify(new Set(['i1']));
  await until('first batch', () => got.length === 10);
  const readsWhileBlocked = outbox.reads;
  for (let i = 0; i < 20; i++) hub.notify(new Set(['i1']));
  await turn();
  assert.equal(outbox.reads, readsWhileBlocked, 'no more reads while the consumer is busy');
  release();
  await until('all 25', () => got.length === 25);
  assert.deepEqual(got, Array.from({ length: 25 }, (_, i) => i + 1), 'in order, once');
  stream.close();
});

test('per-account bound, freed on close; closeAll ends every stream', async () => {
  const outbox = new MemoryOutbox();
  const hub = new EventStreamHub(outbox, new VirtualClock(), { maxPerAccount: 2, batch: 10, heartbeatMs: 1_000 });
  let ended = 0;
  const s1 = await hub.openStream({ accountId: 'a', instanceId: null }, undefined, async () => undefined, () => ended++);
  await hub.openStream({ accountId: 'a', instanceId: 'i1' }, undefined, async () => undefined, () => ended++);
  await hub.openStream({ accountId: 'b', instanceId: null }, undefined, async () => undefined, () => ended++);
  await assert.rejects(hub.openStream({ accountId: 'a', instanceId: null }, undefined, async () => undefined, () => undefined), (err: unknown) => /event streams open/.test(String((err as { detail?: string }).detail)), 'a third for account a');
  s1.close();
  await hub.openStream({ accountId: 'a', instanceId: null }, undefined, async () => undefined, () => ended++);
  assert.equal(hub.open, 3, 'three open');
  hub.closeAll();
  assert.equal(hub.open, 0, 'none left');
  assert.equal(ended, 3, 'each open one was told to end');
});

test('the heartbeat beats every heartbeatMs on the clock until cancelled', async () => {
  const clock = new VirtualClock({ mode: 'frozen' });
  const hub = new EventStreamHub(new MemoryOutbox(), clock, { maxPerAccount: 2, batch: 10, heartbeatMs: 15_000 });
  let beats = 0;
  const stop = hub.heartbeat(() => beats++);
  await clock.advance(14_999);
  assert.equal(beats, 0, 'not before heartbeatMs');
  await clock.advance(1);
  assert.equal(beats, 1);
  await clock.advance(30_000);
  assert.equal(beats, 3, 'one per period');
  stop();
  await clock.advance(60_000);
  assert.equal(beats, 3, 'none after cancel');
  assert.equal(clock.pending, 0, 'no timer left behind');
});

test('onCommit wakes the instance\'s waiters at each commit of its events, until unsubscribed', () => {
  const hub = new EventStreamHub(new MemoryOutbox(), new VirtualClock({ mode: 'frozen' }));
  let woken = 0;
  const off = hub.onCommit('i1', () => woken++);
  hub.notify(new Set(['i2']));
  assert.equal(woken, 0, 'another instance\'s commit');
  hub.notify(new Set(['i1', 'i2']));
  assert.equal(woken, 1);
  off();
  hub.notify(new Set(['i1']));
  assert.equal(woken, 1, 'not after unsubscribing');
});
