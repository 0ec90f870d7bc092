// One image must not take the gateway down for every tenant (issue: a 1 MB PNG of 16000×16000
// pixels labelled image/webp or image/gif cost ~1.5 GB of RSS per message). Four such images at
// once — by data URI and by URL, as image, sticker and button-list header, on four instances —
// raise the gateway's RSS (a child process, measured from /proc) by less than 256 MB, and each
// gets a clear outcome: 400 for a data URI, a failed DeliveryCallback for a URL. A text sent
// behind each bomb still arrives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { startSimnet, SimnetClient, SimnetError, type RunningSimnet } from '../../simnet/src/index.js';
import { bombPng } from '../helpers/bomb-png.js';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { WebhookReceiver, until } from '../helpers/engine-harness.js';

// The gateway is a child process (its RSS is what is measured), so it cannot share the test's
// VirtualClock: it and simnet run on one time-lapse instead, from one origin.
const TIME_SCALE = 0.05;
const OWNERS = ['5511970005001', '5511970005002', '5511970005003', '5511970005004'];
const CONTACT = '5511980005001';
const RSS_BUDGET = 256 * 1024 * 1024;

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

test('four 16000×16000 images at once cost the gateway < 256 MB of RSS, each with a clear outcome', { skip: process.platform !== 'linux' }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bomb-'));
  const token = randomBytes(20).toString('hex');
  const agent = new Agent({ connections: 8, keepAliveTimeout: 2_000 });
  const webhooks = new WebhookReceiver();
  const bomb = await bombPng(16_000);
  const media = createServer((req, res) => {
    // Each label a different lie: the bytes are a PNG every time.
    const type = req.url?.endsWith('.webp') ? 'image/webp' : req.url?.endsWith('.gif') ? 'image/gif' : 'image/png';
    res.writeHead(200, { 'content-type': type }).end(bomb);
  });
  let sim: RunningSimnet | undefined;
  let gw: GatewayProcess | undefined;
  let sampler: NodeJS.Timeout | undefined;
  try {
    await webhooks.start();
    await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
    const mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
    sim = await startSimnet({ timeScale: TIME_SCALE });
    const admin = new SimnetClient(sim.adminUrl);
    const caFile = join(dataDir, 'simnet-media-ca.pem');
    writeFileSync(caFile, sim.mediaCaPem);
    gw = await spawnGateway({
      dataDir,
      env: {
        ZAPGATE_CLIENT_TOKEN: token,
        ZAPGATE_RATE_LIMIT: '0',
        ZAPGATE_WA_URL: sim.wsUrl,
        ZAPGATE_WA_ROOT_KEY: sim.rootPublicKey,
        ZAPGATE_TIME_SCALE: String(TIME_SCALE),
        ...(sim.timeOrigin === undefined ? {} : { ZAPGATE_TIME_ORIGIN: String(sim.timeOrigin) }),
        ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
        ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
        ZAPGATE_PACING: 'off',
        NODE_EXTRA_CA_CERTS: caFile,
      },
    });
    const url = gw.url;
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await request(url + path, {
        method: method as 'GET',
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      const text = await res.body.text();
      return { status: res.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };

    await admin.createUser({ phone: CONTACT, pushName: 'Contact' });
    const prefixes: string[] = [];
    for (const owner of OWNERS) {
      await admin.createUser({ phone: owner, pushName: owner });
      const created = await call('POST', '/instances', { name: owner });
      assert.equal(created.status, 201);
      const prefix = `/instances/${created.json.instanceId}/token/${created.json.instanceToken}`;
      for (let attempt = 1; ; attempt++) {
        const qr = await call('GET', `${prefix}/qr-code`);
        assert.equal(qr.status, 200, JSON.stringify(qr.json));
        try {
          await admin.scanQr(owner, String(qr.json.value));
          break;
        } catch (err) {
          if (!(err instanceof SimnetError && err.status === 410) || attempt >= 5) throw err;
        }
      }
      await until(`${owner} connected`, async () => (await call('GET', `${prefix}/status`)).json.status, (s) => s === 'connected', 60_000);
      assert.equal((await call('PUT', `${prefix}/update-every-webhooks`, { value: `${webhooks.url}/${owner}` })).status, 200);
      prefixes.push(prefix);
    }

    // Warm the gateway up on the same paths (a small image per instance), then take the baseline.
    const small =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAADElEQVR4nGP4//8/AAX+Av4N70a4AAAAAElFTkSuQmCC';
    const warm = await Promise.all(prefixes.map((p) => call('POST', `${p}/send-image`, { phone: CONTACT, image: small })));
    for (const w of warm) await admin.waitForReceived(CONTACT, (m) => m.id === w.json.messageId, 30_000);
    // The baseline once the gateway is done with them: their DeliveryCallbacks are its last word.
    for (const w of warm) await webhooks.waitFor((x) => x.body.type === 'DeliveryCallback' && x.body.messageId === w.json.messageId, 30_000, 'the warm-up DeliveryCallback');
    const pid = gw.child.pid!;
    const baseline = rssOf(pid);
    let peak = baseline;
    sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 25);

    const dataUri = (label: string) => `data:${label};base64,${bomb.toString('base64')}`;
    const [p0, p1, p2, p3] = prefixes as [string, string, string, string];
    // By data URI: refused up front, four at once.
    const refused = await Promise.all([
      call('POST', `${p0}/send-image`, { phone: CONTACT, image: dataUri('image/webp') }),
      call('POST', `${p1}/send-sticker`, { phone: CONTACT, sticker: dataUri('image/gif') }),
      call('POST', `${p2}/send-button-list`, { phone: CONTACT, message: 'Go?', buttonList: { buttons: [{ label: 'Yes' }], image: dataUri('image/webp') } }),
      call('POST', `${p3}/send-image`, { phone: CONTACT, image: dataUri('image/gif') }),
    ]);
    for (const r of refused) {
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.match(String(r.json.message), /16000×16000 pixels is more than the limit/);
    }
    // By URL: four at once, one per instance, each followed by a text.
    const sent = await Promise.all([
      call('POST', `${p0}/send-image`, { phone: CONTACT, image: `${mediaUrl}/bomb.webp` }),
      call('POST', `${p1}/send-sticker`, { phone: CONTACT, sticker: `${mediaUrl}/bomb.gif` }),
      call('POST', `${p2}/send-button-list`, { phone: CONTACT, message: 'Go?', buttonList: { buttons: [{ label: 'Yes' }], image: `${mediaUrl}/bomb.png` } }),
      call('POST', `${p3}/send-image`, { phone: CONTACT, image: `${mediaUrl}/bomb.gif` }),
    ]);
    const texts = await Promise.all(prefixes.map((p, i) => call('POST', `${p}/send-text`, { phone: CONTACT, message: `still here ${i}` })));
    for (const s of sent) {
      assert.equal(s.status, 200, JSON.stringify(s.json));
      const d = await webhooks.waitFor(
        (w) => w.body.type === 'DeliveryCallback' && w.body.messageId === s.json.messageId && 'error' in w.body,
        30_000,
        'failed DeliveryCallback',
      );
      assert.match(String(d.body.error), /16000×16000 pixels is more than the limit/);
      assert.equal(d.body.errorCode, 'MEDIA_TOO_LARGE');
    }
    for (const t of texts) await admin.waitForReceived(CONTACT, (m) => m.id === t.json.messageId, 30_000);
    clearInterval(sampler);
    const grew = peak - baseline;
    assert.ok(grew < RSS_BUDGET, `RSS grew by ${Math.round(grew / 1048576)} MB (baseline ${Math.round(baseline / 1048576)} MB)`);
    console.log(`# bomb: gateway RSS baseline ${Math.round(baseline / 1048576)} MB, peak ${Math.round(peak / 1048576)} MB (+${Math.round(grew / 1048576)} MB)`);
  } finally {
    clearInterval(sampler);
    await gw?.stop();
    await sim?.close();
    await webhooks.close();
    await new Promise<void>((r) => media.close(() => r()));
    await agent.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
