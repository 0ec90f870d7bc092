// Z-API's partner calls over real HTTP: on-demand creation applies the callbacks and settings of the
// body (or, on a refused URL, makes no instance at all); the instance list pages in Z-API's shape
// when asked to, and stays a plain array otherwise; tokens are never listed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway } from '../helpers/gateway.js';

describe('partner (integrator) calls', () => {
  let g: TestGateway;

  before(async () => {
    g = await startGateway();
  });
  after(() => g.close());

  test('on-demand: {id, token, due} (far future); webhooks and settings from the body are in place', async () => {
    const r = await g.request('POST', '/instances/integrator/on-demand', {
      body: {
        name: 'partner-1',
        receivedAndDeliveryCallbackUrl: 'https://hooks.example.com/both',
        messageStatusCallbackUrl: 'https://hooks.example.com/status',
        autoReadMessage: true,
        callRejectAuto: true,
        callRejectMessage: 'Calls are not answered here',
        disableEnqueueWhenDisconnected: true,
        isDevice: false,
        sessionName: 'ignored',
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['due', 'id', 'token']);
    assert.equal(r.json.due, 253_402_300_799_000, 'due: 9999-12-31T23:59:59Z in ms, a number as Z-API documents');
    const prefix = `/instances/${String(r.json.id)}/token/${String(r.json.token)}`;
    const me = await g.request('GET', `${prefix}/me`);
    assert.equal(me.status, 200, me.text);
    assert.deepEqual(
      [me.json.receivedCallbackUrl, me.json.deliveryCallbackUrl, me.json.messageStatusCallbackUrl, me.json.connectedCallbackUrl],
      ['https://hooks.example.com/both', 'https://hooks.example.com/both', 'https://hooks.example.com/status', ''],
    );
    assert.deepEqual([me.json.autoReadMessage, me.json.autoReadStatus, me.json.callRejectAuto, me.json.callRejectMessage], [true, false, true, 'Calls are not answered here']);
    // disableEnqueueWhenDisconnected: a send while disconnected is refused instead of queued.
    expectError(await g.request('POST', `${prefix}/send-text`, { body: { phone: '5511999990000', message: 'x' } }), 409, 'Instance not connected');
  });

  test('on-demand with a URL the guard refuses: 400 naming the field, and no instance made', async () => {
    const before = (await g.request('GET', '/instances')).body as unknown[];
    expectError(await g.request('POST', '/instances/integrator/on-demand', { body: { name: 'bad', receivedCallbackUrl: 'http://hooks.example.com/plain' } }), 400, 'Invalid request', /^receivedCallbackUrl: /);
    expectError(await g.request('POST', '/instances/integrator/on-demand', { body: { name: 'bad', connectedCallbackUrl: 'https://127.0.0.1/x' } }), 400, 'Invalid request', /^connectedCallbackUrl: /);
    assert.equal(((await g.request('GET', '/instances')).body as unknown[]).length, before.length, 'nothing was created');
  });

  test('GET /instances: a plain array without paging; Z-API\'s page with it, filtered by query, no tokens', async () => {
    for (const name of ['sales-a', 'sales-b', 'support']) await g.createInstance(name);
    const plain = await g.request('GET', '/instances');
    assert.ok(Array.isArray(plain.body), 'no paging asked: the array');
    const page = await g.request('GET', '/instances?page=1&pageSize=2&query=SALES');
    assert.equal(page.status, 200, page.text);
    const body = page.json as { total: number; totalPage: number; pageSize: number; page: number; content: Record<string, unknown>[] };
    assert.deepEqual([body.total, body.totalPage, body.pageSize, body.page], [2, 1, 2, 1]);
    assert.deepEqual(body.content.map((c) => c.name), ['sales-a', 'sales-b']);
    const row = body.content[0]!;
    assert.equal(row.token, null, 'tokens are never listed');
    assert.deepEqual([row.due, row.middleware, row.whatsappConnected, row.phoneConnected], [253_402_300_799_000, 'web', false, false]);
    assert.match(String(row.created), /^\d{4}-\d{2}-\d{2}T/);
    const second = await g.request('GET', '/instances?page=2&pageSize=2');
    assert.equal((second.json as { page: number }).page, 2);
    expectError(await g.request('GET', '/instances?page=0'), 400, 'Invalid request', /^page/);
  });
});
