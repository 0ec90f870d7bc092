// What third-party Z-API clients send, over real HTTP: body-less POST/PUT/DELETE that carry their
// values in the query string with an empty form body; the partner routes with
// `Authorization: Bearer <Partner-Token>` instead of Client-Token; the `privacy/photo` alias; the
// legacy update-webhook-received-delivery. (No engine: a network operation answers 409, which shows
// the request got past parsing and validation to the service.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { PHONE } from '../helpers/samples.js';

const FORM = 'application/x-www-form-urlencoded';

describe('Z-API client compatibility at the HTTP edge', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('compat');
  });
  after(() => g.close());

  test('an empty body with a form (or JSON) Content-Type is no body: query-string routes run', async () => {
    const p = inst.prefix;
    const cases: [string, string][] = [
      ['POST', '/privacy/read-receipts?value=disable'],
      ['POST', '/privacy/messages-duration?value=days90'],
      ['POST', '/redefine-invitation-link/120363012345678901-group'],
      ['POST', '/redefine-invitation-link/120363019502650977'],
      ['POST', '/newsletter/accept-admin-invite/120363166555745933@newsletter'],
      ['PUT', `/chats/${PHONE}/tags/1/add`],
      ['PUT', `/chats/${PHONE}/tags/1/remove`],
      ['DELETE', `/messages?messageId=3EB0ABCDEF0123456789AB&phone=${PHONE}&owner=true`],
    ];
    for (const [method, path] of cases) {
      for (const contentType of [FORM, 'application/json', 'text/plain']) {
        const r = await g.request(method, `${p}${path}`, { raw: '', contentType });
        expectError(r, 409, 'Instance not connected');
      }
    }
    // A body-less command that works offline answers its success.
    const restart = await g.request('POST', `${p}/restart`, { raw: '', contentType: FORM });
    assert.equal(restart.status, 200, restart.text);
    assert.deepEqual(restart.json, { value: true });
  });

  test('the query values are still validated; a route that needs a body says so (400, not 415)', async () => {
    const p = inst.prefix;
    expectError(await g.request('POST', `${p}/privacy/read-receipts?value=on`, { raw: '', contentType: FORM }), 400, 'Invalid request', /value/);
    expectError(await g.request('POST', `${p}/send-text`, { raw: '', contentType: FORM }), 400, 'Invalid request', /^body: /);
    expectError(await g.request('PUT', `${p}/update-name`, { raw: '', contentType: FORM }), 400, 'Invalid request', /^body: /);
  });

  test('a non-empty body that is not JSON is still 415', async () => {
    const p = inst.prefix;
    expectError(await g.request('POST', `${p}/privacy/read-receipts?value=disable`, { raw: 'value=disable', contentType: FORM }), 415, 'Unsupported Media Type');
    expectError(await g.request('PUT', `${p}/chats/${PHONE}/tags/1/add`, { raw: 'x', contentType: 'text/plain' }), 415, 'Unsupported Media Type');
  });

  test('partner routes take the account token as Authorization: Bearer, without Client-Token', async () => {
    const bearer = { authorization: `Bearer ${g.clientToken}` };
    const created = await g.request('POST', '/instances/integrator/on-demand', { body: { name: 'by-partner-token' }, token: null, headers: bearer });
    assert.equal(created.status, 200, created.text);
    const id = String(created.json.id);
    const token = String(created.json.token);

    const page = await g.request('GET', '/instances?page=1&pageSize=50&query=by-partner', { token: null, headers: { authorization: `bearer  ${g.clientToken}` } });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual((page.json.content as { id: string }[]).map((row) => row.id), [id], 'the instance it made, in Z-API\'s page');
    const plain = await g.request('GET', '/instances', { token: null, headers: bearer });
    assert.equal(plain.status, 200, plain.text);
    assert.ok((plain.body as { instanceId: string }[]).some((row) => row.instanceId === id));

    const prefix = `/instances/${id}/token/${token}`;
    const proxy = await g.request('PUT', `${prefix}/integrator/configure-proxy`, { body: { proxyUrl: '', enable: false }, token: null, headers: bearer });
    assert.equal(proxy.status, 200, proxy.text);
    assert.deepEqual(proxy.json, { value: true });

    // Another account's bearer token sees only its own instances.
    const other = await g.createAccount('partner-b');
    const theirs = await g.request('GET', '/instances?page=1&pageSize=50', { token: null, headers: { authorization: `Bearer ${other.clientToken}` } });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal((theirs.json.content as unknown[]).length, 0);
  });

  test('a wrong or malformed bearer is 401; a bearer is not accepted on non-partner routes', async () => {
    for (const authorization of [`Bearer ${g.clientToken}x`, 'Bearer ', `Basic ${Buffer.from(`u:${g.clientToken}`).toString('base64')}`, g.clientToken]) {
      expectError(await g.request('GET', '/instances?page=1&pageSize=5', { token: null, headers: { authorization } }), 401, 'Unauthorized');
    }
    const bearer = { authorization: `Bearer ${g.clientToken}` };
    expectError(await g.request('POST', '/instances', { body: { name: 'x' }, token: null, headers: bearer }), 401, 'Unauthorized');
    expectError(await g.request('GET', `${inst.prefix}/status`, { token: null, headers: bearer }), 401, 'Unauthorized');
    // A Client-Token present decides, even beside a valid bearer.
    expectError(await g.request('GET', '/instances', { token: 'wrong', headers: bearer }), 401, 'Unauthorized');
  });

  test('privacy/photo is privacy/photo-visualization under another path', async () => {
    const p = inst.prefix;
    expectError(await g.request('POST', `${p}/privacy/photo`, { body: { visualizationType: 'CONTACTS' } }), 409, 'Instance not connected');
    expectError(await g.request('POST', `${p}/privacy/photo`, { body: { visualizationType: 'EVERYONE' } }), 400, 'Invalid request', /^visualizationType: /);
    expectError(
      await g.request('POST', `${p}/privacy/photo`, { body: { visualizationType: 'ALL', contactsBlacklist: [{ action: 'add', phone: PHONE }] } }),
      400,
      'Invalid request',
      'contactsBlacklist: only with visualizationType CONTACT_BLACKLIST',
    );
  });

  test('update-webhook-received-delivery sets the received and delivery webhooks, nothing else', async () => {
    const p = inst.prefix;
    const status = await g.request('PUT', `${p}/update-webhook-message-status`, { body: { value: 'https://hooks.example.com/status' } });
    assert.equal(status.status, 200, status.text);
    const r = await g.request('PUT', `${p}/update-webhook-received-delivery`, { body: { value: 'https://hooks.example.com/both' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { value: true });
    const me = (await g.request('GET', `${p}/me`)).json;
    assert.deepEqual(
      [me.receivedCallbackUrl, me.deliveryCallbackUrl, me.messageStatusCallbackUrl, me.connectedCallbackUrl],
      ['https://hooks.example.com/both', 'https://hooks.example.com/both', 'https://hooks.example.com/status', ''],
    );
    expectError(await g.request('PUT', `${p}/update-webhook-received-delivery`, { body: { value: 'http://hooks.example.com/plain' } }), 400, 'Invalid request', /^value: /);
    assert.equal((await g.request('GET', `${p}/me`)).json.receivedCallbackUrl, 'https://hooks.example.com/both', 'a refused URL changes nothing');
    assert.equal((await g.request('PUT', `${p}/update-webhook-received-delivery`, { body: { value: '' } })).status, 200);
    const cleared = (await g.request('GET', `${p}/me`)).json;
    assert.deepEqual([cleared.receivedCallbackUrl, cleared.deliveryCallbackUrl, cleared.messageStatusCallbackUrl], ['', '', 'https://hooks.example.com/status']);
  });
});

describe('Z-API endpoints a linked device cannot perform: an honest 422, never a 404 or a fake success', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('unsupported');
  });
  after(() => g.close());

  test('send-call: the body is checked, then 422 NOT_SUPPORTED saying why; nothing is queued', async () => {
    const p = inst.prefix;
    const r = await g.request('POST', `${p}/send-call`, { body: { phone: PHONE, callDuration: 5 } });
    expectError(r, 422, 'Unable to process request', /placing a call is not available/);
    assert.equal(r.json.code, 'NOT_SUPPORTED');
    expectError(await g.request('POST', `${p}/send-call`, { body: { phone: 'abc' } }), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('POST', `${p}/send-call`, { body: { phone: PHONE, callDuration: 16 } }), 400, 'Invalid request', /^callDuration: /);
    assert.deepEqual((await g.request('GET', `${p}/queue/count`)).json, { count: 0 }, 'nothing was queued');
  });

  test('contacts/{phone}/report: 422 NOT_SUPPORTED saying why; a bad phone is 400', async () => {
    const p = inst.prefix;
    const r = await g.request('POST', `${p}/contacts/${PHONE}/report`);
    expectError(r, 422, 'Unable to process request', /reporting a contact is not available/);
    assert.equal(r.json.code, 'NOT_SUPPORTED');
    expectError(await g.request('POST', `${p}/contacts/abc/report`), 400, 'Invalid request', /^phone: /);
  });
});
