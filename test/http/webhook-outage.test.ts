// The receiver answers 500, then is down altogether, for 10 hours of the gateway's clock (a
// VirtualClock the test jumps, retry after retry), and the gateway restarts in the middle:
// afterwards every event arrives, signed, none lost; the only duplicates are retries carrying the
// same webhook-id and the same bytes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedCallback } from '../../src/events/types.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { eventually, startHarness, startReceiver, verifySigned, type Harness, type Receiver, type ReceivedRequest } from '../helpers/webhook-harness.js';

const TEN_HOURS_MS = 10 * 60 * 60 * 1000;

function event(n: number): ReceivedCallback {
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${String(n).padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: 1_700_000_000_000 + n,
    status: 'RECEIVED',
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message: `event ${n}` },
  };
}

let h: Harness;
let rx: Receiver;
const clock = new VirtualClock();

before(async () => {
  rx = await startReceiver('127.0.0.1', undefined, clock);
  h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' }, clock });
});
after(async () => {
  await h.close();
  await rx.close();
});

test('a 10-hour outage with a restart in the middle loses nothing', async () => {
  const inst = await h.createInstance('outage');
  const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: `${rx.origin}/hook` });
  assert.equal(set.status, 200);
  const secret = String((await h.request('GET', `${inst.prefix}/webhook-secret`)).json.value);

  const answered: { req: ReceivedRequest; status: number }[] = [];
  let healthy = false;
  rx.answer = (req) => {
    const status = healthy ? 200 : 500;
    answered.push({ req, status });
    return { status };
  };

  const outageStart = clock.now();
  // Phase 1: the receiver is up but failing.
  const total = 80;
  for (let i = 0; i < 40; i += 10) await h.gateway.events.emit(inst.id, Array.from({ length: 10 }, (_, j) => event(i + j)));
  await rx.waitFor((rs) => rs.length >= 40, 10_000, 'the first attempts');

  // The gateway restarts while deliveries are retrying; then the receiver goes away entirely.
  await h.restart();
  await rx.down();
  for (let i = 40; i < total; i += 10) await h.gateway.events.emit(inst.id, Array.from({ length: 10 }, (_, j) => event(i + j)));

  const retrying = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=retrying&pageSize=1000`);
  assert.ok((retrying.json.deliveries as unknown[]).length > 0, 'deliveries are waiting for their retry');

  // Ten hours after the outage began, the receiver is back and healthy. The jump fires the retries
  // due meanwhile in order, against the dead receiver; those whose failure is recorded after the
  // jump wait for their next retry from there.
  await clock.advanceTo(outageStart + TEN_HOURS_MS);
  healthy = true;
  await rx.up();

  const okIds = () => new Set(answered.filter((a) => a.status === 200).map((a) => (JSON.parse(a.req.body) as { messageId: string }).messageId));
  // Each event's next attempt is up to hours away: the clock jumps from one timer to the next.
  await clock.runUntil('every event to be delivered after the outage', () => okIds().size === total);

  // Every request, failed or not, was signed; each event kept one webhook-id and one body.
  const byId = new Map<string, Set<string>>();
  for (const a of answered) {
    verifySigned(secret, a.req);
    const id = String(a.req.headers['webhook-id']);
    byId.set(id, (byId.get(id) ?? new Set()).add(a.req.body));
  }
  assert.equal(byId.size, total, 'one webhook-id per event');
  for (const bodies of byId.values()) assert.equal(bodies.size, 1, 'a retry resends the same bytes');
  const expected = new Set(Array.from({ length: total }, (_, i) => event(i).messageId));
  assert.deepEqual(okIds(), expected);

  // Nothing is left to attempt (delivered rows themselves are swept after an hour).
  await eventually(async () => {
    for (const status of ['pending', 'retrying', 'failed']) {
      const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=${status}&pageSize=1000`);
      if ((page.json.deliveries as unknown[]).length > 0) return false;
    }
    return true;
  }, 10_000, 'no delivery left pending, retrying or failed');
});
