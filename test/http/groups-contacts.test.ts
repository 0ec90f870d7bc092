// Tags "groups" and "contacts" over real HTTP: validation and 409 with no session, and the success
// shapes with a scripted session (pending group ids, Group objects, phone checks in input order).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { SAMPLE_GROUP, scriptedSessions, type ScriptedSessions } from '../helpers/scripted-sessions.js';
import { GROUP, PHONE } from '../helpers/samples.js';
import { until } from '../helpers/poll.js';

const INVITE = 'https://chat.whatsapp.com/ABCDEFGHIJKLMNOPQRSTUV';

describe('groups and contacts with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('offline');
  });
  after(() => g.close());

  test('valid requests → 409 Instance not connected', async () => {
    const p = inst.prefix;
    const cases: [string, string, unknown?][] = [
      ['POST', '/create-group', { groupName: 'g', phones: [PHONE] }],
      ['POST', '/update-group-settings', { phone: GROUP, adminOnlyMessage: true }],
      ['GET', `/group-invitation-metadata?url=${encodeURIComponent(INVITE)}`],
      ['GET', `/group-metadata/${GROUP}`],
      ['POST', '/phone-exists-batch', { phones: [PHONE, '+1 (415) 555-0123'] }],
      ['GET', `/phone-exists/${PHONE}`],
    ];
    for (const [method, path, body] of cases) {
      expectError(await g.request(method, `${p}${path}`, { body }), 409, 'Instance not connected');
    }
    // A refused creation leaves no pending row behind.
    assert.deepEqual(await g.gateway.store.groups.listByStatus('pending'), []);
  });

  test('create-group validation', async () => {
    const url = `${inst.prefix}/create-group`;
    expectError(await g.request('POST', url, { body: { phones: [PHONE] } }), 400, 'Invalid request', 'groupName: is required');
    expectError(await g.request('POST', url, { body: { groupName: '', phones: [PHONE] } }), 400, 'Invalid request', /^groupName: /);
    expectError(await g.request('POST', url, { body: { groupName: 'g' } }), 400, 'Invalid request', 'phones: is required');
    expectError(await g.request('POST', url, { body: { groupName: 'g', phones: [] } }), 400, 'Invalid request', /^phones: /);
    expectError(await g.request('POST', url, { body: { groupName: 'g', phones: [PHONE, 'nope'] } }), 400, 'Invalid request', /^phones\[1\]: /);
    expectError(await g.request('POST', url, { body: { groupName: 'g', phones: [PHONE], autoInvite: 'y' } }), 400, 'Invalid request', /^autoInvite: /);
  });

  test('update-group-settings validation', async () => {
    const url = `${inst.prefix}/update-group-settings`;
    expectError(await g.request('POST', url, { body: { phone: GROUP } }), 400, 'Invalid request', /^body: at least one/);
    expectError(await g.request('POST', url, { body: { adminOnlyMessage: true } }), 400, 'Invalid request', 'phone: is required');
    expectError(await g.request('POST', url, { body: { phone: PHONE, adminOnlyMessage: true } }), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('POST', url, { body: { phone: GROUP, adminOnlySettings: 1 } }), 400, 'Invalid request', /^adminOnlySettings: /);
    expectError(
      await g.request('POST', url, { body: { phone: 'pending-00000000-0000-4000-8000-000000000000', adminOnlyMessage: true } }),
      404,
      'Group not found',
    );
  });

  test('group metadata and invitation metadata validation', async () => {
    const p = inst.prefix;
    expectError(await g.request('GET', `${p}/group-invitation-metadata`), 400, 'Invalid request', 'url: is required');
    for (const url of ['https://example.com/x', 'chat.whatsapp.com/ABCDEFGHIJ', 'https://chat.whatsapp.com/', 'https://chat.whatsapp.com/ab$cdefghijk']) {
      expectError(await g.request('GET', `${p}/group-invitation-metadata?url=${encodeURIComponent(url)}`), 400, 'Invalid request', /^url: /);
    }
    expectError(await g.request('GET', `${p}/group-metadata/${PHONE}`), 400, 'Invalid request', /^groupId: /);
    expectError(await g.request('GET', `${p}/groups/not-a-pending-id`), 400, 'Invalid request', /^pendingId: /);
    expectError(await g.request('GET', `${p}/groups/pending-00000000-0000-4000-8000-000000000000`), 404, 'Group not found');
  });

  test('phone-exists-batch validation names the malformed entries', async () => {
    const url = `${inst.prefix}/phone-exists-batch`;
    expectError(await g.request('POST', url, { body: {} }), 400, 'Invalid request', 'phones: is required');
    expectError(await g.request('POST', url, { body: { phones: [] } }), 400, 'Invalid request', /^phones: /);
    expectError(await g.request('POST', url, { body: { phones: 'x' } }), 400, 'Invalid request', /^phones: /);
    const bad = await g.request('POST', url, { body: { phones: [PHONE, 'abc', '12'] } });
    expectError(bad, 400, 'Invalid request', /^phones: .*phones\[1\].*phones\[2\]/);
    expectError(await g.request('GET', `${inst.prefix}/phone-exists/abc`), 400, 'Invalid request', /^phones?: /);
  });
});

describe('groups and contacts with a scripted session', () => {
  let g: TestGateway;
  let inst: TestInstance;
  let sessions: ScriptedSessions;

  before(async () => {
    sessions = scriptedSessions();
    g = await startGateway({ sessions });
    inst = await g.createInstance('online');
    sessions.connected.add(inst.instanceId);
  });
  after(() => g.close());

  /** The pending group's record once it is no longer pending (what a client polling it sees). */
  async function pendingUntilDone(groupId: string): Promise<Record<string, unknown>> {
    return until(`group ${groupId} to be done`, async () => {
      const r = await g.request('GET', `${inst.prefix}/groups/${groupId}`);
      assert.equal(r.status, 200, r.text);
      return r.json.status !== 'pending' && r.json;
    });
  }

  test('create-group → {groupId: pending-<uuid>, inviteLink: null} plus Z-API\'s phone and invitationLink when the group exists in time; the pending id resolves', async () => {
    const r = await g.request('POST', `${inst.prefix}/create-group`, { body: { groupName: 'Family', phones: ['+55 11 99999-0000', '5511988887777'] } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(Object.keys(r.json).sort(), ['groupId', 'invitationLink', 'inviteLink', 'phone', 'phonesNotAdded']);
    assert.match(String(r.json.groupId), /^pending-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(r.json.inviteLink, null, 'the spec\'s field stays null');
    assert.deepEqual([r.json.phone, r.json.invitationLink, r.json.phonesNotAdded], [SAMPLE_GROUP.phone, SAMPLE_GROUP.invitationLink, ['5511988887777']], 'Z-API\'s fields');
    const done = await pendingUntilDone(String(r.json.groupId));
    assert.deepEqual(done, {
      groupId: r.json.groupId,
      status: 'created',
      phone: SAMPLE_GROUP.phone,
      inviteLink: SAMPLE_GROUP.invitationLink,
      phonesNotAdded: ['5511988887777'],
    });
    // The engine got normalised numbers, and the pending id as the request's name on the network.
    const call = sessions.calls.find((c) => c.op === 'createGroup');
    assert.deepEqual(call?.args, { subject: 'Family', phones: ['5511999990000', '5511988887777'], requestId: r.json.groupId });
    // Every group operation accepts the pending id once created.
    const s = await g.request('POST', `${inst.prefix}/update-group-settings`, { body: { phone: r.json.groupId, adminOnlyMessage: true } });
    assert.deepEqual(s.body, { value: true });
    const last = sessions.calls.at(-1);
    assert.deepEqual(JSON.parse(JSON.stringify(last?.args)), { groupId: SAMPLE_GROUP.phone, change: { adminOnlyMessage: true } });
    const meta = await g.request('GET', `${inst.prefix}/group-metadata/${String(r.json.groupId)}`);
    assert.equal(meta.status, 200);
    assert.equal(meta.json.phone, SAMPLE_GROUP.phone);
  });

  test('a refused creation ends as failed with the reason', async () => {
    sessions.failCreateGroup = 'not allowed';
    try {
      const r = await g.request('POST', `${inst.prefix}/create-group`, { body: { groupName: 'X', phones: [PHONE] } });
      assert.equal(r.status, 200);
      assert.deepEqual(Object.keys(r.json).sort(), ['groupId', 'inviteLink'], 'no group: only the pending id');
      const done = await pendingUntilDone(String(r.json.groupId));
      assert.equal(done.status, 'failed');
      assert.equal(done.error, 'not allowed');
      expectError(
        await g.request('POST', `${inst.prefix}/update-group-settings`, { body: { phone: r.json.groupId, adminOnlyMessage: true } }),
        422,
        'Unable to process request',
        'not allowed',
      );
    } finally {
      sessions.failCreateGroup = null;
    }
  });

  test('pending ids are per instance', async () => {
    const r = await g.request('POST', `${inst.prefix}/create-group`, { body: { groupName: 'Mine', phones: [PHONE] } });
    await pendingUntilDone(String(r.json.groupId));
    const other = await g.createInstance('other');
    expectError(await g.request('GET', `${other.prefix}/groups/${String(r.json.groupId)}`), 404, 'Group not found');
  });

  test('group-invitation-metadata → the Group object; a revoked link → 422', async () => {
    const r = await g.request('GET', `${inst.prefix}/group-invitation-metadata?url=${encodeURIComponent(INVITE)}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, SAMPLE_GROUP);
    assert.equal(sessions.calls.at(-1)?.args, 'ABCDEFGHIJKLMNOPQRSTUV');
    expectError(
      await g.request('GET', `${inst.prefix}/group-invitation-metadata?url=${encodeURIComponent('https://chat.whatsapp.com/REVOKEDREVOKED')}`),
      422,
      'Unable to process request',
      'invite link revoked',
    );
  });

  test('group-metadata/{groupId} → the Group object', async () => {
    const r = await g.request('GET', `${inst.prefix}/group-metadata/${GROUP}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { ...SAMPLE_GROUP, phone: GROUP });
  });

  test('phone-exists-batch → [{exists, inputPhone, outputPhone, lid}] in input order with the caller spelling', async () => {
    const phones = ['+55 (11) 99999-0000', '5511988887777', '14155550124'];
    const r = await g.request('POST', `${inst.prefix}/phone-exists-batch`, { body: { phones } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, [
      { exists: true, inputPhone: '+55 (11) 99999-0000', outputPhone: '5511999990000', lid: '99000099@lid' },
      { exists: false, inputPhone: '5511988887777', outputPhone: '5511988887777', lid: null },
      { exists: true, inputPhone: '14155550124', outputPhone: '14155550124', lid: '55012499@lid' },
    ]);
  });

  test('phone-exists/{phone} → {exists, phone, lid}', async () => {
    const r = await g.request('GET', `${inst.prefix}/phone-exists/5511988887778`);
    assert.deepEqual(r.body, { exists: true, phone: '5511988887778', lid: '88777899@lid' });
  });

  test('DELETE /messages → {value:true} with the normalised target', async () => {
    const r = await g.request('DELETE', `${inst.prefix}/messages?messageId=3EB0AAAA&phone=${encodeURIComponent('+55 11 99999-0000')}&owner=true`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { value: true });
    assert.deepEqual(sessions.calls.at(-1)?.args, { phone: PHONE, messageId: '3EB0AAAA', owner: true });
  });
});
