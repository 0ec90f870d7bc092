// `zapgate demo`: the printed steps work as written — pair the virtual phone, send, the contact gets
// it; media sends work out of the box (the engine trusts simnet's media CA, no NODE_EXTRA_CA_CERTS);
// a second run on the same data dir reuses the demo account instead of piling up another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { SimnetClient } from '../../simnet/src/index.js';
import { DEMO_CONTACT, DEMO_PHONE, demoEnv, startDemo, type RunningDemo } from '../../src/demo.js';
import { openDatabase } from '../../src/store/database.js';
import '../helpers/baileys-timers.js';
import { until } from '../helpers/engine-harness.js';

/** Pairs the demo phone the way the printed instructions do (QR → simnet scan), then waits for connected. */
async function pair(demo: RunningDemo): Promise<{ api: string; headers: Record<string, string>; admin: SimnetClient }> {
  const headers = { 'client-token': demo.clientToken, 'content-type': 'application/json' };
  const api = `${demo.gatewayUrl}${demo.prefix}`;
  const qr = (await (await fetch(`${api}/qr-code`, { headers })).json()) as { value: string };
  const admin = new SimnetClient(demo.simnetAdminUrl);
  await admin.scanQr(DEMO_PHONE, qr.value);
  const status = await until('the demo phone to pair', async () => (await (await fetch(`${api}/status`, { headers })).json()) as { connected?: boolean }, (s) => s.connected === true);
  assert.equal(status.connected, true, 'the demo phone paired from the QR');
  return { api, headers, admin };
}

test('the demo pairs its virtual phone from the QR, delivers a first message and an image', async () => {
  const demo = await startDemo({ port: 0, simnetPort: 0, logLevel: 'silent', env: {} });
  try {
    assert.match(demo.instructions, new RegExp(`/users/${DEMO_PHONE}/scan`));
    const { api, headers, admin } = await pair(demo);
    const sent = (await (await fetch(`${api}/send-text`, { method: 'POST', headers, body: JSON.stringify({ phone: DEMO_CONTACT, message: 'Hello from zapgate' }) })).json()) as { messageId: string };
    // The demo runs at real time scale: the first message waits the default 1–3 s gap.
    const got = await admin.waitForReceived(DEMO_CONTACT, (m) => m.id === sent.messageId, 20_000);
    assert.equal(got.text, 'Hello from zapgate');

    // Media go through simnet's HTTPS media host, whose CA is made when simnet starts: no
    // NODE_EXTRA_CA_CERTS can hold it, the demo's engine trusts it by itself.
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 128, b: 255 } } }).png().toBuffer();
    const image = `data:image/png;base64,${png.toString('base64')}`;
    const res = await fetch(`${api}/send-image`, { method: 'POST', headers, body: JSON.stringify({ phone: DEMO_CONTACT, image, caption: 'a picture' }) });
    const media = (await res.json()) as { messageId: string };
    assert.equal(res.status, 200, `send-image accepted: ${JSON.stringify(media)}`);
    const pic = await admin.waitForReceived(DEMO_CONTACT, (m) => m.id === media.messageId, 30_000);
    assert.equal(pic.type, 'image', 'the contact got an image');
    assert.equal(pic.caption, 'a picture');
  } finally {
    await demo.close();
  }
});

test('a second demo on the same data dir reuses the demo account and instance name (nothing piles up)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-demo-reuse-'));
  try {
    const first = await startDemo({ port: 0, simnetPort: 0, logLevel: 'silent', dataDir, env: {} });
    const firstToken = first.clientToken;
    await first.close();
    const second = await startDemo({ port: 0, simnetPort: 0, logLevel: 'silent', dataDir, env: {} });
    try {
      assert.notEqual(second.clientToken, firstToken, 'a fresh token is printed (only its hash is stored)');
      // The printed token and instance work: the QR of the fresh instance is served.
      const res = await fetch(`${second.gatewayUrl}${second.prefix}/status`, { headers: { 'client-token': second.clientToken } });
      await res.arrayBuffer();
      assert.equal(res.status, 200, 'the second run\'s token and instance work');
      const old = await fetch(`${second.gatewayUrl}${second.prefix}/status`, { headers: { 'client-token': firstToken } });
      await old.arrayBuffer();
      assert.equal(old.status, 401, 'the first run\'s token no longer works');
    } finally {
      await second.close();
    }
    const db = await openDatabase({ dataDir });
    try {
      const accounts = await db.db.selectFrom('accounts').select(['name']).execute();
      const instances = await db.db.selectFrom('instances').select(['name']).execute();
      assert.deepEqual(accounts.map((a) => a.name), ['demo'], 'one demo account after two runs');
      assert.deepEqual(instances.map((i) => i.name), ['demo'], 'one demo instance after two runs');
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the demo honours serve\'s settings: ZAPGATE_PORT and ZAPGATE_HOST, with loopback by default', () => {
  assert.equal(demoEnv({ ZAPGATE_PORT: '4123' }).ZAPGATE_PORT, '4123');
  assert.equal(demoEnv({ ZAPGATE_PORT: '4123' }, { port: 5000 }).ZAPGATE_PORT, '5000', '--port wins');
  assert.equal(demoEnv({}).ZAPGATE_PORT, '3000');
  assert.equal(demoEnv({}).ZAPGATE_HOST, '127.0.0.1');
  assert.equal(demoEnv({ ZAPGATE_HOST: '0.0.0.0' }).ZAPGATE_HOST, '0.0.0.0');
  assert.equal(demoEnv({ ZAPGATE_RATE_LIMIT: '7' }).ZAPGATE_RATE_LIMIT, '7');
  // Its data are its own: never a real gateway's database (its sessions would meet a simulated network).
  assert.equal(demoEnv({ ZAPGATE_DATABASE_URL: 'postgres://x@h/db', ZAPGATE_DATA_DIR: '/srv/zapgate' }).ZAPGATE_DATABASE_URL, undefined);
  assert.equal(demoEnv({ ZAPGATE_DATA_DIR: '/srv/zapgate' }).ZAPGATE_DATA_DIR, undefined);
});

test('--media-port fixes the media host\'s port; ZAPGATE_DATA_DIR is never the demo\'s data dir (as --help says)', async () => {
  const realDataDir = mkdtempSync(join(tmpdir(), 'zapgate-real-data-'));
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const mediaPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  try {
    const demo = await startDemo({ port: 0, simnetPort: 0, mediaPort, logLevel: 'silent', env: { ZAPGATE_DATA_DIR: realDataDir } });
    try {
      assert.equal(demo.mediaHost, `127.0.0.1:${mediaPort}`, 'the media host listens on the chosen port');
      const sock = connect(mediaPort, '127.0.0.1');
      await once(sock, 'connect');
      sock.destroy();
      assert.deepEqual(readdirSync(realDataDir), [], 'nothing written to ZAPGATE_DATA_DIR: a temporary directory is used');
    } finally {
      await demo.close();
    }
  } finally {
    rmSync(realDataDir, { recursive: true, force: true });
  }
});
