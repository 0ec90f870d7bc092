// A failed send never jams the lane (an image whose upload failed once stayed `queued` with 137
// attempts and held up everything behind it). For each failure class, message 1 ends `failed` with
// a DeliveryCallback error (and errorCode) within its retry budget, and the text queued behind it
// arrives. The retries' backoff is protocol time: the tests jump the clock through it
// (sendQueued) and check, on that clock, that the waits were the retry schedule's and no more.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import sharp from 'sharp';
import { mediaCerts } from '../../simnet/src/media/certs.js';
import { startHarness, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511900004001';
const CARLA = '5511900004002';
const MAX_BYTES = 1024 * 1024;
/** The sender's retry schedule (src/sender/failures.ts): 5 attempts, waits of 2 s · 2^(n-1), ±20 %. */
const ATTEMPTS = 5;
const RETRY_MS = 2_000;
const retryWaits = (jitter: number): number => Array.from({ length: ATTEMPTS - 1 }, (_, n) => RETRY_MS * 2 ** n * (1 + jitter)).reduce((a, b) => a + b, 0);
/** Z-API's pacing gap before each message (1–3 s); two messages go out here. */
const GAPS_MS = 2 * 3_000;
/** Real ms a failure may take to be reported: a bound on a hang, not a measure. */
const WAIT_MS = 30_000;

/**
 * Protocol time the clock was jumped by since `from` (its reading and the real time then): what
 * the gateway waited on its clock, without the time the work itself took.
 */
function jumpedSince(h: Harness, from: { clock: number; real: number }): number {
  return h.clock.now() - from.clock - (performance.now() - from.real);
}

interface Servers {
  http: string;
  https: string;
  close(): Promise<void>;
}

async function mediaServers(png: Buffer): Promise<Servers> {
  const sockets = new Set<Socket>();
  const handler = (req: { url?: string }, res: import('node:http').ServerResponse) => {
    switch (req.url) {
      case '/pic':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      case '/500':
        return void res.writeHead(500).end('oops');
      case '/html':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end('<html><body>not an image</body></html>');
      case '/huge':
        return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(MAX_BYTES + 1));
      case '/silent':
        return; // never answers
      default:
        return void res.writeHead(404).end();
    }
  };
  const http: Server = createServer(handler);
  const certs = mediaCerts(); // signed by a CA the gateway's media fetch does not trust
  const https = createHttpsServer({ cert: certs.certPem, key: certs.keyPem }, handler);
  for (const s of [http, https]) s.on('connection', (c: Socket) => (sockets.add(c), c.on('close', () => sockets.delete(c))));
  await Promise.all([http, https].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
  return {
    http: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    https: `https://127.0.0.1:${(https.address() as AddressInfo).port}`,
    async close() {
      for (const c of sockets) c.destroy();
      await Promise.all([http, https].map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}

function failedDelivery(h: Harness, id: string): Promise<WebhookHit> {
  return h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id && 'error' in w.body, WAIT_MS, `failed DeliveryCallback ${id}`);
}

async function send(h: Harness, inst: Instance, path: string, body: Record<string, unknown>): Promise<{ messageId: string; zaapId: string }> {
  const r = await h.call('POST', `${inst.prefix}/${path}`, body);
  assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
  return { messageId: String(r.json.messageId), zaapId: String(r.json.zaapId) };
}

describe('the lane never jams on a failed media URL', () => {
  let h: Harness;
  let inst: Instance;
  let servers: Servers;

  before(async () => {
    h = await startHarness({ env: { ZAPGATE_MEDIA_FETCH_TIMEOUT_MS: '800', ZAPGATE_MEDIA_MAX_BYTES: String(MAX_BYTES) } });
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    inst = await h.pairNew(OWNER, 'jam');
    servers = await mediaServers(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer());
  });
  after(async () => {
    await servers?.close();
    await h?.close();
  });

  const cases: { name: string; url: () => string; error: RegExp; code: string; transient: boolean }[] = [
    { name: 'an untrusted TLS certificate', url: () => `${servers.https}/pic`, error: /TLS certificate not trusted/, code: 'MEDIA_DOWNLOAD_FAILED', transient: false },
    { name: 'HTTP 500', url: () => `${servers.http}/500`, error: /HTTP 500 \(gave up after 5 attempts\)/, code: 'MEDIA_DOWNLOAD_FAILED', transient: true },
    { name: 'a URL that never answers', url: () => `${servers.http}/silent`, error: /timed out \(gave up after 5 attempts\)/, code: 'MEDIA_DOWNLOAD_FAILED', transient: true },
    { name: 'a payload that is not media', url: () => `${servers.http}/html`, error: /not an image/, code: 'MEDIA_INVALID', transient: false },
    { name: 'a payload over the size limit', url: () => `${servers.http}/huge`, error: /more than the limit/, code: 'MEDIA_TOO_LARGE', transient: false },
  ];

  for (const c of cases) {
    test(`${c.name}: message 1 fails with its reason within the budget, message 2 arrives`, async (t) => {
      const started = { clock: h.clock.now(), real: performance.now() };
      const bad = await send(h, inst, 'send-image', { phone: CARLA, image: c.url() });
      const next = await send(h, inst, 'send-text', { phone: CARLA, message: `after ${c.name}` });
      await h.sendQueued(inst);
      const jumped = jumpedSince(h, started);
      const failed = await failedDelivery(h, bad.messageId);
      assert.match(String(failed.body.error), c.error);
      assert.equal(failed.body.errorCode, c.code);
      assert.equal(failed.body.zaapId, bad.zaapId);
      const got = await h.admin.waitForReceived(CARLA, (m) => m.id === next.messageId, 15_000);
      assert.equal(got.text, `after ${c.name}`);
      const row = await h.gateway.store.messages.findByZaapId(inst.instanceId, bad.zaapId);
      assert.equal(row?.state, 'failed');
      assert.equal(row?.error_code, c.code);
      assert.ok(row!.attempts <= ATTEMPTS, `attempts ${row?.attempts}`);
      assert.equal(row!.attempts, c.transient ? ATTEMPTS : 1);
      t.diagnostic(`waited ${(jumped / 1000).toFixed(1)} s on the clock, ${Math.round(performance.now() - started.real)} ms real`);
      // On the clock: the pacing gaps, plus the retry schedule's waits when the failure is transient.
      const [least, most] = c.transient ? [retryWaits(-0.2), retryWaits(0.2) + GAPS_MS] : [0, GAPS_MS];
      assert.ok(jumped >= least - 50 && jumped <= most + 50, `waited ${Math.round(jumped)} ms on the clock, expected ${least}–${most}`);
    });
  }

  test('while a transient failure waits for its retry, the queue listing shows attempts, the error and the next attempt; then it is listed as failed', async () => {
    const bad = await send(h, inst, 'send-image', { phone: CARLA, image: `${servers.http}/500` });
    // Jumps of 1.5 s at most: the gap before the first attempt goes, and the listing is read while
    // a retry (1.6 s and more after a failure) is still ahead.
    const listed = await h.driveUntil(
      'the retrying message listed',
      async () => ((await h.call('GET', `${inst.prefix}/queue`)).json.messages as Record<string, unknown>[]).find((m) => m.zaapId === bad.zaapId),
      (m) => m !== undefined && Number(m.attempts) >= 1 && m.nextAttemptAt !== null,
      { withinMs: 1_500 },
    );
    const seen = listed!;
    assert.match(String(seen.error), /HTTP 500/);
    assert.equal(seen.errorCode, 'MEDIA_DOWNLOAD_FAILED');
    await h.sendQueued(inst);
    await failedDelivery(h, bad.messageId);
    // Once given up it leaves the waiting list and shows among the failed, with why.
    const waiting = await h.call('GET', `${inst.prefix}/queue`);
    assert.ok(!(waiting.json.messages as Record<string, unknown>[]).some((m) => m.zaapId === bad.zaapId));
    const failed = await h.call('GET', `${inst.prefix}/queue?status=failed&pageSize=1000`);
    const row = (failed.json.messages as Record<string, unknown>[]).find((m) => m.zaapId === bad.zaapId);
    assert.deepEqual([row?.state, row?.attempts, row?.errorCode, row?.nextAttemptAt], ['failed', 5, 'MEDIA_DOWNLOAD_FAILED', null]);
    assert.match(String(row?.error), /HTTP 500 \(gave up after 5 attempts\)/);
  });
});

describe('the lane never jams when the network\'s media host refuses the upload (TLS)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    // No trust for simnet's media CA: every upload fails its TLS handshake, as in the issue.
    h = await startHarness({ engine: { mediaAgent: undefined } });
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    inst = await h.pairNew(OWNER, 'jam-upload');
  });
  after(async () => {
    await h?.close();
  });

  test('the image fails after its 5 attempts with MEDIA_UPLOAD_FAILED; the text behind it arrives', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).png().toBuffer();
    const bad = await send(h, inst, 'send-image', { phone: CARLA, image: `data:image/png;base64,${png.toString('base64')}` });
    const next = await send(h, inst, 'send-text', { phone: CARLA, message: 'behind the upload' });
    await h.sendQueued(inst);
    const failed = await failedDelivery(h, bad.messageId);
    assert.match(String(failed.body.error), /media upload to the network failed \(gave up after 5 attempts\)/);
    assert.equal(failed.body.errorCode, 'MEDIA_UPLOAD_FAILED');
    await h.admin.waitForReceived(CARLA, (m) => m.id === next.messageId, 15_000);
    const row = await h.gateway.store.messages.findByZaapId(inst.instanceId, bad.zaapId);
    assert.deepEqual([row?.state, row?.attempts], ['failed', 5]);
  });
});
