// The pull API's long poll (services/event-pull.ts) on a clock the test owns: a commit of this node
// answers at once, a commit on another node is found by the re-read each second, nothing within
// the wait answers null exactly when the wait ends, and a consumer that goes away stops it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventPullService } from '../../src/services/event-pull.js';
import { EventStreamHub, type StreamEvent } from '../../src/services/event-stream.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const EVENT: StreamEvent = { seq: 1, id: 'msg_0001', kind: 'ReceivedCallback', payload: '{}' };

function setup() {
  const clock = new VirtualClock({ mode: 'frozen' });
  const state = { head: null as StreamEvent | null, reads: 0 };
  const repo = {
    head: async () => {
      state.reads++;
      return state.head;
    },
    ack: async () => 'acked' as const,
  };
  const none = async () => [];
  const hub = new EventStreamHub({ lastSeq: async () => 0, resumeAfter: async () => null, forInstance: none, forAccount: none }, clock);
  return { clock, state, hub, pull: new EventPullService(repo, hub, clock) };
}

const turns = async (n = 10): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

test('wait 0 reads once and answers at once', async () => {
  const { state, pull } = setup();
  assert.equal(await pull.next('i1', 0), null);
  state.head = EVENT;
  assert.deepEqual(await pull.next('i1', 0), EVENT);
  assert.equal(state.reads, 2);
});

test('a commit of this node answers the waiting poll at once, with no time passing', async () => {
  const { clock, state, hub, pull } = setup();
  const start = clock.now();
  const waiting = pull.next('i1', 30);
  await turns();
  state.head = EVENT;
  hub.notify(new Set(['i2']));
  hub.notify(new Set(['i1']));
  assert.deepEqual(await waiting, EVENT);
  assert.equal(clock.now(), start);
  assert.equal(clock.pending, 0, 'the wait left no timer behind');
});

test('a commit on another node (no wake-up here) is found by the re-read within a second', async () => {
  const { clock, state, pull } = setup();
  let answer: StreamEvent | null | undefined;
  void pull.next('i1', 30).then((e) => (answer = e));
  await turns();
  state.head = EVENT;
  await clock.advance(999);
  assert.equal(answer, undefined, 'not before the re-read');
  await clock.advance(1);
  await turns();
  assert.deepEqual(answer, EVENT);
});

test('nothing within the wait: null when the wait ends, not before', async () => {
  const { clock, pull } = setup();
  let answer: StreamEvent | null | undefined;
  void pull.next('i1', 30).then((e) => (answer = e));
  await clock.advance(29_999);
  assert.equal(answer, undefined, 'still waiting');
  await clock.advance(1);
  await turns();
  assert.equal(answer, null);
  assert.equal(clock.pending, 0);
});

test('a consumer that goes away ends the wait with null', async () => {
  const { clock, pull } = setup();
  const gone = new AbortController();
  const waiting = pull.next('i1', 30, gone.signal);
  await turns();
  gone.abort();
  assert.equal(await waiting, null);
  assert.equal(clock.pending, 0);
});
