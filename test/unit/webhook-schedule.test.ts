// The retry schedule of docs/contract.md §5, its jitter, Retry-After, and which events go to which webhook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { bodyOf, routeOf } from '../../src/outbox/payload.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS, jitter, nextDelayMs, nextSinkDelayMs, parseRetryAfter } from '../../src/outbox/schedule.js';
import type { InstanceDeliveryContext } from '../../src/store/deliveries-repo.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;

test('the schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed', () => {
  assert.deepEqual(RETRY_DELAYS_MS, [0, 5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
  assert.equal(MAX_ATTEMPTS, 8);
  const mid = () => 0.5; // jitter factor exactly 1
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((made) => nextDelayMs(made, null, mid)), RETRY_DELAYS_MS.slice(1));
  assert.equal(nextDelayMs(8, null, mid), null, 'after the eighth attempt the delivery has failed');
});

test('a broker sink retries quickly: 1 s, 2 s, 5 s, 10 s, then every 30 s, never stopping on its own', () => {
  const mid = () => 0.5; // no jitter
  assert.deepEqual([1, 2, 3, 4, 5, 6, 50].map((n) => nextSinkDelayMs(n, mid)), [1_000, 2_000, 5_000, 10_000, 30_000, 30_000, 30_000]);
  assert.equal(nextSinkDelayMs(5, () => 0), 24_000, '−20 %');
  assert.equal(nextSinkDelayMs(5, () => 1), 36_000, '+20 %');
});

test('jitter stays within ±20 %', () => {
  assert.equal(jitter(10 * H, () => 0), 8 * H);
  assert.equal(jitter(10 * H, () => 0.999999), Math.round(10 * H * (0.8 + 0.4 * 0.999999)));
  for (let i = 0; i < 1000; i++) {
    const d = jitter(5 * M);
    assert.ok(d >= 4 * M && d <= 6 * M, String(d));
  }
});

test('Retry-After wins when longer than the scheduled step, up to 10 h', () => {
  const low = () => 0;
  assert.equal(nextDelayMs(1, 60 * S, low), 60 * S, 'a longer Retry-After is honoured');
  assert.equal(nextDelayMs(3, 60 * S, low), 0.8 * 30 * M, 'a shorter one does not shorten the schedule');
  assert.equal(nextDelayMs(1, 999 * H, low), 10 * H, 'an absurd one is capped');
  assert.equal(nextDelayMs(8, 60 * S, low), null, 'nor does it extend the schedule');
});

test('Retry-After as seconds or as an HTTP date', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('120', now), 120 * S);
  assert.equal(parseRetryAfter(['7'], now), 7 * S);
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', now), 90 * S);
  assert.equal(parseRetryAfter('Tue, 31 Dec 2024 00:00:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(parseRetryAfter(undefined, now), null);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('-5', now), null);
});

function ctx(over: Partial<InstanceDeliveryContext> = {}): InstanceDeliveryContext {
  return {
    instanceId: 'I1',
    phone: '5511999990000',
    notifySentByMe: false,
    secrets: ['whsec_x'],
    urls: new Map([
      ['received', 'https://r.example/'],
      ['message_status', 'https://s.example/'],
      ['delivery', 'https://d.example/'],
      ['connected', 'https://c.example/'],
      ['disconnected', 'https://x.example/'],
    ]),
    ...over,
  };
}

const msg = (over: Partial<ReceivedCallback> = {}): ReceivedCallback => ({
  type: 'ReceivedCallback',
  messageId: 'M1',
  phone: '5511988887777',
  fromMe: false,
  momment: 1,
  status: 'RECEIVED',
  chatName: '',
  senderName: '',
  participantPhone: null,
  isGroup: false,
  text: { message: 'hi' },
  ...over,
});

test('each event type goes to its own kind', () => {
  const events: [GatewayEvent, string][] = [
    [msg(), 'https://r.example/'],
    [{ type: 'MessageStatusCallback', status: 'READ', ids: ['a'], momment: 1, phone: '1', isGroup: false }, 'https://s.example/'],
    [{ type: 'DeliveryCallback', phone: '1', zaapId: 'z', messageId: 'm', momment: 1 }, 'https://d.example/'],
    [{ type: 'ConnectedCallback', connected: true, phone: '1', momment: 1 }, 'https://c.example/'],
    [{ type: 'DisconnectedCallback', disconnected: true, error: 'e', momment: 1 }, 'https://x.example/'],
  ];
  for (const [e, url] of events) assert.equal(routeOf(e, ctx())?.url, url, e.type);
  assert.equal(routeOf(msg(), ctx({ urls: new Map() })), null, 'no URL, no delivery');
});

test('notifySentByMe gates own messages, never notifications', () => {
  const own = msg({ fromMe: true, status: 'SENT' });
  assert.equal(routeOf(own, ctx()), null);
  assert.equal(routeOf(own, ctx({ notifySentByMe: true }))?.kind, 'received');
  assert.equal(routeOf(msg({ fromMe: true, text: undefined, notification: 'GROUP_CREATE' }), ctx())?.kind, 'received');
});

test('the body adds instanceId and connectedPhone, and an emitter cannot spoof instanceId', () => {
  const spoof = { ...msg(), instanceId: 'someone-else' } as ReceivedCallback;
  assert.deepEqual(JSON.parse(bodyOf('I1', spoof, ctx())), { ...msg(), instanceId: 'I1', connectedPhone: '5511999990000' });
  const connected: GatewayEvent = { type: 'ConnectedCallback', connected: true, phone: '5511911112222', momment: 1 };
  assert.equal((JSON.parse(bodyOf('I1', connected, ctx({ phone: null }))) as { connectedPhone: string }).connectedPhone, '5511911112222', 'a just-paired number is known from the event itself');
});
