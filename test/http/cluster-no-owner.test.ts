// Cluster mode, while an instance has no live owner (a failover or hand-over under way): the ports
// that need its session (account, chats, group admin, communities, channels, business) answer 503
// with Retry-After — try again shortly — instead of 409 "not connected", which would say the number
// is offline; sends are still accepted (queued durably for the next owner). The same requests on the
// node that owns the instance keep their 409 while its session is down. The gateway runs with a
// cluster routing of the test's own that places the instance nowhere, then here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent } from 'undici';
import type { ClusterRouting } from '../../src/cluster/routing.js';
import type { Placement } from '../../src/cluster/types.js';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const PHONE = '5511900001234';
const GROUP = '120363000000009001-group';
const COMMUNITY = '120363000000017001';

describe('cluster: an instance with no live owner', () => {
  let g: TestGateway;
  let inst: TestInstance;
  let place: Placement = { kind: 'nobody' };
  const agent = new Agent();

  before(async () => {
    const routing: ClusterRouting = {
      nodeId: 'n1',
      retryAfterSeconds: 3,
      placement: async () => place,
      forget: () => undefined,
      stillOwner: async () => false,
      ownerCheckMs: 1000,
      sign: () => 'unused',
      verify: () => false,
      forwarded: () => undefined,
      agent,
      timeoutMs: 1000,
    };
    g = await startGateway({ clusterRouting: routing });
    inst = await g.createInstance('handover');
  });
  after(async () => {
    await g?.close();
    await agent.close();
  });

  const cases: [string, string, string, unknown?][] = [
    ['account', 'PUT', '/profile-name', { value: 'Acme' }],
    ['account', 'GET', '/device'],
    ['chats', 'POST', '/modify-chat', { phone: PHONE, action: 'archive' }],
    ['group admin', 'POST', '/update-group-name', { groupId: GROUP, groupName: 'Team' }],
    ['communities', 'POST', '/communities/settings', { communityId: COMMUNITY, whoCanAddNewGroups: 'all' }],
    ['channels', 'POST', '/create-newsletter', { name: 'Channel name' }],
    ['business', 'POST', '/business/company-description', { value: 'Bread' }],
  ];

  test('every port that needs the session answers 503 with Retry-After, and a send is still accepted', async () => {
    place = { kind: 'nobody' };
    for (const [port, method, path, body] of cases) {
      const r = await g.request(method, `${inst.prefix}${path}`, { body });
      expectError(r, 503, 'Instance unavailable');
      assert.equal(r.json.code, 'INSTANCE_UNAVAILABLE', `${port} ${path}`);
      assert.equal(r.headers['retry-after'], '3', `${port} ${path}: Retry-After`);
    }
    const sent = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'queued for the next owner' } });
    assert.equal(sent.status, 200, sent.text);
    assert.equal(typeof sent.json.messageId, 'string');
  });

  test('on the node that owns it, a session that is down is still 409 "not connected"', async () => {
    place = { kind: 'here' };
    for (const [port, method, path, body] of cases) {
      const r = await g.request(method, `${inst.prefix}${path}`, { body });
      expectError(r, 409, 'Instance not connected');
      assert.equal(r.headers['retry-after'], undefined, `${port} ${path}`);
    }
  });
});
