// A proxy per instance, end to end: HTTP → services → Baileys → a real SOCKS5 proxy on loopback →
// simnet. The proxy counts its connections and records where it relays them, so each test checks
// what actually went through it: the WebSocket (pairing, sending), media uploads and downloads.
// With the proxy down the instance does not connect (and does not fall back to a direct link),
// another instance is unaffected, and clearing the proxy reconnects directly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { request } from 'undici';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';
import { startHttpConnectProxy, startSocks5Proxy, type TestProxy } from '../helpers/proxies.js';

const OWNER = '5511900005001';
const BOB = '5511900005002';
const CARLA = '5511900005003';
const DORA = '5511900005004';
const CREDS = { user: 'zapgate', pass: 'pr0xy-s3cret' };

type Payload = Record<string, unknown>;


describe('engine proxy: an instance behind a SOCKS5 proxy (gateway + Baileys + proxy + simnet)', () => {
  let h: Harness;
  let proxy: TestProxy;
  let inst: Instance;
  let bob: Instance;
  let wsTarget = '';

  before(async () => {
    h = await startHarness();
    proxy = await startSocks5Proxy({ auth: CREDS });
    wsTarget = new URL(h.simnet.wsUrl).host;
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    bob = await h.pairNew(BOB, 'bob');
  });
  after(async () => {
    await proxy?.stop();
    await h?.close();
  });

  const status = async (i: Instance): Promise<Payload> => (await h.call('GET', `${i.prefix}/status`)).json;
  const wsTunnels = (): number => proxy.targets.filter((t) => t === wsTarget).length;

  test('set before pairing: the instance pairs and sends through the proxy; GET answers it masked', async () => {
    await h.admin.createUser({ phone: OWNER, pushName: 'Owner' });
    inst = await h.createInstance('proxied');
    const set = await h.call('PUT', `${inst.prefix}/update-proxy`, { value: proxy.url(CREDS) });
    assert.equal(set.status, 200, set.body.toString());
    const masked = `socks5://****:****@127.0.0.1:${proxy.port}`;
    assert.deepEqual(set.json, { value: true, proxy: masked });
    const got = await h.call('GET', `${inst.prefix}/proxy`);
    assert.deepEqual(got.json, { value: masked, enabled: true });
    assert.ok(!got.body.toString().includes(CREDS.pass), 'the password is never answered');

    await h.admin.scanQr(OWNER, await h.qrFromPng(inst));
    await h.waitForStatus(inst, 'connected');
    assert.ok(wsTunnels() >= 1, `the proxy relayed the WebSocket to simnet (${wsTarget}): ${JSON.stringify(proxy.targets)}`);
    assert.ok(proxy.users.every((u) => u === CREDS.user), 'every tunnel authenticated with the configured user');
    const hook = await h.call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${h.webhooks.url}/${inst.instanceId}`, notifySentByMe: false });
    assert.equal(hook.status, 200, hook.body.toString());

    const me = await h.call('GET', `${inst.prefix}/me`);
    assert.equal(me.json.proxyUrl, masked, '/me shows the proxy masked');
    assert.equal(me.json.useProxy, true, '/me: useProxy');

    const sent = await h.call('POST', `${inst.prefix}/send-text`, { phone: BOB, message: 'via socks5' });
    assert.equal(sent.status, 200, sent.body.toString());
    await h.sendQueued(inst);
    await h.webhooks.waitFor(
      (w) => w.path === `/${bob.instanceId}` && w.body.type === 'ReceivedCallback' && w.body.messageId === sent.json.messageId,
      20_000,
      'bob receives the message sent through the proxy',
    );
  });

  test('media: an image sent is uploaded through the proxy; one received is downloaded through it', async () => {
    const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 10, g: 160, b: 90 } } }).png().toBuffer();
    const mediaTunnels = (): number => proxy.targets.filter((t) => t === h.simnet.mediaHost).length;

    const before = mediaTunnels();
    const sent = await h.call('POST', `${inst.prefix}/send-image`, { phone: CARLA, image: `data:image/png;base64,${png.toString('base64')}` });
    assert.equal(sent.status, 200, sent.body.toString());
    await h.sendQueued(inst);
    const got = await h.admin.waitForReceived(CARLA, (m) => m.id === sent.json.messageId, 30_000);
    assert.equal(got.media?.error, undefined, `Carla decrypts the image: ${got.media?.error}`);
    assert.ok(mediaTunnels() > before, `the upload went through the proxy to ${h.simnet.mediaHost}: ${JSON.stringify(proxy.targets)}`);

    const beforeDownload = mediaTunnels();
    const { messageId } = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png' } as Parameters<Harness['admin']['sendAsContact']>[0]);
    const hit = await h.webhooks.waitFor(
      (w) => w.path === `/${inst.instanceId}` && w.body.type === 'ReceivedCallback' && w.body.messageId === messageId,
      20_000,
      'the image from Carla',
    );
    const url = String((hit.body.image as Payload).imageUrl);
    const res = await request(url, { headersTimeout: 30_000, bodyTimeout: 30_000 });
    const body = Buffer.from(await res.body.arrayBuffer());
    assert.equal(res.statusCode, 200, body.toString().slice(0, 200));
    assert.ok(body.equals(png), 'the served file is the one Carla sent');
    assert.ok(mediaTunnels() > beforeDownload, `the download went through the proxy to ${h.simnet.mediaHost}: ${JSON.stringify(proxy.targets)}`);
  });

  test('proxy down: the instance does not connect (status names the proxy); an instance without a proxy is unaffected', async () => {
    await proxy.stop();
    const r = await h.call('POST', `${inst.prefix}/restart`);
    assert.equal(r.status, 200, r.body.toString());
    const s = await until('a status that names the proxy', () => status(inst), (v) => v.status === 'connecting' && /proxy socks5:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1/.test(String(v.statusReason)));
    assert.equal(s.connected, false, 'not connected');
    assert.match(String(s.statusReason), /ECONNREFUSED/, `why: ${String(s.statusReason)}`);
    assert.ok(!String(s.statusReason).includes(CREDS.pass), 'the reason carries no credential');
    // It keeps failing: two more attempts through the proxy (their backoff jumped on the clock),
    // and no direct link is opened behind the user's back.
    const attemptOf = (v: Payload): number => Number(/\(attempt (\d+)\)/.exec(String(v.statusReason))?.[1] ?? 0);
    const later = await h.driveUntil('two more attempts through the proxy', () => status(inst), (v) => attemptOf(v) >= attemptOf(s) + 2, { withinMs: 10_000 });
    assert.equal(later.connected, false, 'still not connected after retries');
    assert.match(String(later.statusReason), /proxy socks5:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1.*ECONNREFUSED/, 'each retry went to the proxy');

    // Pairing through a proxy that is down: no QR, and the status says why.
    const fresh = await h.createInstance('proxy-down');
    assert.equal((await h.call('PUT', `${fresh.prefix}/update-proxy`, { value: proxy.url(CREDS) })).status, 200);
    const qr = await h.call('GET', `${fresh.prefix}/qr-code`);
    assert.equal(qr.status, 404, qr.body.toString());
    const pairing = await status(fresh);
    assert.equal(pairing.status, 'disconnected', JSON.stringify(pairing));
    assert.match(String(pairing.statusReason), /^connection lost while pairing \(408\): .*proxy socks5:\/\/\*\*\*\*:\*\*\*\*@127\.0\.0\.1:\d+: .*ECONNREFUSED/, String(pairing.statusReason));

    const other = await status(bob);
    assert.equal(other.connected, true, 'bob (no proxy) stays connected');
    const sent = await h.call('POST', `${bob.prefix}/send-text`, { phone: CARLA, message: 'bob is fine' });
    assert.equal(sent.status, 200, sent.body.toString());
    await h.sendQueued(bob);
    await h.admin.waitForReceived(CARLA, (m) => m.id === sent.json.messageId, 20_000);
  });

  test('clearing the proxy reconnects directly', async () => {
    // Cleared while the proxy is still down (the instance keeps retrying through it until then:
    // started first, it could let one of those retries through), then started to watch.
    const r = await h.call('PUT', `${inst.prefix}/update-proxy`, { value: null });
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true, proxy: null });
    await proxy.start();
    const before = proxy.connections;
    // Whether the link restarts at once or at its next retry, the retry's backoff is jumped.
    await h.driveUntil('connected directly', () => status(inst), (v) => v.connected === true);
    assert.equal(proxy.connections, before, 'the proxy (running again) saw no connection: the link is direct');
    assert.deepEqual((await h.call('GET', `${inst.prefix}/proxy`)).json, { value: null, enabled: false });
    const sent = await h.call('POST', `${inst.prefix}/send-text`, { phone: BOB, message: 'direct again' });
    assert.equal(sent.status, 200, sent.body.toString());
    await h.sendQueued(inst);
    await h.webhooks.waitFor(
      (w) => w.path === `/${bob.instanceId}` && w.body.type === 'ReceivedCallback' && w.body.messageId === sent.json.messageId,
      20_000,
      'bob receives the direct message',
    );
  });

  test('setting it on a connected instance restarts the link through the proxy (Z-API configure-proxy)', async () => {
    const before = wsTunnels();
    const r = await h.call('PUT', `${inst.prefix}/integrator/configure-proxy`, { proxyUrl: proxy.url(CREDS), enable: true });
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true });
    await until('a new WebSocket through the proxy', async () => wsTunnels(), (n) => n > before);
    await h.waitForStatus(inst, 'connected', 30_000);
  });

  test('an HTTP CONNECT proxy with Basic credentials: pairs, and an image goes up through it', async () => {
    const http = await startHttpConnectProxy({ auth: { user: 'dora', pass: 'c0nnect' } });
    try {
      await h.admin.createUser({ phone: DORA, pushName: 'Dora' });
      const dora = await h.createInstance('http-proxied');
      const set = await h.call('PUT', `${dora.prefix}/update-proxy`, { value: http.url({ user: 'dora', pass: 'c0nnect' }) });
      assert.equal(set.status, 200, set.body.toString());
      assert.equal(set.json.proxy, `http://****:****@127.0.0.1:${http.port}`);
      await h.admin.scanQr(DORA, await h.qrFromPng(dora));
      await h.waitForStatus(dora, 'connected');
      assert.ok(http.targets.includes(wsTarget), `CONNECT to simnet's WebSocket (${wsTarget}): ${JSON.stringify(http.targets)}`);
      assert.ok(http.users.length > 0 && http.users.every((u) => u === 'dora'), 'every CONNECT carried the credentials');
      const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: { r: 250, g: 200, b: 0 } } }).png().toBuffer();
      const sent = await h.call('POST', `${dora.prefix}/send-image`, { phone: CARLA, image: `data:image/png;base64,${png.toString('base64')}` });
      assert.equal(sent.status, 200, sent.body.toString());
      await h.sendQueued(dora);
      const got = await h.admin.waitForReceived(CARLA, (m) => m.id === sent.json.messageId, 30_000);
      assert.equal(got.media?.error, undefined, `Carla decrypts the image: ${got.media?.error}`);
      assert.ok(http.targets.includes(h.simnet.mediaHost), `the upload went through CONNECT to ${h.simnet.mediaHost}: ${JSON.stringify(http.targets)}`);
    } finally {
      await http.stop();
    }
  });
});
