// The business routes over real HTTP with no session: malformed input is a 400 naming the field
// before anything else; a well-formed call on an instance that is not connected is 409 (the same as
// the group routes); the colour table needs no session at all.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const PHONE = '5511900014101';

describe('business routes with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('business');
  });
  after(() => g.close());

  const call = (method: string, path: string, body?: unknown) => g.request(method, `${inst.prefix}/${path}`, body === undefined ? {} : { body });

  test('profile changes: bad values → 400 naming the field; well-formed → 409 offline', async () => {
    expectError(await call('POST', 'business/company-email', { value: 'nope' }), 400, 'Invalid request', /^value: /);
    expectError(await call('POST', 'business/company-description', {}), 400, 'Invalid request', /value/);
    expectError(await call('POST', 'business/company-websites', { websites: ['mailto:x@example.com'] }), 400, 'Invalid request', /^websites\[0\]: /);
    expectError(await call('POST', 'business/company-websites', { websites: ['https://a.example', 'https://a.example'] }), 400, 'Invalid request', /unique/);
    expectError(await call('POST', 'business/categories', { categories: [] }), 400, 'Invalid request');
    expectError(await call('POST', 'business/hours', { timezone: 'Nowhere/Never' }), 400, 'Invalid request', /^timezone: /);
    expectError(await call('POST', 'business/hours', { timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'MONDAY' }] }), 400, 'Invalid request', /^days\[0\]: /);
    expectError(await call('POST', 'business/hours', { timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'MONDAY', openTime: '08:00', closeTime: '09:00' }, { dayOfWeek: 'MONDAY', openTime: '10:00', closeTime: '11:00' }] }), 400, 'Invalid request', /once/);
    expectError(await call('GET', 'business/profile?phone=12ab'), 400, 'Invalid request', /^phone: /);
    expectError(await call('POST', 'business/company-description', { value: 'Bread' }), 409, 'Instance not connected');
    expectError(await call('POST', 'business/company-websites', { websites: [] }), 409, 'Instance not connected');
    expectError(await call('POST', 'business/categories', { categories: ['RESTAURANT'] }), 409, 'Instance not connected');
    expectError(await call('POST', 'business/hours', { timezone: 'America/Sao_Paulo', mode: 'open24h' }), 409, 'Instance not connected');
    expectError(await call('GET', 'business/profile'), 409, 'Instance not connected');
    expectError(await call('GET', `business/profile?phone=${PHONE}`), 409, 'Instance not connected');
    expectError(await call('GET', 'business/available-categories?query=rest'), 409, 'Instance not connected');
  });

  test('tags and notes: bad input → 400; else 409 offline; the colour table answers', async () => {
    expectError(await call('POST', 'business/create-tag', { name: ' ' }), 400, 'Invalid request', /^name: /);
    expectError(await call('POST', 'business/create-tag', { name: 'x', color: -1 }), 400, 'Invalid request', /color/);
    expectError(await call('POST', 'business/edit-tag/x1', { name: 'x' }), 400, 'Invalid request', /tagId/);
    expectError(await call('PUT', `chats/${PHONE}/tags/1x/add`), 400, 'Invalid request', /tag/);
    expectError(await call('PUT', 'chats/abc/tags/1/remove'), 400, 'Invalid request', /^phone: /);
    expectError(await call('POST', `chats/${PHONE}/notes`, { notes: '  ' }), 400, 'Invalid request', /^notes: /);
    expectError(await call('GET', 'tags'), 409, 'Instance not connected');
    expectError(await call('POST', 'business/create-tag', { name: 'Paid', color: 3 }), 409, 'Instance not connected');
    expectError(await call('POST', 'business/edit-tag/1', { name: 'Paid' }), 409, 'Instance not connected');
    expectError(await call('DELETE', 'business/tag/1'), 409, 'Instance not connected');
    expectError(await call('PUT', `chats/${PHONE}/tags/1/add`), 409, 'Instance not connected');
    expectError(await call('PUT', `chats/${PHONE.replace(/^55/, '1203630')}-group/tags/1/remove`), 409, 'Instance not connected');
    expectError(await call('POST', `chats/${PHONE}/notes`, { notes: 'VIP' }), 409, 'Instance not connected');
    const colors = await call('GET', 'business/tags/colors');
    assert.equal(colors.status, 200, JSON.stringify(colors.json));
    const table = colors.json as Record<string, string>;
    assert.equal(Object.keys(table).length, 20, 'WhatsApp has 20 label colours');
    assert.ok(Object.values(table).every((c) => /^#[0-9A-F]{6}$/.test(c)), `hex colours: ${JSON.stringify(table)}`);
  });
});
