// Webhook delivery against a real HTTPS receiver on 127.0.0.1 (test CA): every payload type in its
// Z-API shape, routed per kind, signed per Standard Webhooks (checked with the `standardwebhooks`
// package, during rotation too), notifySentByMe, ordering, retries with a stable webhook-id,
// Retry-After, timeouts, redirects not followed, 410, and the replay API. The gateway runs on a
// VirtualClock the test owns: retries wait their real protocol delays, which the test jumps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { skipWaits } from '../helpers/protocol-time.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import {
  eventually,
  startHarness,
  startReceiver,
  verifySigned,
  type Harness,
  type HarnessInstance,
  type Receiver,
  type ReceivedRequest,
} from '../helpers/webhook-harness.js';

const CONNECTED_PHONE = '5511999990000';
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const KIND_PATHS = {
  'update-webhook-received': '/received',
  'update-webhook-message-status': '/status',
  'update-webhook-delivery': '/delivery',
  'update-webhook-connected': '/connected',
  'update-webhook-disconnected': '/disconnected',
} as const;

/** Verifies with the reference implementation at the gateway's time; throws if the signature does not check out. */
const verify = (secret: string, r: ReceivedRequest): Record<string, unknown> => verifySigned(secret, r);

let seq = 0;
function text(message: string, extra: Partial<ReceivedCallback> = {}): ReceivedCallback {
  seq++;
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${String(seq).padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: 1_700_000_000_000 + seq,
    status: 'RECEIVED',
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message },
    ...extra,
  };
}

async function setAllKinds(h: Harness, inst: HarnessInstance, origin: string): Promise<void> {
  for (const [route, path] of Object.entries(KIND_PATHS)) {
    const r = await h.request('PUT', `${inst.prefix}/${route}`, { value: origin + path });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
}

async function secretOf(h: Harness, inst: HarnessInstance): Promise<{ value: string; previous: string | null }> {
  const r = await h.request('GET', `${inst.prefix}/webhook-secret`);
  assert.equal(r.status, 200);
  return r.json as { value: string; previous: string | null };
}

describe('webhook delivery to an HTTPS receiver', () => {
  let h: Harness;
  let rx: Receiver;
  const clock = new VirtualClock();

  before(async () => {
    rx = await startReceiver('127.0.0.1', undefined, clock);
    // Delivered rows are swept after an hour, and the Retry-After test moves the clock an hour: keep
    // them, these tests read them.
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' }, outbox: { deliveredKeepMs: YEAR_MS }, clock });
  });
  after(async () => {
    await h.close();
    await rx.close();
  });

  test('every payload type arrives in its Z-API shape at its kind\'s URL, signed', async () => {
    const inst = await h.createInstance('shapes');
    await h.gateway.store.instances.update(inst.id, { phone: CONNECTED_PHONE });
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const { value: secret } = await secretOf(h, inst);

    const received: ReceivedCallback[] = [
      text('hello'),
      text('', { text: undefined, image: { imageUrl: 'https://files.example/img.jpg', caption: 'a cat', mimeType: 'image/jpeg', viewOnce: false } }),
      text('', { text: undefined, location: { latitude: -23.55, longitude: -46.63, name: 'Praça da Sé', address: 'São Paulo' } }),
      text('', { text: undefined, sticker: { stickerUrl: 'https://files.example/s.webp', mimeType: 'image/webp' } }),
      text('', { text: undefined, listResponseMessage: { message: 'Pick one', title: 'Option 2', selectedRowId: '2' }, referenceMessageId: '3EB0AAAAAAAAAAAAAAAAAA' }),
      text('', { text: undefined, buttonsResponseMessage: { buttonId: 'yes', message: 'Yes' }, referenceMessageId: '3EB0BBBBBBBBBBBBBBBBBB' }),
      text('', {
        text: undefined,
        reaction: { value: '👍', time: 1_700_000_000_500, referencedMessage: { messageId: '3EB0CCCCCCCCCCCCCCCCCC', fromMe: true, phone: '5511988887777', participant: null } },
      }),
      text('', {
        text: undefined,
        phone: '120363012345678901-group',
        isGroup: true,
        fromMe: true,
        chatName: 'Team',
        participantPhone: CONNECTED_PHONE,
        notification: 'GROUP_CREATE',
        notificationParameters: [CONNECTED_PHONE, '5511988887777'],
        pendingGroupId: 'pending-6f1c1f3e-2a6b-4c1e-9d55-0f5a4f3b2c1d',
      }),
      text('', {
        text: undefined,
        phone: '120363012345678901-group',
        isGroup: true,
        participantPhone: '5511988887777',
        notification: 'GROUP_PARTICIPANT_ADD',
        notificationParameters: ['5511977776666'],
      }),
      text('in a group', { phone: '120363012345678901-group', isGroup: true, participantPhone: '5511988887777', senderName: 'Maria' }),
    ];
    const others: GatewayEvent[] = [
      { type: 'MessageStatusCallback', status: 'READ', ids: ['3EB0DDDDDDDDDDDDDDDDDD', '3EB0EEEEEEEEEEEEEEEEEE'], momment: 1_700_000_001_000, phone: '5511988887777', isGroup: false },
      { type: 'DeliveryCallback', phone: '5511988887777', zaapId: 'Z1', messageId: '3EB0FFFFFFFFFFFFFFFFFF', momment: 1_700_000_002_000 },
      { type: 'DeliveryCallback', phone: '5511988887777', zaapId: 'Z2', messageId: '3EB0999999999999999999', momment: 1_700_000_002_001, error: 'Unable to download the image' },
      { type: 'ConnectedCallback', connected: true, phone: CONNECTED_PHONE, momment: 1_700_000_003_000 },
      { type: 'DisconnectedCallback', disconnected: true, error: 'Device has been disconnected', momment: 1_700_000_004_000 },
    ];
    const all: GatewayEvent[] = [...received, ...others];
    await h.gateway.events.emit(inst.id, all);

    const mine = (rs: readonly ReceivedRequest[]) => rs.filter((r) => r.path.startsWith(`/${inst.id}/`));
    await rx.waitFor((rs) => mine(rs).length >= all.length, 20_000, 'one request per event');

    const requests = mine(rx.requests);
    assert.equal(requests.length, all.length, 'each event is delivered once');
    const ids = new Set<string>();
    for (const r of requests) {
      assert.equal(r.method, 'POST');
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.match(String(r.headers['webhook-id']), /^msg_[0-9a-f]{32}$/);
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - r.receivedAt / 1000) < 60, 'timestamp is this attempt\'s, in seconds, on the gateway\'s clock');
      verify(secret, r);
      ids.add(String(r.headers['webhook-id']));
    }
    assert.equal(ids.size, all.length, 'every event has its own webhook-id');

    const byPath = (path: string) => requests.filter((r) => r.path === `/${inst.id}${path}`).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    // Exactly the emitted fields plus instanceId and connectedPhone; received ones in emit order.
    const expected = (e: GatewayEvent) => JSON.parse(JSON.stringify({ ...e, instanceId: inst.id, connectedPhone: CONNECTED_PHONE })) as unknown;
    assert.deepEqual(byPath('/received'), received.map(expected));
    assert.deepEqual(byPath('/status'), [expected(others[0]!)]);
    assert.deepEqual(byPath('/delivery'), [expected(others[1]!), expected(others[2]!)]);
    assert.deepEqual(byPath('/connected'), [expected(others[3]!)]);
    assert.deepEqual(byPath('/disconnected'), [expected(others[4]!)]);

    const groupCreate = byPath('/received').find((p) => p.notification === 'GROUP_CREATE');
    assert.equal(groupCreate?.phone, '120363012345678901-group', 'GROUP_CREATE carries the group id');
    assert.equal(groupCreate?.pendingGroupId, 'pending-6f1c1f3e-2a6b-4c1e-9d55-0f5a4f3b2c1d', '…and the pending id');
    for (const p of byPath('/received')) assert.ok(!String(p.phone).includes('@lid') && !String(p.participantPhone).includes('@lid'));
  });

  test('notifySentByMe: own messages only when on; notifications always', async () => {
    const inst = await h.createInstance('sent-by-me');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const mine = (rs: readonly ReceivedRequest[]) => rs.filter((r) => r.path === `/${inst.id}/received`).map((r) => JSON.parse(r.body) as Record<string, unknown>);

    const ownOff = text('sent from the phone, setting off', { fromMe: true, status: 'SENT' });
    const notice = text('', { text: undefined, fromMe: true, notification: 'GROUP_CREATE', phone: '120363000000000001-group', isGroup: true });
    const marker1 = text('marker 1');
    await h.gateway.events.emit(inst.id, [ownOff, notice, marker1]);
    await rx.waitFor((rs) => mine(rs).some((p) => p.messageId === marker1.messageId), 10_000, 'marker 1');
    // One lane, in order: had ownOff been routed it would have arrived before the marker.
    assert.deepEqual(mine(rx.requests).map((p) => p.messageId), [notice.messageId, marker1.messageId]);

    const r = await h.request('PUT', `${inst.prefix}/update-notify-sent-by-me`, { notifySentByMe: true });
    assert.equal(r.status, 200);
    const ownOn = text('sent from the phone, setting on', { fromMe: true, status: 'SENT' });
    await h.gateway.events.emit(inst.id, [ownOn]);
    await rx.waitFor((rs) => mine(rs).some((p) => p.messageId === ownOn.messageId), 10_000, 'own message');
    assert.equal(mine(rx.requests).find((p) => p.messageId === ownOn.messageId)?.fromMe, true);
  });

  test('a kind with no URL delivers nothing and stores nothing', async () => {
    const inst = await h.createInstance('no-url');
    const r = await h.request('PUT', `${inst.prefix}/update-webhook-message-status`, { value: `${rx.origin}/${inst.id}/status` });
    assert.equal(r.status, 200);
    const marker: GatewayEvent = { type: 'MessageStatusCallback', status: 'SENT', ids: ['3EB0000000000000000001'], momment: 1, phone: '5511988887777', isGroup: false };
    await h.gateway.events.emit(inst.id, [text('nobody listens'), marker]);
    await rx.waitFor((rs) => rs.some((x) => x.path === `/${inst.id}/status`), 10_000, 'status event');
    assert.equal(rx.requests.filter((x) => x.path.startsWith(`/${inst.id}/received`)).length, 0);
    const page = await h.request('GET', `${inst.prefix}/webhook-deliveries`);
    assert.deepEqual((page.json.deliveries as { type: string }[]).map((d) => d.type), ['MessageStatusCallback']);
  });

  test('during a secret rotation each delivery carries both signatures', async () => {
    const inst = await h.createInstance('rotation');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const before = await secretOf(h, inst);
    const rotated = await h.request('POST', `${inst.prefix}/webhook-secret/rotate`);
    assert.equal(rotated.status, 200);
    const now = await secretOf(h, inst);
    assert.equal(now.previous, before.value);

    const e = text('after rotation');
    await h.gateway.events.emit(inst.id, [e]);
    await rx.waitFor((rs) => rs.some((x) => x.path === `/${inst.id}/received`), 10_000, 'rotated delivery');
    const req = rx.requests.find((x) => x.path === `/${inst.id}/received`)!;
    assert.equal(String(req.headers['webhook-signature']).split(' ').length, 2);
    assert.equal(verify(now.value, req).messageId, e.messageId, 'the new secret verifies');
    assert.equal(verify(before.value, req).messageId, e.messageId, 'the old secret still verifies');
    assert.throws(() => verify('whsec_' + Buffer.alloc(32, 7).toString('base64'), req), 'an unrelated secret does not');
  });

  test('per URL, one request at a time and in order while the receiver is healthy', async () => {
    const inst = await h.createInstance('order');
    const slow = await startReceiver('127.0.0.1');
    try {
      const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: `${slow.origin}/${inst.id}/received` });
      assert.equal(set.status, 200);
      // Every request is held until the test answers it; one arriving while another is held
      // went out before that one was answered, whenever the test looks.
      let mostHeld = 0;
      slow.answer = () => {
        mostHeld = Math.max(mostHeld, slow.held + 1);
        return 'hang';
      };
      const events = Array.from({ length: 20 }, (_, i) => text(`n${i}`));
      for (const e of events) await h.gateway.events.emit(inst.id, [e]);
      for (let i = 0; i < events.length; i++) {
        await slow.waitFor((rs) => rs.length > i, 10_000, `request ${i + 1}`);
        assert.equal(slow.requests.length, i + 1, `event ${i + 2} went out before event ${i + 1} was answered`);
        slow.release(200);
      }
      assert.equal(mostHeld, 1, 'never a second request while one was unanswered');
      assert.deepEqual(slow.requests.map((r) => (JSON.parse(r.body) as { messageId: string }).messageId), events.map((e) => e.messageId));
    } finally {
      await slow.close();
    }
  });

  test('a failed attempt is retried with the same webhook-id; Retry-After is honoured', async () => {
    const inst = await h.createInstance('retry');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const path = `/${inst.id}/received`;
    let calls = 0;
    const original = rx.answer;
    // Retry-After: 3600 s (the schedule alone says 5 s).
    rx.answer = (r) => (r.path === path && ++calls === 1 ? { status: 503, headers: { 'retry-after': '3600' } } : original(r));
    try {
      const { value: secret } = await secretOf(h, inst);
      await h.gateway.events.emit(inst.id, [text('try again')]);
      type Waiting = { attempts: number; createdAt: number; nextAttemptAt: number | null };
      let waiting: Waiting | undefined;
      await eventually(async () => {
        const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=retrying`);
        waiting = (page.json.deliveries as Waiting[])[0];
        return waiting?.nextAttemptAt !== null && waiting?.nextAttemptAt !== undefined;
      }, 10_000, 'the failed attempt to be recorded');
      const retryAt = waiting!.nextAttemptAt!;
      assert.ok(retryAt - waiting!.createdAt >= 3_600_000, `the retry waits for Retry-After (${retryAt - waiting!.createdAt} ms)`);
      // Just before that time nothing has been sent again (every timer due by then has fired).
      await clock.advanceTo(retryAt - 1_000);
      assert.equal(rx.requests.filter((x) => x.path === path).length, 1, 'no retry before Retry-After');
      await clock.advanceTo(retryAt);
      await rx.waitFor((rs) => rs.filter((x) => x.path === path).length >= 2, 10_000, 'the retry');
      const [first, second] = rx.requests.filter((x) => x.path === path);
      assert.equal(first!.headers['webhook-id'], second!.headers['webhook-id']);
      assert.equal(first!.body, second!.body, 'the same bytes every attempt');
      verify(secret, second!);
      type Row = { attempts: number; updatedAt: number; createdAt: number; webhookId: string };
      let d: Row | undefined;
      await eventually(async () => {
        const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=delivered`);
        d = (page.json.deliveries as Row[])[0];
        return d !== undefined;
      }, 10_000, 'the delivery to be recorded');
      assert.equal(d?.attempts, 2);
      assert.equal(d?.webhookId, first!.headers['webhook-id']);
      assert.ok(d!.updatedAt - d!.createdAt >= 3_600_000, `the retry waited for Retry-After (${d!.updatedAt - d!.createdAt} ms)`);
    } finally {
      rx.answer = original;
    }
  });

  test('redirects are not followed: a 3xx is a failed attempt', async () => {
    const inst = await h.createInstance('redirect');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const path = `/${inst.id}/received`;
    const original = rx.answer;
    rx.answer = (r) => (r.path === path ? { status: 302, headers: { location: `${rx.origin}/${inst.id}/elsewhere` } } : original(r));
    try {
      await h.gateway.events.emit(inst.id, [text('moved?')]);
      await eventually(async () => {
        const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=retrying`);
        const [d] = page.json.deliveries as { lastStatus: number; lastError: string }[];
        return d?.lastStatus === 302 && /redirect/.test(d.lastError);
      }, 10_000, 'the 302 to be recorded as a failure');
      assert.equal(rx.requests.filter((r) => r.path === `/${inst.id}/elsewhere`).length, 0);
    } finally {
      rx.answer = original;
    }
  });

  test('410 Gone disables the URL and fails what was queued for it', async () => {
    const inst = await h.createInstance('gone');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const path = `/${inst.id}/received`;
    const original = rx.answer;
    rx.answer = (r) => (r.path === path ? { status: 410 } : original(r));
    try {
      await h.gateway.events.emit(inst.id, [text('one'), text('two'), text('three')]);
      await eventually(async () => {
        const hooks = await h.request('GET', `${inst.prefix}/webhooks`);
        return (hooks.body as { kind: string; disabledReason: string | null }[]).some((w) => w.kind === 'received' && w.disabledReason !== null);
      }, 10_000, 'the URL to be disabled');
      await eventually(async () => {
        const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=failed`);
        return (page.json.deliveries as unknown[]).length === 3;
      }, 10_000, 'all three deliveries to fail');
      const hits = rx.requests.filter((r) => r.path === path).length;
      assert.equal(hits, 1, 'after the 410 nothing more is sent there');
      // Later events of that kind have nowhere to go; other kinds are unaffected.
      await h.gateway.events.emit(inst.id, [text('four'), { type: 'ConnectedCallback', connected: true, phone: CONNECTED_PHONE, momment: 5 }]);
      await rx.waitFor((rs) => rs.some((r) => r.path === `/${inst.id}/connected`), 10_000, 'the connected event');
      assert.equal(rx.requests.filter((r) => r.path === path).length, 1);
    } finally {
      rx.answer = original;
    }
  });
});

describe('the attempt timeout', () => {
  let h: Harness;
  let rx: Receiver;
  const clock = new VirtualClock();

  before(async () => {
    rx = await startReceiver('127.0.0.1', undefined, clock);
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' }, outbox: { timeoutMs: 500, deliveredKeepMs: YEAR_MS }, clock });
  });
  after(async () => {
    await h.close();
    await rx.close();
  });

  test('no answer within the timeout is a failure, retried', async () => {
    const inst = await h.createInstance('timeout');
    await setAllKinds(h, inst, `${rx.origin}/${inst.id}`);
    const path = `/${inst.id}/received`;
    let calls = 0;
    const original = rx.answer;
    rx.answer = (r) => (r.path === path && ++calls === 1 ? 'hang' : original(r));
    try {
      await h.gateway.events.emit(inst.id, [text('slow receiver')]);
      // The attempt times out after 500 ms of real time (a guard); its retry waits 5 s of protocol
      // time, jumped.
      await skipWaits(clock, rx.waitFor((rs) => rs.filter((x) => x.path === path).length >= 2, 10_000, 'the retry after the timeout'));
      await eventually(async () => {
        const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=delivered`);
        return (page.json.deliveries as unknown[]).length === 1;
      }, 10_000, 'the delivery to be recorded');
    } finally {
      rx.answer = original;
    }
  });
});

describe('a backlog read back from the store', () => {
  let h: Harness;
  let rx: Receiver;

  before(async () => {
    rx = await startReceiver('127.0.0.1');
    // Tiny buffers, so most deliveries overflow to the store and come back through refills.
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' }, outbox: { laneBuffer: 5, refillBatch: 7 } });
  });
  after(async () => {
    await h.close();
    await rx.close();
  });

  test('every event once, in order, on a healthy receiver', async () => {
    const inst = await h.createInstance('backlog');
    const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: `${rx.origin}/backlog` });
    assert.equal(set.status, 200);
    const events = Array.from({ length: 300 }, (_, i) => text(`b${i}`));
    for (let i = 0; i < events.length; i += 50) await h.gateway.events.emit(inst.id, events.slice(i, i + 50));
    await rx.waitFor((rs) => rs.length >= events.length, 20_000, 'the whole backlog');
    // One more event, after the backlog: the URL gets its events one at a time, in order, so a
    // duplicate of any of them would have come before this one.
    const last = text('after the backlog');
    await h.gateway.events.emit(inst.id, [last]);
    await rx.waitFor((rs) => rs.some((r) => (JSON.parse(r.body) as { messageId: string }).messageId === last.messageId), 20_000, 'the event after the backlog');
    assert.deepEqual(rx.requests.map((r) => (JSON.parse(r.body) as { messageId: string }).messageId), [...events, last].map((e) => e.messageId));
  });
});

describe('replaying failed deliveries', () => {
  let h: Harness;
  let rx: Receiver;
  const clock = new VirtualClock();

  before(async () => {
    rx = await startReceiver('127.0.0.1', undefined, clock);
    // 27.6 hours of retries: the test jumps the clock from one to the next.
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' }, outbox: { deliveredKeepMs: YEAR_MS, failedKeepMs: YEAR_MS }, clock });
  });
  after(async () => {
    await h.close();
    await rx.close();
  });

  test('after the whole schedule a delivery is failed, listed (paged), and replayable with its webhook-id', async () => {
    const inst = await h.createInstance('replay');
    const path = `/${inst.id}/received`;
    const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: rx.origin + path });
    assert.equal(set.status, 200);
    rx.answer = () => ({ status: 500 });
    const events = [text('lost 1'), text('lost 2'), text('lost 3')];
    await h.gateway.events.emit(inst.id, events);

    // The clock jumps from each retry to the next (the receiver counts the attempts).
    await clock.runUntil('every attempt to be made', () => rx.requests.length >= 3 * 8);
    await eventually(async () => {
      const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=failed`);
      return (page.json.deliveries as unknown[]).length === 3;
    }, 20_000, 'every delivery to fail');
    assert.equal(rx.requests.length, 3 * 8, 'eight attempts each: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');

    const first = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=failed&pageSize=2`);
    assert.equal(first.status, 200);
    const firstPage = first.json.deliveries as { id: string; webhookId: string; attempts: number; lastStatus: number; lastError: string; status: string; payload: { messageId: string } }[];
    assert.equal(firstPage.length, 2);
    assert.equal(typeof first.json.pagingState, 'string');
    const second = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=failed&pageSize=2&pagingState=${String(first.json.pagingState)}`);
    const secondPage = second.json.deliveries as typeof firstPage;
    assert.equal(secondPage.length, 1);
    assert.equal(second.json.pagingState, null);
    const failed = [...firstPage, ...secondPage];
    assert.deepEqual(failed.map((d) => d.payload.messageId), events.map((e) => e.messageId));
    for (const d of failed) {
      assert.equal(d.status, 'failed');
      assert.equal(d.attempts, 8);
      assert.equal(d.lastStatus, 500);
    }

    const bad = await h.request('POST', `${inst.prefix}/webhook-deliveries/nope/retry`);
    assert.equal(bad.status, 404);

    rx.answer = () => ({ status: 200 });
    const target = failed[1]!;
    const retried = await h.request('POST', `${inst.prefix}/webhook-deliveries/${target.id}/retry`);
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.equal(retried.json.id, target.id);
    await rx.waitFor((rs) => rs.some((r) => r.headers['webhook-id'] === target.webhookId && rs.indexOf(r) >= 24), 10_000, 'the replay');
    await eventually(async () => {
      const page = await h.request('GET', `${inst.prefix}/webhook-deliveries?status=delivered`);
      return (page.json.deliveries as { id: string }[]).some((d) => d.id === target.id);
    }, 10_000, 'the replay to be recorded');
    const again = await h.request('POST', `${inst.prefix}/webhook-deliveries/${target.id}/retry`);
    assert.equal(again.status, 409, 'only failed deliveries can be retried');
  });
});
