// The pull API over real HTTP (docs/contract.md §5b): GET …/events/next long-polls the oldest
// unacknowledged event of an instance, DELETE …/events/{id} acknowledges it. Two consumers taking
// turns see every event once, in order; an unacknowledged event comes again; acks are strict and
// durable across a restart. No webhook is set: the pull API reads the outbox's stored events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedCallback } from '../../src/events/types.js';
import { startHarness, type Harness, type HarnessInstance } from '../helpers/webhook-harness.js';

let seq = 0;
function message(text: string): ReceivedCallback {
  seq++;
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0PULL${String(seq).padStart(14, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: 1_700_000_000_000 + seq,
    status: 'RECEIVED',
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message: text },
  };
}

interface Pulled {
  id: string;
  type: string;
  body: { messageId: string; instanceId: string; text?: { message: string } };
}

describe('pull API', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  async function next(inst: HarnessInstance, wait = 0): Promise<Pulled | null> {
    const r = await h.request('GET', `${inst.prefix}/events/next?wait=${wait}`);
    if (r.status === 204) return null;
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as Pulled;
  }
  async function ack(inst: HarnessInstance, id: string): Promise<number> {
    return (await h.request('DELETE', `${inst.prefix}/events/${id}`)).status;
  }

  test('an empty queue answers 204, at once or after the wait', async () => {
    const inst = await h.createInstance('empty');
    assert.equal(await next(inst), null);
    const t0 = performance.now();
    assert.equal(await next(inst, 1), null);
    assert.ok(performance.now() - t0 >= 900, 'waited about a second');
    assert.equal((await h.request('GET', `${inst.prefix}/events/next?wait=31`)).status, 400, 'at most 30 s');
  });

  test('a waiting poll is answered as soon as an event is committed', async (t) => {
    const inst = await h.createInstance('woken');
    // The poll is waiting once its first read of the queue has found nothing: seen on the
    // gateway's own pull repo, so the commit below lands during the wait, not before it.
    const repo = h.gateway.store.eventPull;
    const head = repo.head.bind(repo);
    let foundEmpty!: () => void;
    const waiting = new Promise<void>((resolve) => (foundEmpty = resolve));
    repo.head = async (instanceId) => {
      const found = await head(instanceId);
      if (instanceId === inst.id && found === null) foundEmpty();
      return found;
    };
    try {
      const polled = next(inst, 20);
      await waiting;
      const m = message('wake up');
      const t0 = performance.now();
      await h.gateway.events.emit(inst.id, [m]);
      const got = await polled;
      assert.equal(got?.body.messageId, m.messageId, 'the committed event, before the 20 s wait ended');
      t.diagnostic(`answered ${(performance.now() - t0).toFixed(0)} ms after the commit`);
    } finally {
      repo.head = head;
    }
  });

  test('two consumers taking turns see every event once, in order; an unacknowledged one comes again', async () => {
    const inst = await h.createInstance('turns');
    const other = await h.createInstance('other');
    const sent = Array.from({ length: 12 }, (_, i) => message(`n${i}`));
    await h.gateway.events.emit(inst.id, sent.slice(0, 6));
    await h.gateway.events.emit(other.id, [message('not yours')]);
    await h.gateway.events.emit(inst.id, sent.slice(6));

    // Consumers A and B take turns: poll, acknowledge, hand over. On turn 3 A "crashes" after the
    // poll, before its ack: B's next poll gets that same event, and B acknowledges it.
    const seenBy: Record<'A' | 'B', string[]> = { A: [], B: [] };
    const seen: string[] = [];
    for (let turn = 0; ; turn++) {
      let consumer: 'A' | 'B' = turn % 2 === 0 ? 'A' : 'B';
      let got = await next(inst, 1);
      if (got === null) break;
      assert.equal(got.body.instanceId, inst.id);
      assert.equal(got.type, 'ReceivedCallback');
      if (turn === 3) {
        const again = await next(inst);
        assert.equal(again?.id, got.id, 'the unacknowledged event comes again');
        consumer = consumer === 'A' ? 'B' : 'A';
        got = again!;
      }
      seenBy[consumer].push(got.body.messageId);
      seen.push(got.body.messageId);
      assert.equal(await ack(inst, got.id), 200);
    }
    assert.deepEqual(seen, sent.map((m) => m.messageId), 'each once, in commit order');
    assert.ok(seenBy.A.length >= 5 && seenBy.B.length >= 5, 'both consumers took part');
    assert.equal(new Set([...seenBy.A, ...seenBy.B]).size, sent.length, 'no event seen by both');
    assert.equal((await next(other))?.body.text?.message, 'not yours', 'queues are per instance');
  });

  test('acks are strict: a later event is 409, an unknown one 404, a repeated one 200', async () => {
    const inst = await h.createInstance('strict');
    const [a, b] = [message('a'), message('b')];
    await h.gateway.events.emit(inst.id, [a, b]);
    const first = await next(inst);
    assert.equal(first?.body.messageId, a.messageId);
    // A consumer never sees b's id before acknowledging a: read it from the store.
    const rows = await h.gateway.store.streamEvents.forInstance(inst.id, 0, 10);
    const bId = rows.find((r) => r.id !== first.id)!.id;
    assert.equal(await ack(inst, bId), 409, 'b cannot be acknowledged before a');
    assert.equal(await ack(inst, 'msg_000000000000nothing'), 404);
    const other = await h.createInstance('stranger');
    assert.equal((await h.request('DELETE', `${other.prefix}/events/${first.id}`)).status, 404, "another instance's event");
    assert.equal(await ack(inst, first.id), 200);
    assert.equal(await ack(inst, first.id), 200, 'repeating an ack is harmless');
    assert.equal((await next(inst))?.body.messageId, b.messageId);
  });

  test('the ack position survives a restart', async () => {
    const inst = await h.createInstance('durable');
    const [a, b] = [message('before'), message('after')];
    await h.gateway.events.emit(inst.id, [a, b]);
    const first = await next(inst);
    assert.equal(await ack(inst, first!.id), 200);
    await h.restart();
    assert.equal((await next(inst))?.body.messageId, b.messageId);
  });
});
