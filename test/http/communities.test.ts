// The community routes over real HTTP with no session: bad input is a 400 naming the field before
// anything else; a well-formed call on an instance that is not connected is 409, like the groups'.
import { after, before, describe, test } from 'node:test';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const COMMUNITY = '120363000000017001';
const GROUP = '120363000000017002-group';
const PHONE = '5511900017101';

describe('community routes with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('communities');
  });
  after(() => g.close());

  const post = (path: string, body: unknown) => g.request('POST', `${inst.prefix}/${path}`, { body });

  test('create, settings, description: bad input → 400 naming the field; else 409 offline', async () => {
    expectError(await post('communities', { name: '   ' }), 400, 'Invalid request', /^name: /);
    expectError(await post('communities', {}), 400, 'Invalid request', /name/);
    expectError(await post('communities', { name: 'Neighbours' }), 409, 'Instance not connected');
    expectError(await post('communities/settings', { communityId: COMMUNITY, whoCanAddNewGroups: 'everyone' }), 400, 'Invalid request', /whoCanAddNewGroups/);
    expectError(await post('communities/settings', { communityId: 'abc', whoCanAddNewGroups: 'all' }), 400, 'Invalid request', /^communityId: /);
    expectError(await post('communities/settings', { communityId: COMMUNITY, whoCanAddNewGroups: 'all' }), 409, 'Instance not connected');
    expectError(await post('update-community-description', { communityId: `${COMMUNITY}x`, communityDescription: '' }), 400, 'Invalid request', /^communityId: /);
    expectError(await post('update-community-description', { communityId: COMMUNITY, communityDescription: '' }), 409, 'Instance not connected');
  });

  test('link and unlink: malformed, repeated or too many groups → 400; else 409 offline', async () => {
    for (const path of ['communities/link', 'communities/unlink']) {
      expectError(await post(path, { communityId: COMMUNITY, groupsPhones: [] }), 400, 'Invalid request');
      expectError(await post(path, { communityId: COMMUNITY, groupsPhones: ['nope'] }), 400, 'Invalid request', /^groupsPhones\[0\]: /);
      expectError(await post(path, { communityId: COMMUNITY, groupsPhones: [GROUP, GROUP] }), 400, 'Invalid request', /unique/);
      expectError(await post(path, { communityId: COMMUNITY, groupsPhones: Array.from({ length: 51 }, (_, i) => `1203630000000${String(i).padStart(5, '0')}-group`) }), 400, 'Invalid request');
      expectError(await post(path, { communityId: COMMUNITY, groupsPhones: [GROUP] }), 409, 'Instance not connected');
    }
  });

  test('list, metadata, deactivate: 409 offline; a malformed id → 400', async () => {
    expectError(await g.request('GET', `${inst.prefix}/communities`), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/communities?pageSize=0`), 400, 'Invalid request');
    expectError(await g.request('GET', `${inst.prefix}/communities-metadata/abc`), 400, 'Invalid request', /^communityId: /);
    expectError(await g.request('GET', `${inst.prefix}/communities-metadata/${COMMUNITY}`), 409, 'Instance not connected');
    expectError(await g.request('DELETE', `${inst.prefix}/communities/abc`), 400, 'Invalid request', /^communityId: /);
    expectError(await g.request('DELETE', `${inst.prefix}/communities/${COMMUNITY}`), 409, 'Instance not connected');
  });

  test('members, admins and the link through the group routes with communityId', async () => {
    for (const path of ['add-participant', 'remove-participant', 'add-admin', 'remove-admin']) {
      expectError(await post(path, { phones: [PHONE] }), 400, 'Invalid request', /groupId .* or communityId/);
      expectError(await post(path, { groupId: GROUP, communityId: COMMUNITY, phones: [PHONE] }), 400, 'Invalid request', /not both/);
      expectError(await post(path, { communityId: 'abc', phones: [PHONE] }), 400, 'Invalid request', /^communityId: /);
      expectError(await post(path, { communityId: COMMUNITY, phones: [PHONE, PHONE] }), 400, 'Invalid request', /unique/);
      expectError(await post(path, { communityId: COMMUNITY, phones: [PHONE] }), 409, 'Instance not connected');
    }
    expectError(await post(`redefine-invitation-link/${COMMUNITY}`, {}), 409, 'Instance not connected');
  });
});
