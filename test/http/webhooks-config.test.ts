// Tag "webhooks" over real HTTP: URL rules (https only, address guard, allow-list), per-kind and
// all-at-once setting, clearing, and the signing secret with rotation. DNS is a fake resolver.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const ROUTES: [string, string][] = [
  ['update-webhook-received', 'received'],
  ['update-webhook-message-status', 'message_status'],
  ['update-webhook-delivery', 'delivery'],
  ['update-webhook-connected', 'connected'],
  ['update-webhook-disconnected', 'disconnected'],
  ['update-webhook-chat-presence', 'chat_presence'],
];
const GOOD = 'https://hooks.example.com/zapgate';

async function hooks(g: TestGateway, inst: TestInstance): Promise<Record<string, string>> {
  const r = await g.request('GET', `${inst.prefix}/webhooks`);
  assert.equal(r.status, 200);
  return Object.fromEntries((r.body as { kind: string; url: string }[]).map((h) => [h.kind, h.url]));
}

describe('webhook URLs (default policy)', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('hooks');
  });
  after(() => g.close());

  test('each update-webhook-* route sets its own kind', async () => {
    for (const [route, kind] of ROUTES) {
      const url = `${GOOD}/${kind}`;
      const r = await g.request('PUT', `${inst.prefix}/${route}`, { body: { value: url } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body, { value: true });
      assert.equal((await hooks(g, inst))[kind], url);
    }
    const list = await g.request('GET', `${inst.prefix}/webhooks`);
    for (const h of list.body as Record<string, unknown>[]) assert.equal(h.disabledReason, null);
  });

  test('plain http, loopback, private, link-local and metadata targets → 400, nothing stored', async () => {
    const target = await g.createInstance('refuse');
    await g.request('PUT', `${target.prefix}/update-webhook-received`, { body: { value: GOOD } });
    const refused = [
      'http://hooks.example.com/x',
      'https://127.0.0.1/x',
      'https://127.8.9.10:8443/x',
      'https://localhost/x',
      'https://localhost:3000/x',
      'https://[::1]/x',
      'https://10.1.2.3/x',
      'https://192.168.0.10/x',
      'https://169.254.169.254/latest/meta-data',
      'https://internal.example.com/x',
      'https://metadata.example.com/x',
      'https://0.0.0.0/x',
      'https://user:pass@hooks.example.com/x',
      'https://unknown.invalid/x',
      'ftp://hooks.example.com/x',
      'not a url',
      '/relative/path',
    ];
    for (const value of refused) {
      for (const route of ['update-webhook-received', 'update-webhook-delivery', 'update-every-webhooks']) {
        expectError(await g.request('PUT', `${target.prefix}/${route}`, { body: { value } }), 400, 'Invalid request', /^value: /);
      }
    }
    // The earlier good URL is still the only one stored.
    assert.deepEqual(await hooks(g, target), { received: GOOD });
    const rows = await g.gateway.store.webhooks.list(target.instanceId);
    assert.deepEqual(rows.map((r) => r.url), [GOOD]);
  });

  test('the reason says why (http, loopback) without echoing secrets', async () => {
    const http = await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: 'http://hooks.example.com/x' } });
    assert.match(String(http.json.message), /https/);
    const loop = await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: 'https://127.0.0.1/x' } });
    assert.match(String(loop.json.message), /loopback/);
    const creds = await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: 'https://u:hunter2@hooks.example.com/x' } });
    assert.ok(!creds.text.includes('hunter2'));
  });

  test('body validation', async () => {
    expectError(await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: {} }), 400, 'Invalid request', 'value: is required');
    expectError(await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: 1 } }), 400, 'Invalid request', /^value: /);
    expectError(
      await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value: `${GOOD}/${'x'.repeat(2100)}` } }),
      400,
      'Invalid request',
      /^value: /,
    );
  });

  test('"" clears a URL', async () => {
    const own = await g.createInstance('clear');
    await g.request('PUT', `${own.prefix}/update-webhook-received`, { body: { value: GOOD } });
    await g.request('PUT', `${own.prefix}/update-webhook-delivery`, { body: { value: GOOD } });
    const r = await g.request('PUT', `${own.prefix}/update-webhook-received`, { body: { value: '' } });
    assert.deepEqual(r.body, { value: true });
    assert.deepEqual(await hooks(g, own), { delivery: GOOD });
  });

  test('update-every-webhooks sets all six; notifySentByMe is stored; "" clears all', async () => {
    const own = await g.createInstance('every');
    const r = await g.request('PUT', `${own.prefix}/update-every-webhooks`, { body: { value: GOOD, notifySentByMe: true } });
    assert.deepEqual(r.body, { value: true });
    assert.deepEqual(await hooks(g, own), Object.fromEntries(ROUTES.map(([, kind]) => [kind, GOOD])));
    assert.equal((await g.gateway.store.instances.findById(own.instanceId))?.notify_sent_by_me, 1);
    await g.request('PUT', `${own.prefix}/update-every-webhooks`, { body: { value: '' } });
    assert.deepEqual(await hooks(g, own), {});
    // notifySentByMe untouched when absent.
    assert.equal((await g.gateway.store.instances.findById(own.instanceId))?.notify_sent_by_me, 1);
  });

  test('update-notify-sent-by-me', async () => {
    const own = await g.createInstance('notify');
    assert.deepEqual((await g.request('PUT', `${own.prefix}/update-notify-sent-by-me`, { body: { notifySentByMe: true } })).body, { value: true });
    assert.equal((await g.gateway.store.instances.findById(own.instanceId))?.notify_sent_by_me, 1);
    await g.request('PUT', `${own.prefix}/update-notify-sent-by-me`, { body: { notifySentByMe: false } });
    assert.equal((await g.gateway.store.instances.findById(own.instanceId))?.notify_sent_by_me, 0);
    expectError(await g.request('PUT', `${own.prefix}/update-notify-sent-by-me`, { body: { notifySentByMe: 'no' } }), 400, 'Invalid request', /^notifySentByMe: /);
  });
});

describe('webhook URLs (operator allow-list and allow-http)', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1, internal.example.com', ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true' } });
    inst = await g.createInstance('allowed');
  });
  after(() => g.close());

  test('allow-listed hosts are accepted; others stay refused', async () => {
    for (const value of ['https://127.0.0.1:8443/hook', 'https://internal.example.com/hook', 'http://127.0.0.1:9000/hook', 'http://hooks.example.com/x']) {
      const r = await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value } });
      assert.equal(r.status, 200, `${value}: ${r.text}`);
      assert.equal((await hooks(g, inst)).received, value);
    }
    for (const value of ['https://127.0.0.2/x', 'https://10.0.0.1/x', 'https://169.254.169.254/x', 'ftp://127.0.0.1/x']) {
      expectError(await g.request('PUT', `${inst.prefix}/update-webhook-received`, { body: { value } }), 400, 'Invalid request', /^value: /);
    }
  });
});

describe('webhook signing secret', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('secret');
  });
  after(() => g.close());

  test('GET → whsec_ secret, no previous; rotate → new secret and the previous one', async () => {
    const WHSEC = /^whsec_[A-Za-z0-9+/]{43}=$/;
    const first = await g.request('GET', `${inst.prefix}/webhook-secret`);
    assert.equal(first.status, 200);
    assert.match(String(first.json.value), WHSEC);
    assert.equal(first.json.previous, null);

    const rotated = await g.request('POST', `${inst.prefix}/webhook-secret/rotate`);
    assert.equal(rotated.status, 200);
    assert.match(String(rotated.json.value), WHSEC);
    assert.notEqual(rotated.json.value, first.json.value);
    assert.equal(rotated.json.previous, first.json.value);

    const after1 = await g.request('GET', `${inst.prefix}/webhook-secret`);
    assert.deepEqual(after1.body, { value: rotated.json.value, previous: first.json.value });

    const again = await g.request('POST', `${inst.prefix}/webhook-secret/rotate`);
    assert.equal(again.json.previous, rotated.json.value);
  });

  test('secrets differ per instance', async () => {
    const other = await g.createInstance('other');
    const a = await g.request('GET', `${inst.prefix}/webhook-secret`);
    const b = await g.request('GET', `${other.prefix}/webhook-secret`);
    assert.notEqual(a.json.value, b.json.value);
  });
});
