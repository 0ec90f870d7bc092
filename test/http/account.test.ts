// The account routes over real HTTP with no session: instance data and the stored settings work
// offline; every network operation is 409; bad input is a 400 naming the field, and changes nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { PHONE } from '../helpers/samples.js';

describe('account routes with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('acct');
  });
  after(() => g.close());

  const me = async () => (await g.request('GET', `${inst.prefix}/me`)).json;

  test('GET /me answers offline with Z-API\'s fields and the defaults', async () => {
    const r = await g.request('GET', `${inst.prefix}/me`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.id, inst.instanceId, 'id');
    assert.equal(r.json.token, inst.instanceToken, 'token');
    assert.equal(r.json.connected, false, 'not connected');
    assert.equal(r.json.due, 253_402_300_799_000, 'never expires: a far-future number (ms), as Z-API documents a number');
    assert.equal(r.json.receivedCallbackUrl, '', 'no webhook yet');
    assert.equal(r.json.autoReadMessage, false, 'auto-read off');
    assert.equal(r.json.callRejectAuto, false, 'call rejection off');
    assert.equal(r.json.callRejectMessage, '', 'no message');
    assert.match(String(r.json.created), /^\d{4}-\d\d-\d\dT/, 'ISO creation time');
  });

  test('network operations → 409 Instance not connected', async () => {
    const p = inst.prefix;
    const cases: [string, string, unknown?][] = [
      ['GET', '/device'],
      ['PUT', '/profile-name', { value: 'Acme' }],
      ['PUT', '/profile-description', { value: 'about' }],
      ['PUT', '/profile-picture', { value: 'https://hooks.example.com/me.jpg' }],
      ['GET', `/profile-picture?phone=${PHONE}`],
      ['POST', '/contacts/modify-blocked', { phone: PHONE, action: 'block' }],
      ['POST', '/privacy/last-seen', { visualizationType: 'ALL' }],
      ['POST', '/privacy/photo-visualization', { visualizationType: 'CONTACTS' }],
      ['POST', '/privacy/description', { visualizationType: 'NONE' }],
      ['POST', '/privacy/online', { visualizationType: 'SAME_LAST_SEEN' }],
      ['POST', '/privacy/group-add', { type: 'CONTACT_BLACKLIST', contactsBlacklist: [{ action: 'add', phone: PHONE }] }],
      ['POST', '/privacy/read-receipts?value=disable'],
      ['POST', '/privacy/messages-duration?value=days90'],
      ['GET', '/privacy/disallowed-contacts?type=groupAdd'],
    ];
    for (const [method, path, body] of cases) {
      expectError(await g.request(method, `${p}${path}`, { body }), 409, 'Instance not connected');
    }
  });

  test('profile validation → 400 naming the field', async () => {
    const p = inst.prefix;
    expectError(await g.request('PUT', `${p}/profile-name`, { body: {} }), 400, 'Invalid request', 'value: is required');
    expectError(await g.request('PUT', `${p}/profile-name`, { body: { value: '' } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${p}/profile-name`, { body: { value: '   ' } }), 400, 'Invalid request', 'value: must not be blank');
    expectError(await g.request('PUT', `${p}/profile-name`, { body: { value: 'x'.repeat(26) } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${p}/profile-description`, { body: { value: 'x'.repeat(140) } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${p}/profile-picture`, { body: { value: 'not a url' } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${p}/profile-picture`, { body: { value: 7 } }), 400, 'Invalid request', /^value: /);
  });

  test('contacts validation → 400', async () => {
    const p = inst.prefix;
    expectError(await g.request('GET', `${p}/profile-picture`), 400, 'Invalid request', /phone/);
    expectError(await g.request('GET', `${p}/profile-picture?phone=abc`), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('POST', `${p}/contacts/modify-blocked`, { body: { phone: PHONE, action: 'mute' } }), 400, 'Invalid request', /^action: /);
    expectError(await g.request('POST', `${p}/contacts/modify-blocked`, { body: { phone: '12', action: 'block' } }), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('POST', `${p}/contacts/modify-blocked`, { body: { action: 'block' } }), 400, 'Invalid request', 'phone: is required');
  });

  test('privacy validation → 400', async () => {
    const p = inst.prefix;
    expectError(await g.request('POST', `${p}/privacy/last-seen`, { body: { visualizationType: 'EVERYONE' } }), 400, 'Invalid request', /^visualizationType: /);
    expectError(await g.request('POST', `${p}/privacy/online`, { body: { visualizationType: 'NONE' } }), 400, 'Invalid request', /^visualizationType: /);
    expectError(await g.request('POST', `${p}/privacy/group-add`, { body: { type: 'NONE' } }), 400, 'Invalid request', /^type: /);
    expectError(
      await g.request('POST', `${p}/privacy/last-seen`, { body: { visualizationType: 'ALL', contactsBlacklist: [{ action: 'add', phone: PHONE }] } }),
      400,
      'Invalid request',
      'contactsBlacklist: only with visualizationType CONTACT_BLACKLIST',
    );
    expectError(
      await g.request('POST', `${p}/privacy/description`, { body: { visualizationType: 'CONTACT_BLACKLIST', contactsBlacklist: [{ action: 'add', phone: 'x' }] } }),
      400,
      'Invalid request',
      /^contactsBlacklist\[0\]\.phone: /,
    );
    expectError(
      await g.request('POST', `${p}/privacy/description`, { body: { visualizationType: 'CONTACT_BLACKLIST', contactsBlacklist: [{ action: 'toggle', phone: PHONE }] } }),
      400,
      'Invalid request',
      /contactsBlacklist/,
    );
    expectError(await g.request('POST', `${p}/privacy/read-receipts`), 400, 'Invalid request', /value/);
    expectError(await g.request('POST', `${p}/privacy/read-receipts?value=on`), 400, 'Invalid request', /value/);
    expectError(await g.request('POST', `${p}/privacy/messages-duration?value=days30`), 400, 'Invalid request', /value/);
    expectError(await g.request('GET', `${p}/privacy/disallowed-contacts?type=online`), 400, 'Invalid request', /type/);
  });

  test('reaction settings are stored offline, shown by /me, and bad values change nothing', async () => {
    const p = inst.prefix;
    for (const [path, value] of [['update-auto-read-message', true], ['update-auto-read-status', true], ['update-call-reject-auto', true]] as const) {
      const r = await g.request('PUT', `${p}/${path}`, { body: { value } });
      assert.equal(r.status, 200, `${path}: ${r.text}`);
      assert.deepEqual(r.json, { value: true }, path);
    }
    assert.deepEqual((await g.request('PUT', `${p}/update-call-reject-message`, { body: { value: 'No calls, please write.' } })).json, { value: true });
    let data = await me();
    assert.deepEqual(
      [data.autoReadMessage, data.autoReadStatus, data.callRejectAuto, data.callRejectMessage],
      [true, true, true, 'No calls, please write.'],
      '/me shows what was set',
    );

    expectError(await g.request('PUT', `${p}/update-auto-read-message`, { body: { value: 'false' } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', `${p}/update-call-reject-auto`, { body: {} }), 400, 'Invalid request', 'value: is required');
    expectError(await g.request('PUT', `${p}/update-call-reject-message`, { body: { value: 'x'.repeat(4097) } }), 400, 'Invalid request', /^value: /);
    data = await me();
    assert.deepEqual([data.autoReadMessage, data.callRejectAuto, data.callRejectMessage], [true, true, 'No calls, please write.'], 'nothing changed by the bad requests');

    await g.request('PUT', `${p}/update-call-reject-message`, { body: { value: '' } });
    await g.request('PUT', `${p}/update-auto-read-message`, { body: { value: false } });
    data = await me();
    assert.equal(data.callRejectMessage, '', '"" clears the message');
    assert.equal(data.autoReadMessage, false, 'auto-read off again');
  });

  test('every account route is in /openapi.json with a description and an example body or query', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { description?: string; tags?: string[] }>> };
    const prefix = '/instances/{instanceId}/token/{instanceToken}';
    const expected: [string, string][] = [
      ['get', '/me'], ['get', '/device'], ['put', '/profile-name'], ['put', '/profile-description'], ['put', '/profile-picture'],
      ['put', '/update-auto-read-message'], ['put', '/update-auto-read-status'], ['put', '/update-call-reject-auto'], ['put', '/update-call-reject-message'],
      ['post', '/privacy/last-seen'], ['post', '/privacy/photo-visualization'], ['post', '/privacy/description'], ['post', '/privacy/online'],
      ['post', '/privacy/read-receipts'], ['post', '/privacy/group-add'], ['post', '/privacy/messages-duration'], ['get', '/privacy/disallowed-contacts'],
      ['get', '/profile-picture'], ['post', '/contacts/modify-blocked'],
    ];
    for (const [method, path] of expected) {
      const op = doc.paths[`${prefix}${path}`]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(op.description, `${method.toUpperCase()} ${path} has a description`);
    }
  });
});
