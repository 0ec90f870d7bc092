// The HTTP edge of the real `zapgate serve` process (not an in-process server): silent, partial-header,
// trickling-body and idle kept-alive connections are each closed by their timeout — never before
// it, and (with short ones) long before anything else would close them — with the default settings
// and with short ones, and 300 silent connections from one address leave /livez answering for a
// client at another address. How long past its timeout each close came, and how soon /livez
// answered, are printed (service levels, not bounds).
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { WAIT_TIMEOUT_MS, within } from '../helpers/wait.js';

const TOKEN = 'EDGE0000000000000000000000000000000000AA';
/**
 * What a busy shared machine may add to a short timeout before the close is seen: generous (a
 * close comes some 100 ms after its timeout on a quiet machine), and each short timeout plus it
 * stays below what would close the connection otherwise — the default headers timeout (10 s), the
 * default keep-alive timeout (5 s), the request deadline set below (5 s) — so a close within it was
 * the short timeout's doing.
 */
const MARGIN_MS = 3_000;

interface Probe {
  readonly socket: Socket;
  /** Milliseconds from connecting until the server closed the connection (null: still open). */
  closedAfter(): number | null;
  readonly closed: Promise<number>;
  received(): string;
}

/**
 * A raw TCP client that reads everything (a socket nobody reads never sees the server's FIN, and
 * would look open forever), from `localAddress` when given.
 */
async function open(url: string, localAddress?: string): Promise<Probe> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) });
  // Timed from before the connection is made: the server's timer cannot start sooner, so a test
  // process slow to see its own connect cannot make a close look early.
  const start = Date.now();
  let data = '';
  let closedAfter: number | null = null;
  socket.setEncoding('utf8').on('data', (d: string) => (data += d));
  socket.on('error', () => undefined); // a reset is a close here
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve((closedAfter = Date.now() - start))));
  return { socket, closedAfter: () => closedAfter, closed, received: () => data };
}

/** Waits for the server to close `probe`, at most `ms`; returns how long it took or null (then closes it). */
async function closedWithin(probe: Probe, ms: number): Promise<number | null> {
  const r = await within('the close', probe.closed, { timeoutMs: ms }).catch(() => null);
  if (r === null) probe.socket.destroy();
  return r;
}

/** Closed (within `withinMs` of connecting), and never before its timeout; prints how late. */
function assertClosedIn(t: Pick<TestContext, 'diagnostic'>, after: number | null, timeoutMs: number, withinMs: number, what: string): void {
  assert.notEqual(after, null, `${what}: still open ${withinMs} ms after connecting`);
  assert.ok((after ?? 0) >= timeoutMs * 0.75, `${what}: closed after ${after} ms, before its ${timeoutMs} ms timeout`);
  t.diagnostic(`${what}: closed ${after} ms after connecting (timeout ${timeoutMs} ms)`);
}

/** A GET over a fresh connection from `localAddress`, with its own deadline; the status line or the failure. */
async function livezFrom(url: string, localAddress: string): Promise<string> {
  const p = await open(url, localAddress);
  p.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  await closedWithin(p, WAIT_TIMEOUT_MS);
  return p.received().split('\r\n')[0] ?? '';
}

function dataDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-edge-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('zapgate serve with short timeouts', () => {
  const LIMITS = {
    ZAPGATE_CLIENT_TOKEN: TOKEN,
    ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: '400',
    ZAPGATE_HTTP_KEEPALIVE_TIMEOUT_MS: '600',
    ZAPGATE_HTTP_BODY_TIMEOUT_MS: '1500',
    ZAPGATE_HTTP_REQUEST_TIMEOUT_MS: '5000',
  };
  let gw: GatewayProcess;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'zapgate-edge-'));
    gw = await spawnGateway({ dataDir: dir, env: LIMITS });
  });
  after(async () => {
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a connection that sends nothing is closed by the headers timeout', async (t) => {
    const p = await open(gw.url);
    assertClosedIn(t, await closedWithin(p, 400 + MARGIN_MS), 400, 400 + MARGIN_MS, 'silent');
  });

  test('a connection that sends part of its headers and stops is closed by the headers timeout', async (t) => {
    const p = await open(gw.url);
    p.socket.write(`GET /instances HTTP/1.1\r\nHost: x\r\nClient-Token: ${TOKEN}\r\n`);
    assertClosedIn(t, await closedWithin(p, 400 + MARGIN_MS), 400, 400 + MARGIN_MS, 'partial headers');
    assert.doesNotMatch(p.received(), /^HTTP\/1\.1 200/, 'never answered');
  });

  test('headers trickled one byte per 50 ms are cut by the headers timeout', async (t) => {
    const p = await open(gw.url);
    const head = `GET /instances HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(400)}`;
    let sent = 0;
    const trickle = setInterval(() => {
      if (!p.socket.destroyed && sent < head.length) p.socket.write(head[sent++] ?? '');
    }, 50);
    try {
      assertClosedIn(t, await closedWithin(p, 400 + MARGIN_MS), 400, 400 + MARGIN_MS, 'trickled headers');
    } finally {
      clearInterval(trickle);
    }
  });

  test('a body trickling at one byte per 100 ms is cut by the body timeout', async (t) => {
    const p = await open(gw.url);
    const body = JSON.stringify({ name: 'x'.repeat(200) }); // 20 s at this pace
    p.socket.write(`POST /instances HTTP/1.1\r\nHost: x\r\nClient-Token: ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    let sent = 0;
    const trickle = setInterval(() => {
      if (!p.socket.destroyed && sent < body.length) p.socket.write(body[sent++] ?? '');
    }, 100);
    try {
      assertClosedIn(t, await closedWithin(p, 1500 + MARGIN_MS), 1500, 1500 + MARGIN_MS, 'trickled body');
      assert.ok(sent < body.length, 'cut before the body was complete');
      assert.match(p.received(), /^(HTTP\/1\.1 408|$)/, `408 or nothing: ${p.received().slice(0, 80)}`);
    } finally {
      clearInterval(trickle);
    }
  });

  test('an idle kept-alive connection is closed by the keep-alive timeout', async (t) => {
    const p = await open(gw.url);
    p.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const after = await closedWithin(p, 600 + MARGIN_MS);
    assert.match(p.received(), /^HTTP\/1\.1 200/, 'the request was answered');
    assertClosedIn(t, after, 600, 600 + MARGIN_MS, 'idle keep-alive');
  });

  test('300 silent connections from one address: /livez still answers a client at another address, and all 300 are closed', async (t) => {
    const silent: Probe[] = [];
    const opening: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) opening.push(open(gw.url, '127.0.0.1').then((p) => void silent.push(p), () => undefined));
    await Promise.all(opening);
    const t0 = Date.now();
    const status = await livezFrom(gw.url, '127.0.0.2');
    const servedMs = Date.now() - t0;
    assert.equal(status, 'HTTP/1.1 200 OK', 'another client is served while the 300 are open');
    t.diagnostic(`/livez served at another address ${servedMs} ms after it was asked, beside 300 silent connections`);
    const closed = await Promise.all(silent.map((p) => closedWithin(p, WAIT_TIMEOUT_MS)));
    assert.equal(closed.filter((c) => c === null).length, 0, 'every silent connection was closed');
    t.diagnostic(`the 300 silent connections closed after ${Math.min(...(closed as number[]))}–${Math.max(...(closed as number[]))} ms (headers timeout 400 ms)`);
    // Their descriptors are free again: the first address is served as well.
    assert.equal(await livezFrom(gw.url, '127.0.0.1'), 'HTTP/1.1 200 OK');
  });
});

test('zapgate serve with the default 10 s headers timeout closes silent and partial-header connections', async (t) => {
  const gw = await spawnGateway({ dataDir: dataDir(t), env: { ZAPGATE_CLIENT_TOKEN: TOKEN } });
  t.after(() => gw.stop());
  const silent = await open(gw.url);
  const partial = await open(gw.url);
  partial.socket.write('GET /livez HTTP/1.1\r\nHost: x\r\n');
  // Nothing else would close them: the wait is only a hang guard.
  const [a, b] = await Promise.all([closedWithin(silent, 10_000 + WAIT_TIMEOUT_MS), closedWithin(partial, 10_000 + WAIT_TIMEOUT_MS)]);
  assertClosedIn(t, a, 10_000, 10_000 + WAIT_TIMEOUT_MS, 'silent');
  assertClosedIn(t, b, 10_000, 10_000 + WAIT_TIMEOUT_MS, 'partial headers');
});
