// The live event stream (GET /events, GET …/events): the webhooks' events as Server-Sent Events,
// resumable with Last-Event-ID, authenticated like the API, bounded per account, exempt from the
// request time limit, and ended on shutdown. Events are injected where the engine hands them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import type { ConnectedCallback, GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { until, within } from '../helpers/poll.js';

interface SseEvent {
  id: string;
  event: string;
  data: Record<string, unknown>;
}

interface Consumer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  comments: string[];
  /** Resolves once `n` events have arrived (bounded), failing with what did. */
  waitFor(n: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Resolves once `n` heartbeat comments have arrived (bounded). */
  waitForPings(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

const agent = new Agent({ connections: 32, keepAliveTimeout: 1_000 });

/** A minimal SSE reader over a real HTTP connection (what any consumer would write). */
async function consume(g: TestGateway, path: string, headers: Record<string, string> = {}): Promise<Consumer> {
  const controller = new AbortController();
  const res = await request(g.url + path, {
    headers: { 'client-token': g.clientToken, ...headers },
    dispatcher: agent,
    signal: controller.signal,
    headersTimeout: 30_000,
    bodyTimeout: 0,
  });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  let resolveEnded: () => void = () => undefined;
  const ended = new Promise<void>((r) => (resolveEnded = r));
  // Each wait is a check run again whenever something arrives: no polling.
  const waiters = new Set<() => void>();
  const arrived = (): void => {
    for (const check of [...waiters]) check();
  };
  const waitUntil = (what: () => string, done: () => boolean, timeoutMs: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(what()));
      }, timeoutMs);
      const check = (): void => {
        if (!done()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
  res.body.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line);
        else if (line.includes(':')) fields[line.slice(0, line.indexOf(':'))] = line.slice(line.indexOf(':') + 1).replace(/^ /, '');
      }
      if (fields.data !== undefined) events.push({ id: fields.id ?? '', event: fields.event ?? 'message', data: JSON.parse(fields.data) as Record<string, unknown> });
    }
    arrived();
  });
  res.body.on('end', () => resolveEnded());
  res.body.on('error', () => resolveEnded());
  return {
    status: res.statusCode,
    headers: res.headers,
    events,
    comments,
    ended,
    async waitFor(n, timeoutMs = 15_000) {
      await waitUntil(() => `expected ${n} events, got ${events.length}: ${JSON.stringify(events.map((e) => e.data.type))}`, () => events.length >= n, timeoutMs);
      return events.slice(0, n);
    },
    async waitForPings(n, timeoutMs = 15_000) {
      const pings = (): number => comments.filter((line) => line === ': ping').length;
      await waitUntil(() => `expected ${n} heartbeats, got ${pings()}`, () => pings() >= n, timeoutMs);
    },
    close() {
      controller.abort();
    },
  };
}

let seq = 0;
function received(message: string): ReceivedCallback {
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
  };
}

const connected: ConnectedCallback = { type: 'ConnectedCallback', connected: true, phone: '5511999990000', momment: 1_700_000_000_000 };

function emit(g: TestGateway, inst: TestInstance, ...events: GatewayEvent[]): Promise<void> {
  return g.gateway.events.emit(inst.instanceId, events);
}

function texts(events: readonly SseEvent[]): string[] {
  return events.map((e) => String((e.data.text as { message: string } | undefined)?.message ?? e.data.type));
}

describe('event stream', () => {
  let g: TestGateway;
  let a: TestInstance;
  let b: TestInstance;

  before(async () => {
    g = await startGateway({ env: { ZAPGATE_HTTP_REQUEST_TIMEOUT_MS: '400', ZAPGATE_EVENT_STREAMS_PER_ACCOUNT: '4' }, eventStream: { heartbeatMs: 100 } });
    a = await g.createInstance('a');
    b = await g.createInstance('b');
  });
  after(async () => {
    await g.close();
  });

  test('an instance stream carries the webhook bodies in order, with the webhook-id as the event id (no webhook URL needed)', async () => {
    const c = await consume(g, `${a.prefix}/events`);
    try {
      assert.equal(c.status, 200, 'the stream opens');
      assert.match(String(c.headers['content-type']), /^text\/event-stream/, 'SSE content type');
      await emit(g, a, received('one'), connected, received('two'));
      await emit(g, b, received('for b'));
      // A message the instance sent itself, with notifySentByMe off: no webhook would get it, nor does the stream.
      await emit(g, a, { ...received('sent by me'), fromMe: true, status: 'SENT' });
      await emit(g, a, received('three'));
      const got = await c.waitFor(4);
      assert.deepEqual(texts(got), ['one', 'ConnectedCallback', 'two', 'three'], "only this instance's events, in commit order");
      assert.deepEqual(got.map((e) => e.event), ['ReceivedCallback', 'ConnectedCallback', 'ReceivedCallback', 'ReceivedCallback'], 'event: names the type');
      for (const e of got) {
        assert.match(e.id, /^msg_[0-9a-f]{32}$/, 'the id is the webhook-id');
        assert.equal(e.data.instanceId, a.instanceId, 'the body is the webhook body (instanceId filled in)');
      }
      assert.equal(got[1]!.data.connectedPhone, '5511999990000', 'connectedPhone as the webhook has it');
    } finally {
      c.close();
    }
  });

  test('a consumer that disconnects and comes back with Last-Event-ID gets every event once, in order', async () => {
    const first = await consume(g, `${a.prefix}/events`);
    await emit(g, a, received('r1'), received('r2'));
    const seen = await first.waitFor(2);
    first.close();
    // While nobody listens: several commits, interleaved with another instance's.
    await emit(g, a, received('r3'));
    await emit(g, b, received('b-noise'));
    await emit(g, a, received('r4'), received('r5'));
    const again = await consume(g, `${a.prefix}/events`, { 'last-event-id': seen[1]!.id });
    try {
      await emit(g, a, received('r6'));
      const got = await again.waitFor(4);
      assert.deepEqual(texts(got), ['r3', 'r4', 'r5', 'r6'], 'the missed events, then live ones');
      // One more: the stream is in commit order, so anything sent twice would come before it.
      await emit(g, a, received('r7'));
      await again.waitFor(5);
      assert.deepEqual(texts(again.events), ['r3', 'r4', 'r5', 'r6', 'r7'], 'nothing twice');
      assert.equal(new Set(again.events.map((e) => e.id)).size, 5, 'distinct ids');
    } finally {
      again.close();
    }
  });

  test('the account stream carries every instance of the account, also one created after it opened', async () => {
    const c = await consume(g, '/events');
    try {
      const later = await g.createInstance('later');
      await emit(g, a, received('acc-a'));
      await emit(g, b, received('acc-b'));
      await emit(g, later, received('acc-later'));
      const got = await c.waitFor(3);
      assert.deepEqual(texts(got), ['acc-a', 'acc-b', 'acc-later'], 'all three, in order');
      assert.deepEqual(got.map((e) => e.data.instanceId), [a.instanceId, b.instanceId, later.instanceId], 'each says which instance');
    } finally {
      c.close();
    }
  });

  test("another account's stream is refused, and so is a wrong instance token; another account's own stream sees none of these events", async () => {
    const other = await g.createAccount('other');
    const mine = await g.createInstance('mine', other.clientToken);
    expectError(await g.request('GET', `${a.prefix}/events`, { token: other.clientToken }), 404, 'Instance not found');
    expectError(await g.request('GET', `/instances/${a.instanceId}/token/${mine.instanceToken}/events`), 401, 'Unauthorized', 'Invalid instanceToken');
    expectError(await g.request('GET', '/events', { token: 'not-a-token' }), 401, 'Unauthorized', 'Invalid Client-Token');
    expectError(await g.request('GET', '/events', { token: null }), 401, 'Unauthorized', 'Invalid Client-Token');
    const theirs = await consume(g, '/events', { 'client-token': other.clientToken });
    try {
      await emit(g, a, received('not for them'));
      await emit(g, mine, received('theirs'));
      const got = await theirs.waitFor(1);
      assert.deepEqual(texts(got), ['theirs'], "only the account's own events");
      // Another of each: in commit order, a leaked event would come before their next own one.
      await emit(g, a, received('still not for them'));
      await emit(g, mine, received('theirs again'));
      await theirs.waitFor(2);
      assert.deepEqual(texts(theirs.events), ['theirs', 'theirs again'], "no other account's event");
    } finally {
      theirs.close();
    }
  });

  test('a stream outlives ZAPGATE_HTTP_REQUEST_TIMEOUT_MS, while an ordinary request is still bounded by it', async () => {
    const c = await consume(g, `${a.prefix}/events`);
    try {
      // Ten heartbeats, 100 ms apart on real time (a guard never fires early): the stream has been
      // open at least 1 s, 2.5 times the 400 ms request time limit.
      await c.waitForPings(10);
      await emit(g, a, received('late'));
      assert.deepEqual(texts(await c.waitFor(1)), ['late'], 'still open and delivering');
      assert.ok(c.comments.filter((line) => line === ': ping').length >= 3, `heartbeats while idle: ${c.comments.length}`);
    } finally {
      c.close();
    }
  });

  test('an account holds at most ZAPGATE_EVENT_STREAMS_PER_ACCOUNT streams (then 429); a closed one frees its place', async () => {
    const open = [];
    for (let i = 0; i < 4; i++) open.push(await consume(g, i % 2 === 0 ? '/events' : `${b.prefix}/events`));
    try {
      assert.deepEqual(open.map((c) => c.status), [200, 200, 200, 200], 'four open');
      const metrics = await g.request('GET', '/metrics', { token: null });
      assert.match(metrics.text, /^zapgate_event_streams_open 4$/m, 'counted in /metrics');
      const refused = await g.request('GET', '/events');
      expectError(refused, 429, 'Too many requests', /event streams open/);
      assert.equal(refused.headers['retry-after'], '5', 'Retry-After');
      open.pop()!.close();
      // The place is free once the gateway has seen that stream end.
      await until('the closed stream to be counted out', async () => /^zapgate_event_streams_open 3$/m.test((await g.request('GET', '/metrics', { token: null })).text));
      const next = await consume(g, '/events');
      assert.equal(next.status, 200, 'a place came free');
      open.push(next);
    } finally {
      for (const c of open) c.close();
    }
  });

  test('documented in /openapi.json as text/event-stream with Last-Event-ID; a stray query parameter is a 400, not a stream', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, { content?: Record<string, unknown> }> }>> };
    for (const path of ['/events', '/instances/{instanceId}/token/{instanceToken}/events']) {
      const op = doc.paths[path]?.get;
      assert.ok(op, `${path} is documented`);
      assert.ok(op.responses['200']?.content?.['text/event-stream'], `${path} answers text/event-stream`);
      assert.ok(op.parameters?.some((p) => p.in === 'header' && p.name === 'last-event-id'), `${path} documents Last-Event-ID`);
    }
    expectError(await g.request('GET', '/events?since=0'), 400, 'Invalid request');
  });

  test('the dashboard page is served with a Content-Security-Policy and no inline code', async () => {
    const page = await g.request('GET', '/dashboard', { token: null });
    assert.equal(page.status, 200, 'served without a token (it asks for one)');
    assert.match(String(page.headers['content-type']), /^text\/html/, 'html');
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/, 'scripts from this origin only');
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline code or eval allowed');
    assert.doesNotMatch(page.text, /<script>|<style>| on[a-z]+="/i, 'no inline script, style or handler');
    let total = page.text.length;
    // The page names its icon, so a browser never asks for /favicon.ico (a 404 in its console).
    assert.match(page.text, /<link rel="icon" href="\/dashboard\/icon\.svg"/, 'an icon declared');
    for (const asset of ['/dashboard/app.js', '/dashboard/app.css', '/dashboard/icon.svg']) {
      const r = await g.request('GET', asset, { token: null });
      assert.equal(r.status, 200, asset);
      total += r.text.length;
    }
    assert.ok(total < 100_000, `the dashboard weighs ${total} bytes`);
  });
});

describe('event stream retention and shutdown', () => {
  after(async () => {
    await agent.close();
  });

  test('with ZAPGATE_EVENT_STREAM_RETENTION_HOURS=0 only events a webhook takes are streamed', async () => {
    const g = await startGateway({ env: { ZAPGATE_EVENT_STREAM_RETENTION_HOURS: '0' } });
    try {
      const inst = await g.createInstance('x');
      const c = await consume(g, `${inst.prefix}/events`);
      await emit(g, inst, received('nobody asked'));
      const hook = await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: 'https://hooks.example.com/in' } });
      assert.equal(hook.status, 200, hook.text);
      await emit(g, inst, received('asked'));
      await emit(g, inst, received('asked too'));
      // In commit order: the event nobody asked for would have come first.
      await c.waitFor(2);
      assert.deepEqual(texts(c.events), ['asked', 'asked too'], 'no copy kept of what no webhook takes');
      c.close();
    } finally {
      await g.close();
    }
  });

  test('closing the gateway ends open streams (and does not wait for them)', async (t) => {
    const g = await startGateway();
    const inst = await g.createInstance('x');
    const c = await consume(g, `${inst.prefix}/events`);
    const d = await consume(g, '/events');
    const started = performance.now();
    // A close that waited for the streams would never return: they stay open until ended.
    await within('the gateway to close with two streams open', g.close(), 30_000);
    await within('both streams to end', Promise.all([c.ended, d.ended]));
    t.diagnostic(`closed and ended in ${(performance.now() - started).toFixed(0)} ms`);
  });
});
