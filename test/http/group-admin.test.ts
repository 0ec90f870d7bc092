// The group administration routes over real HTTP with no session: bad input is a 400 naming the
// field before anything else; a well-formed call on an instance that is not connected is 409; every
// route is documented with a description and an example.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const GROUP = '120363000000009001-group';
const PHONE = '5511900009101';

describe('group administration routes with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('group-admin');
  });
  after(() => g.close());

  const post = (path: string, body: unknown) => g.request('POST', `${inst.prefix}/${path}`, { body });

  test('participants, admins and join requests: malformed, repeated or too many phones → 400; else 409 offline', async () => {
    for (const path of ['add-participant', 'remove-participant', 'add-admin', 'remove-admin', 'approve-participant', 'reject-participant']) {
      expectError(await post(path, { groupId: GROUP, phones: [] }), 400, 'Invalid request');
      expectError(await post(path, { groupId: GROUP, phones: ['12ab'] }), 400, 'Invalid request', /^phones\[0\]: /);
      expectError(await post(path, { groupId: GROUP, phones: [PHONE, PHONE] }), 400, 'Invalid request', /unique/);
      expectError(await post(path, { groupId: 'x', phones: [PHONE] }), 400, 'Invalid request', /^groupId: /);
      expectError(await post(path, { groupId: GROUP, phones: Array.from({ length: 257 }, (_, i) => `55119000${String(i).padStart(5, '0')}`) }), 400, 'Invalid request');
      expectError(await post(path, { groupId: GROUP, phones: [PHONE] }), 409, 'Instance not connected');
    }
  });

  test('subject, description, photo, leave, links: bad input → 400, else 409 offline', async () => {
    expectError(await post('update-group-name', { groupId: GROUP, groupName: '  ' }), 400, 'Invalid request', /groupName/);
    expectError(await post('update-group-name', { groupId: GROUP }), 400, 'Invalid request', /groupName/);
    expectError(await post('update-group-photo', { groupId: GROUP, groupPhoto: 'ftp://x' }), 400, 'Invalid request', /groupPhoto/);
    expectError(await g.request('GET', `${inst.prefix}/accept-invite-group?url=${encodeURIComponent('https://example.com/abc')}`), 400, 'Invalid request', /^url: /);
    expectError(await post('update-group-name', { groupId: GROUP, groupName: 'Team' }), 409, 'Instance not connected');
    expectError(await post('update-group-description', { groupId: GROUP, groupDescription: '' }), 409, 'Instance not connected');
    expectError(await post('leave-group', { groupId: GROUP }), 409, 'Instance not connected');
    expectError(await post(`redefine-invitation-link/${GROUP}`, {}), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/group-invitation-link/${GROUP}`), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/light-group-metadata/${GROUP}`), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/groups?page=1&pageSize=10`), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/groups?pageSize=0`), 400, 'Invalid request', /^pageSize/);
  });

  test('every group administration route is in /openapi.json with a description and an example', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { description?: string }>> };
    const prefix = '/instances/{instanceId}/token/{instanceToken}';
    const routes = [
      ['get', '/groups'], ['get', '/light-group-metadata/{groupId}'], ['get', '/group-invitation-link/{groupId}'], ['post', '/redefine-invitation-link/{groupId}'],
      ['get', '/accept-invite-group'], ['post', '/leave-group'], ['post', '/update-group-name'], ['post', '/update-group-description'], ['post', '/update-group-photo'],
      ['post', '/add-participant'], ['post', '/remove-participant'], ['post', '/add-admin'], ['post', '/remove-admin'], ['post', '/approve-participant'], ['post', '/reject-participant'],
    ] as const;
    for (const [method, path] of routes) {
      const op = doc.paths[`${prefix}${path}`]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      assert.match(JSON.stringify(op), /example/, `${method.toUpperCase()} ${path} has an example`);
    }
  });
});
