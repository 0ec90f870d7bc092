// Tag "instance" over real HTTP: creation, listing, status, QR with no engine, lifecycle commands,
// settings, deletion, and the framework-level answers (404, 405, 413, 415).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import jsqrModule from 'jsqr';
import { PNG } from 'pngjs';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { scriptedSessions, type ScriptedSessions } from '../helpers/scripted-sessions.js';

describe('instances', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('main');
  });
  after(() => g.close());

  test('POST /instances → 201 {instanceId, instanceToken, name, status}', async () => {
    const r = await g.request('POST', '/instances', { body: { name: 'Loja Centro' } });
    assert.equal(r.status, 201);
    assert.deepEqual(Object.keys(r.json).sort(), ['instanceId', 'instanceToken', 'name', 'status']);
    assert.equal(r.json.name, 'Loja Centro');
    assert.equal(r.json.status, 'disconnected');
    assert.match(String(r.json.instanceId), /^[0-9A-F]{32}$/);
    // ≥ 128 bits of randomness, as hex.
    assert.match(String(r.json.instanceToken), /^[0-9A-F]{32,}$/);
  });

  test('POST /instances validates name (1–100 chars, string, required)', async () => {
    expectError(await g.request('POST', '/instances', { body: {} }), 400, 'Invalid request', /^name: /);
    expectError(await g.request('POST', '/instances', { body: { name: '' } }), 400, 'Invalid request', /^name: /);
    expectError(await g.request('POST', '/instances', { body: { name: 'x'.repeat(101) } }), 400, 'Invalid request', /^name: /);
    expectError(await g.request('POST', '/instances', { body: { name: 7 } }), 400, 'Invalid request', /^name: /);
  });

  test('POST /instances/integrator/on-demand → 200 {id, token, due} (Z-API alias)', async () => {
    const r = await g.request('POST', '/instances/integrator/on-demand', { body: { name: 'z' } });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json).sort(), ['due', 'id', 'token']);
    assert.equal(r.json.due, 253_402_300_799_000);
    const status = await g.request('GET', `/instances/${String(r.json.id)}/token/${String(r.json.token)}/status`);
    assert.equal(status.status, 200);
  });

  test('GET /instances lists the account instances with status and phone', async () => {
    const r = await g.request('GET', '/instances');
    assert.equal(r.status, 200);
    const list = r.body as { instanceId: string; name: string; status: string; phone: string | null }[];
    const mine = list.find((i) => i.instanceId === inst.instanceId);
    assert.deepEqual(mine, { instanceId: inst.instanceId, name: 'main', status: 'disconnected', phone: null });
  });

  test('GET status of a never-paired instance', async () => {
    const r = await g.request('GET', `${inst.prefix}/status`);
    assert.equal(r.status, 200);
    assert.equal(r.json.connected, false);
    assert.equal(r.json.smartphoneConnected, false);
    assert.equal(r.json.status, 'disconnected');
    assert.equal(r.json.error, 'You are not connected.');
    assert.equal(r.json.phone, null);
    assert.equal(typeof r.json.since, 'number');
    assert.ok(Math.abs(Number(r.json.since) - Date.now()) < 60_000, 'since is in milliseconds');
  });

  test('QR image and QR string: 404 with the spec text when no QR can be produced', async () => {
    const text = 'QR code not available. Instance may already be connected or QR expired.';
    expectError(await g.request('GET', `${inst.prefix}/qr-code/image`), 404, text);
    expectError(await g.request('GET', `${inst.prefix}/qr-code/image`, { headers: { accept: 'application/json' } }), 404, text);
    expectError(await g.request('GET', `${inst.prefix}/qr-code`), 404, text, 'no QR code came from the network (status disconnected)');
  });

  test('phone-code: bad phone → 400, no session → 409', async () => {
    expectError(await g.request('GET', `${inst.prefix}/phone-code/abc`), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('GET', `${inst.prefix}/phone-code/5511999990000`), 409, 'Instance not connected');
  });

  test('restart and disconnect answer {value:true} by GET and POST', async () => {
    for (const path of ['/restart', '/disconnect']) {
      for (const method of ['GET', 'POST']) {
        const r = await g.request(method, `${inst.prefix}${path}`);
        assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
        assert.deepEqual(r.body, { value: true });
      }
    }
  });

  test('update-name renames; the listing shows the new name', async () => {
    const own = await g.createInstance('before');
    const r = await g.request('PUT', `${own.prefix}/update-name`, { body: { value: 'after' } });
    assert.deepEqual(r.body, { value: true });
    const list = (await g.request('GET', '/instances')).body as { instanceId: string; name: string }[];
    assert.equal(list.find((i) => i.instanceId === own.instanceId)?.name, 'after');
    expectError(await g.request('PUT', `${own.prefix}/update-name`, { body: { value: '' } }), 400, 'Invalid request', /^value: /);
  });

  test('update-antiban → {value, antiBanEnabled, workerSynced:false} with no running session', async () => {
    const on = await g.request('PUT', `${inst.prefix}/update-antiban`, { body: { value: true } });
    assert.deepEqual(on.body, { value: true, antiBanEnabled: true, workerSynced: false });
    const off = await g.request('PUT', `${inst.prefix}/update-antiban`, { body: { value: false } });
    assert.deepEqual(off.body, { value: true, antiBanEnabled: false, workerSynced: false });
    expectError(await g.request('PUT', `${inst.prefix}/update-antiban`, { body: { value: 'yes' } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${inst.prefix}/update-antiban`, { body: {} }), 400, 'Invalid request', /^value: /);
    const row = await g.gateway.store.instances.findById(inst.instanceId);
    assert.equal(row?.antiban, 0);
  });

  test('update-list-mode accepts poll|text|native only', async () => {
    for (const value of ['text', 'native', 'poll']) {
      assert.deepEqual((await g.request('PUT', `${inst.prefix}/update-list-mode`, { body: { value } })).body, { value: true });
    }
    expectError(await g.request('PUT', `${inst.prefix}/update-list-mode`, { body: { value: 'buttons' } }), 400, 'Invalid request', /^value: /);
  });

  test('DELETE instance → {value:true}; afterwards 404 everywhere and gone from the list, with its queue', async () => {
    const doomed = await g.createInstance('doomed');
    const sent = await g.request('POST', `${doomed.prefix}/send-text`, { body: { phone: '5511999990000', message: 'x' } });
    assert.equal(sent.status, 200);
    const r = await g.request('DELETE', doomed.prefix);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { value: true });
    expectError(await g.request('GET', `${doomed.prefix}/status`), 404, 'Instance not found');
    expectError(await g.request('DELETE', doomed.prefix), 404, 'Instance not found');
    const list = (await g.request('GET', '/instances')).body as { instanceId: string }[];
    assert.ok(!list.some((i) => i.instanceId === doomed.instanceId));
    assert.equal(await g.gateway.store.messages.findByZaapId(doomed.instanceId, String(sent.json.zaapId)), undefined);
  });
});

describe('framework-level answers', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('fw');
  });
  after(() => g.close());

  test('unknown path → 404 {"error":"Not found"}', async () => {
    expectError(await g.request('GET', '/nope'), 404, 'Not found');
    expectError(await g.request('POST', `${inst.prefix}/send-nothing`, { body: {} }), 404, 'Not found');
  });

  test('known path, wrong method → 405 with Allow', async () => {
    const r = await g.request('GET', `${inst.prefix}/send-text`);
    expectError(r, 405, 'Method Not Allowed');
    assert.match(String(r.headers.allow), /\bPOST\b/);
    const list = await g.request('PUT', '/instances', { body: {} });
    expectError(list, 405, 'Method Not Allowed');
    assert.deepEqual(String(list.headers.allow).split(', ').filter((m) => m !== 'HEAD'), ['GET', 'POST']);
    const del = await g.request('PATCH', `${inst.prefix}/queue`);
    assert.equal(del.status, 405);
    assert.match(String(del.headers.allow), /DELETE/);
  });

  test('a body that is not JSON → 415', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      expectError(
        await g.request('POST', `${inst.prefix}/send-text`, { raw: 'phone=5511999990000&message=hi', contentType }),
        415,
        'Unsupported Media Type',
      );
    }
    expectError(await g.request('POST', '/instances', { raw: 'name', contentType: 'text/plain' }), 415, 'Unsupported Media Type');
  });

  test('malformed or empty JSON → 400 naming the body', async () => {
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { raw: '{"phone":' }), 400, 'Invalid request', 'body: malformed JSON');
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { raw: '' }), 400, 'Invalid request', /^body: /);
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { raw: '[1,2]' }), 400, 'Invalid request', /^body: /);
  });

  test('JSON body over 1 MiB → 413; a media route takes up to 16 MiB', async () => {
    const big = { phone: '5511999990000', message: 'x'.repeat(1024 * 1024 + 10) };
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { body: big }), 413, 'Payload Too Large');
    // 2 MiB of data URI (a real PNG, padded) passes the size check on a media route (and is queued).
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const image = `data:image/png;base64,${Buffer.concat([png, Buffer.alloc(1536 * 1024)]).toString('base64')}`;
    const ok = await g.request('POST', `${inst.prefix}/send-image`, { body: { phone: '5511999990000', image } });
    assert.equal(ok.status, 200, ok.text.slice(0, 200));
    const huge = `data:image/png;base64,${'A'.repeat(16 * 1024 * 1024 + 16)}`;
    expectError(await g.request('POST', `${inst.prefix}/send-image`, { body: { phone: '5511999990000', image: huge } }), 413, 'Payload Too Large');
  });

  test('a malformed or over-long path segment → 400 in the contract shape, never echoing the path (it holds the token)', async () => {
    for (const bad of ['%E0%A4%A', '%zz', `${'y'.repeat(201)}`]) {
      const r = await g.request('GET', `${inst.prefix}/phone-exists/${bad}`);
      expectError(r, 400, 'Invalid request', /^path: /);
      assert.ok(!r.text.includes(inst.instanceToken), r.text);
    }
  });

  test('every response carries x-request-id; a client-sent one is echoed', async () => {
    const r = await g.request('GET', '/livez');
    assert.match(String(r.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const echoed = await g.request('GET', '/livez', { headers: { 'x-request-id': 'trace-123' } });
    assert.equal(echoed.headers['x-request-id'], 'trace-123');
  });
});

describe('instance routes with a scripted session', () => {
  let g: TestGateway;
  let inst: TestInstance;
  let sessions: ScriptedSessions;
  const QR = '2@abcdefghijklmnop,QRSTUVWXYZ0123456789,abcdefghijklmnopqrstuv==,zapgate';

  before(async () => {
    sessions = scriptedSessions();
    g = await startGateway({ sessions });
    inst = await g.createInstance('pairing');
    sessions.qrs.set(inst.instanceId, QR);
  });
  after(() => g.close());

  // jsqr is CommonJS carrying an ES-module default: unwrap it whichever way the loader exposes it.
  type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
  const loaded = jsqrModule as unknown as Decode | { default: Decode };
  const jsQR: Decode = typeof loaded === 'function' ? loaded : loaded.default;

  function decodeQr(png: Buffer): string | undefined {
    const image = PNG.sync.read(png);
    return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
  }

  test('qr-code/image → image/png that decodes to the live QR; JSON clients get a data URI', async () => {
    const res = await fetch(`${g.url}${inst.prefix}/qr-code/image`, { headers: { 'client-token': g.clientToken } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const png = Buffer.from(await res.arrayBuffer());
    assert.equal(decodeQr(png), QR);

    const json = await g.request('GET', `${inst.prefix}/qr-code/image`, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    const value = String(json.json.value);
    assert.match(value, /^data:image\/png;base64,/);
    assert.equal(decodeQr(Buffer.from(value.split(',')[1] ?? '', 'base64')), QR);

    assert.deepEqual((await g.request('GET', `${inst.prefix}/qr-code`)).body, { value: QR });
  });

  test('a connected instance has no QR → 404', async () => {
    sessions.connected.add(inst.instanceId);
    try {
      expectError(await g.request('GET', `${inst.prefix}/qr-code/image`), 404, 'QR code not available. Instance may already be connected or QR expired.', 'the instance is already connected');
    } finally {
      sessions.connected.delete(inst.instanceId);
    }
  });

  test('phone-code → {value}; the engine gets the digits', async () => {
    const r = await g.request('GET', `${inst.prefix}/phone-code/${encodeURIComponent('+55 11 99999-0000')}`);
    assert.deepEqual(r.body, { value: 'ABCD1234' });
    assert.deepEqual(sessions.calls.at(-1), { op: 'pairingCode', instanceId: inst.instanceId, args: '5511999990000' });
  });

  test('update-antiban reports workerSynced:true when the running session applied it', async () => {
    sessions.connected.add(inst.instanceId);
    try {
      const r = await g.request('PUT', `${inst.prefix}/update-antiban`, { body: { value: true } });
      assert.deepEqual(r.body, { value: true, antiBanEnabled: true, workerSynced: true });
    } finally {
      sessions.connected.delete(inst.instanceId);
    }
  });

  test('restart, disconnect and DELETE reach the engine for this instance only', async () => {
    const other = await g.createInstance('other');
    await g.request('POST', `${other.prefix}/restart`);
    await g.request('GET', `${other.prefix}/disconnect`);
    await g.request('DELETE', other.prefix);
    const ops = sessions.calls.filter((c) => c.instanceId === other.instanceId).map((c) => c.op);
    assert.deepEqual(ops, ['restart', 'logout', 'remove']);
  });
});
