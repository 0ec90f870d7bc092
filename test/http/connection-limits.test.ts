// Idle and slow clients cannot hold connections: a silent connection is closed by the headers
// timeout, an idle kept-alive one by the keep-alive timeout, a trickled body by the body timeout and
// a request that outlives the total request time gets a 503; connections beyond the limits, per
// client address and in total, are closed at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { expectError, startGateway, type TestGateway } from '../helpers/gateway.js';
import { scriptedSessions } from '../helpers/scripted-sessions.js';
import { until, within } from '../helpers/poll.js';

interface Probe {
  readonly socket: Socket;
  /** Milliseconds from connecting until the server closed the connection (null: still open). */
  closedAfter(): number | null;
  readonly closed: Promise<number>;
  received(): string;
}

async function open(url: string): Promise<Probe> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  let data = '';
  let closedAfter: number | null = null;
  socket.setEncoding('utf8').on('data', (d: string) => (data += d));
  socket.on('error', () => undefined); // a reset is a close here
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const start = performance.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve((closedAfter = Math.round(performance.now() - start)))));
  return { socket, closedAfter: () => closedAfter, closed, received: () => data };
}

/** Waits for the server to close `probe`, at most `ms` (a bound on a hang); returns how long it took or null. */
async function closedWithin(probe: Probe, ms: number): Promise<number | null> {
  const r = await Promise.race([probe.closed, sleep(ms, null, { ref: false })]);
  if (r === null) probe.socket.destroy();
  return r;
}

const LIMITS = {
  ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: '400',
  ZAPGATE_HTTP_BODY_TIMEOUT_MS: '1500',
  ZAPGATE_HTTP_REQUEST_TIMEOUT_MS: '5000',
  ZAPGATE_HTTP_KEEPALIVE_TIMEOUT_MS: '400',
  ZAPGATE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '4',
};

test('timeouts close silent, idle and trickling connections', async (t) => {
  const gw = await startGateway({ env: LIMITS });
  t.after(() => gw.close());

  await t.test('a connection that sends nothing is closed by the headers timeout', async (t) => {
    const silent = await open(gw.url);
    const after = await closedWithin(silent, 10_000);
    assert.notEqual(after, null, 'closed within 10 s');
    assert.ok((after ?? 0) >= 300, `closed after ${after} ms, not before the headers timeout (400 ms)`);
    t.diagnostic(`closed after ${after} ms, headers timeout 400 ms`);
  });

  await t.test('an idle kept-alive connection is closed by the keep-alive timeout', async (t) => {
    const idle = await open(gw.url);
    idle.socket.write(`GET /livez HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`);
    const after = await closedWithin(idle, 10_000);
    assert.match(idle.received(), /^HTTP\/1\.1 200/, 'the request was answered');
    assert.notEqual(after, null, 'closed within 10 s');
    t.diagnostic(`closed after ${after} ms, keep-alive timeout 400 ms`);
  });

  await t.test('a body trickling at one byte per 100 ms is cut by the body timeout', async (t) => {
    const slow = await open(gw.url);
    const body = JSON.stringify({ name: 'x'.repeat(200) }); // 20 s at this pace
    slow.socket.write(
      `POST /instances HTTP/1.1\r\nHost: x\r\nClient-Token: ${gw.clientToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    // The scenario: a client that sends one byte every 100 ms.
    const trickle = setInterval(() => {
      if (!slow.socket.destroyed && sent < body.length) slow.socket.write(body[sent++] ?? '');
    }, 100);
    try {
      const after = await closedWithin(slow, 15_000);
      assert.notEqual(after, null, `cut within 15 s (${sent} of ${body.length} bytes sent)`);
      // The order that matters: the body timeout (1.5 s) ended it, long before the body's 20 s.
      assert.ok(sent < body.length, 'cut before the body was complete');
      t.diagnostic(`cut after ${after} ms, body timeout 1500 ms`);
      assert.match(slow.received(), /^(HTTP\/1\.1 408|$)/, `408 or nothing: ${slow.received().slice(0, 80)}`);
    } finally {
      clearInterval(trickle);
    }
  });
});

test('a request that takes longer than the total request time answers 503; the late answer is dropped', async (t) => {
  const sessions = scriptedSessions();
  // The network answers a phone check only once the test lets it, after the 503 has come: the
  // order (the request's time limit answers first) holds by construction, not by timing.
  let letNetworkAnswer!: () => void;
  const networkMayAnswer = new Promise<void>((resolve) => (letNetworkAnswer = resolve));
  let networkAnswered!: () => void;
  const answered = new Promise<void>((resolve) => (networkAnswered = resolve));
  let answers = 0;
  sessions.checkPhones = async (_id, phones) => {
    await networkMayAnswer;
    answers++;
    networkAnswered();
    return phones.map((p) => ({ inputPhone: p, outputPhone: p, exists: true, lid: null }));
  };
  const gw = await startGateway({ env: { ...LIMITS, ZAPGATE_HTTP_REQUEST_TIMEOUT_MS: '800' }, sessions });
  t.after(() => gw.close());
  const inst = await gw.createInstance('slow');
  sessions.connected.add(inst.instanceId);

  const start = performance.now();
  const r = await gw.request('GET', `${inst.prefix}/phone-exists/5511999990000`);
  const elapsed = performance.now() - start;
  expectError(r, 503, 'Service Unavailable', 'the request took too long; try again');
  assert.equal(answers, 0, 'answered before the network did');
  assert.ok(elapsed >= 700, `answered after ${elapsed.toFixed(0)} ms, not before the request timeout (800 ms)`);
  t.diagnostic(`503 after ${elapsed.toFixed(0)} ms, request timeout 800 ms`);
  assert.equal(r.headers.connection, 'close', 'the connection is closed after it');

  // The handler's own answer comes later and goes nowhere; the gateway carries on.
  letNetworkAnswer();
  await within('the network to answer, late', answered);
  assert.equal(answers, 1, 'the network did answer, late');
  // The late answer is handled in the same turn as the network's; this request comes after it.
  const after = await gw.request('GET', '/livez');
  assert.equal(after.status, 200, 'still serving');
});

/** Connections the gateway's HTTP server holds open. */
function openConnections(gw: TestGateway): Promise<number> {
  return new Promise((resolve, reject) => gw.gateway.http.server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

async function openMany(gw: TestGateway, n: number): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (let i = 0; i < n; i++) probes.push(await open(gw.url));
  return probes;
}

test('connections beyond the per-address limit are closed at once; others keep theirs', async (t) => {
  const gw = await startGateway({ env: { ...LIMITS, ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: '1500', ZAPGATE_HTTP_KEEPALIVE_TIMEOUT_MS: '1500' } });
  t.after(() => gw.close());
  const allowed = await openMany(gw, 4);
  const extra = await openMany(gw, 3);
  for (const p of extra) {
    const after = await closedWithin(p, 2_000);
    assert.notEqual(after, null, 'an extra connection is closed');
    // "At once" as an order: the first four, opened earlier and just as silent, would reach the
    // headers timeout first; they are all still open when an extra one is closed.
    assert.deepEqual(allowed.map((a) => a.closedAfter()), [null, null, null, null], 'closed before any timeout: the first four are still open');
    t.diagnostic(`an extra connection closed after ${after} ms`);
  }
  // The allowed ones still work.
  const [first] = allowed;
  first?.socket.write(`GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  await first?.closed;
  assert.match(first?.received() ?? '', /^HTTP\/1\.1 200/, 'an allowed connection is served');
  for (const p of allowed) p.socket.destroy();
  await Promise.all(allowed.map((p) => p.closed));
  await until('the server to see them closed', () => openConnections(gw).then((n) => n === 0));
  // Their slots are free again.
  const again = await gw.request('GET', '/livez');
  assert.equal(again.status, 200, 'new connections are accepted once the others closed');
});

test('connections beyond the total limit are closed at once', async (t) => {
  const gw = await startGateway({
    env: { ...LIMITS, ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: '1500', ZAPGATE_HTTP_MAX_CONNECTIONS: '3', ZAPGATE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: '100' },
  });
  t.after(() => gw.close());
  const allowed = await openMany(gw, 3);
  const extra = await open(gw.url);
  const after = await closedWithin(extra, 2_000);
  assert.notEqual(after, null, 'the fourth connection is closed');
  // At once: before the first three, opened earlier and just as silent, reach any timeout.
  for (const p of allowed) assert.equal(p.closedAfter(), null, 'the first three are still open');
  t.diagnostic(`closed after ${after} ms`);
  for (const p of allowed) p.socket.destroy();
});
