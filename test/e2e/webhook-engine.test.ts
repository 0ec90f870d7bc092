// Webhooks from real traffic: simnet on loopback, the real Baileys engine, and an HTTPS receiver
// with a test CA. Pairing, incoming text/location/image/reaction, a send with its delivery and
// status reports, and a logout each arrive at their kind's URL in Z-API shape, with phone numbers
// (a LID only in the LID fields beside them), and every request verifies with the `standardwebhooks` package
// (against the gateway's clock: simnet and the gateway share a VirtualClock the test owns).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { SimnetClient, startSimnet, type RunningSimnet } from '../../simnet/src/index.js';
import { loadConfig } from '../../src/config.js';
import { createGateway, type Gateway } from '../../src/main.js';
import { E2E_COMMAND_TIMEOUT_MS } from '../helpers/baileys-timers.js';
import { skipWaits } from '../helpers/protocol-time.js';
import { VirtualClock } from '../helpers/virtual-clock.js';
import { eventually, startReceiver, testPki, verifySigned, type Receiver, type ReceivedRequest } from '../helpers/webhook-harness.js';

const OWNER = '5511999994001';
const CONTACT = '5511988884002';
const KINDS = {
  'update-webhook-received': '/received',
  'update-webhook-message-status': '/status',
  'update-webhook-delivery': '/delivery',
  'update-webhook-connected': '/connected',
  'update-webhook-disconnected': '/disconnected',
} as const;

type Payload = Record<string, unknown>;

describe('webhooks from real traffic (gateway + Baileys + simnet)', () => {
  let simnet: RunningSimnet;
  let admin: SimnetClient;
  let rx: Receiver;
  let gateway: Gateway;
  let url: string;
  let clientToken: string;
  let prefix: string;
  let instanceId: string;
  let dataDir: string;
  const http = new Agent({ connections: 4, keepAliveTimeout: 1_000 });
  let mediaAgent: HttpsAgent;
  const clock = new VirtualClock();

  async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Payload }> {
    const res = await request(url + path, {
      method: method as 'GET',
      headers: { 'client-token': clientToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: http,
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    return { status: res.statusCode, json: text === '' ? {} : (JSON.parse(text) as Payload) };
  }

  const at = (path: string) => rx.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Payload);
  async function waitAt(path: string, match: (p: Payload) => boolean, what: string): Promise<Payload> {
    await rx.waitFor((rs) => rs.some((r) => r.path === path && match(JSON.parse(r.body) as Payload)), 30_000, what);
    return at(path).find(match)!;
  }

  before(async () => {
    simnet = await startSimnet({ clock });
    admin = new SimnetClient(simnet.adminUrl);
    rx = await startReceiver('127.0.0.1', undefined, clock);
    mediaAgent = new HttpsAgent({ ca: simnet.mediaCaPem, keepAlive: false });
    dataDir = mkdtempSync(join(tmpdir(), 'zapgate-e2e-webhooks-'));
    const config = loadConfig({
      ZAPGATE_HOST: '127.0.0.1',
      ZAPGATE_PORT: '0',
      ZAPGATE_DATA_DIR: dataDir,
      ZAPGATE_LOG_LEVEL: process.env.ZAPGATE_LOG_LEVEL ?? 'silent',
      ZAPGATE_RATE_LIMIT: '0',
      ZAPGATE_WA_URL: simnet.wsUrl,
      ZAPGATE_WA_ROOT_KEY: simnet.rootPublicKey,
      ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
      ZAPGATE_COMMAND_TIMEOUT_MS: String(E2E_COMMAND_TIMEOUT_MS),
    });
    gateway = await createGateway(config, {
      sqliteFile: join(dataDir, 'zapgate.db'),
      collectProcessMetrics: false,
      engine: { mediaAgent },
      outbox: { ca: testPki().ca },
      clock,
    });
    clientToken = (await gateway.accounts.create('e2e-webhooks')).clientToken;
    url = await gateway.listen();
    await admin.createUser({ phone: OWNER, pushName: 'Owner' });
    await admin.createUser({ phone: CONTACT, pushName: 'Carla' });
  });
  after(async () => {
    await gateway?.close();
    await http.close();
    mediaAgent?.destroy();
    await rx?.close();
    await simnet?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('pairing: ConnectedCallback with the paired number', async () => {
    const created = await call('POST', '/instances', { name: 'webhooks-e2e' });
    assert.equal(created.status, 201);
    instanceId = String(created.json.instanceId);
    prefix = `/instances/${instanceId}/token/${String(created.json.instanceToken)}`;
    for (const [route, path] of Object.entries(KINDS)) {
      const r = await call('PUT', `${prefix}/${route}`, { value: rx.origin + path });
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
    const qr = await call('GET', `${prefix}/qr-code`);
    assert.equal(qr.status, 200);
    await admin.scanQr(OWNER, String(qr.json.value));
    const connected = await waitAt('/connected', (p) => p.type === 'ConnectedCallback', 'ConnectedCallback');
    assert.equal(connected.connected, true);
    assert.equal(connected.phone, OWNER);
    assert.equal(connected.instanceId, instanceId);
    assert.equal(typeof connected.momment, 'number');
  });

  test('incoming text, location and image: ReceivedCallbacks with phones and connectedPhone', async () => {
    const text = await admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: 'hello webhooks' });
    const t = await waitAt('/received', (p) => p.messageId === text.messageId, 'incoming text');
    assert.equal(t.type, 'ReceivedCallback');
    assert.equal(t.instanceId, instanceId);
    assert.equal(t.connectedPhone, OWNER);
    assert.equal(t.phone, CONTACT);
    assert.equal(t.fromMe, false);
    assert.equal(t.isGroup, false);
    assert.equal(t.senderName, 'Carla');
    assert.equal(typeof t.momment, 'number');
    assert.deepEqual(t.text, { message: 'hello webhooks' });

    const loc = await admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'location', latitude: -23.55, longitude: -46.63, name: 'Sé', address: 'Praça da Sé' });
    const l = await waitAt('/received', (p) => p.messageId === loc.messageId, 'incoming location');
    assert.deepEqual(l.location, { latitude: -23.55, longitude: -46.63, name: 'Sé', address: 'Praça da Sé', url: 'https://maps.google.com/maps?q=-23.55,-46.63' });

    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const img = await admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'image', imageBase64: png, mimetype: 'image/png', caption: 'a dot' });
    const i = await waitAt('/received', (p) => p.messageId === img.messageId, 'incoming image');
    const image = i.image as Payload;
    assert.equal(image.caption, 'a dot');
    assert.equal(image.mimeType, 'image/png');
  });

  test('a send: DeliveryCallback, MessageStatusCallbacks, and a reaction to it', async () => {
    const sent = await call('POST', `${prefix}/send-text`, { phone: CONTACT, message: 'from the API' });
    assert.equal(sent.status, 200, JSON.stringify(sent.json));
    const messageId = String(sent.json.messageId);
    // The sender's pacing gap is protocol time: jumped.
    const d = await skipWaits(clock, waitAt('/delivery', (p) => p.messageId === messageId, 'DeliveryCallback'));
    assert.deepEqual(
      { type: d.type, instanceId: d.instanceId, phone: d.phone, zaapId: d.zaapId, error: d.error },
      { type: 'DeliveryCallback', instanceId, phone: CONTACT, zaapId: sent.json.zaapId, error: undefined },
    );
    await admin.waitForReceived(CONTACT, (m) => m.id === messageId, 20_000);
    await admin.markRead(CONTACT, [messageId]);
    const read = await waitAt('/status', (p) => p.status === 'READ' && (p.ids as string[]).includes(messageId), 'READ status');
    assert.equal(read.type, 'MessageStatusCallback');
    assert.equal(read.phone, CONTACT);
    assert.equal(read.isGroup, false);
    const statuses = at('/status').filter((p) => (p.ids as string[]).includes(messageId)).map((p) => p.status);
    const order = ['SENT', 'RECEIVED', 'READ', 'PLAYED'];
    assert.deepEqual([...statuses].sort((a, b) => order.indexOf(String(a)) - order.indexOf(String(b))), statuses, 'statuses only move forward');

    const reaction = await admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'reaction', targetId: messageId, emoji: '👍' });
    const r = await waitAt('/received', (p) => p.messageId === reaction.messageId, 'reaction');
    const rr = r.reaction as { value: string; referencedMessage: { messageId: string; fromMe: boolean } };
    assert.equal(rr.value, '👍');
    assert.equal(rr.referencedMessage.messageId, messageId);
    assert.equal(rr.referencedMessage.fromMe, true);
  });

  test('logout: DisconnectedCallback; every request signed, a LID never where a phone belongs', async () => {
    const out = await call('GET', `${prefix}/disconnect`);
    assert.equal(out.status, 200);
    const d = await waitAt('/disconnected', (p) => p.type === 'DisconnectedCallback', 'DisconnectedCallback');
    assert.equal(d.disconnected, true);
    assert.equal(typeof d.error, 'string');

    const secret = String((await call('GET', `${prefix}/webhook-secret`)).json.value);
    const ids = new Set<string>();
    await eventually(() => rx.requests.length > 0, 1_000);
    for (const r of rx.requests as ReceivedRequest[]) {
      const payload = verifySigned(secret, r) as Payload;
      assert.equal(payload.instanceId, instanceId);
      ids.add(String(r.headers['webhook-id']));
      // Known numbers name people; a LID appears only in the LID fields (docs/contract.md §5).
      const named = payload as Record<string, unknown>;
      for (const field of ['phone', 'participantPhone', 'connectedPhone']) assert.ok(!String(named[field] ?? '').includes('@lid'), `no LID as ${field} in ${r.body}`);
    }
    assert.equal(ids.size, rx.requests.length, 'a healthy receiver gets each event once');
  });
});
