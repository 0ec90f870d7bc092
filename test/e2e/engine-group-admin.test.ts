// Group administration end to end (gateway + Baileys + simnet): the groups list, light metadata,
// participants and admins, join requests, subject/description/photo, the invitation link (read,
// redefine, accept) and leaving; each change is checked on the network's side of the group.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900009001';
const CARLA = '5511900009002';
const DAN = '5511900009003';
const EVE = '5511900009004';
const FRANK = '5511900009005';
const GINA = '5511900009006';

describe('engine group administration (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let groupId = '';
  const jidOf = (id: string) => `${id.replace(/-group$/, '')}@g.us`;
  const post = async (path: string, body: unknown) => {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    return r.json;
  };
  const roles = async () => Object.fromEntries((await h.admin.group(jidOf(groupId))).participants.map((p) => [p.phone, p.role]));

  before(async () => {
    // create-group waits up to 5 s of real time for the group (the harness scales every delay by 0.05).
    h = await startHarness({ env: { ZAPGATE_CREATE_GROUP_WAIT_MS: '100000' } });
    for (const [phone, name] of [[CARLA, 'Carla'], [DAN, 'Dan'], [EVE, 'Eve'], [FRANK, 'Frank'], [GINA, 'Gina']] as const) await h.admin.createUser({ phone, pushName: name });
    // Eve only accepts being added by her contacts: the network refuses to add her.
    await h.admin.setGroupAddable(EVE, false);
    inst = await h.pairNew(OWNER, 'group-admin');
    const created = await post('create-group', { groupName: 'Ops', phones: [CARLA] });
    const view = await until('the group to be created', async () => (await h.call('GET', `${inst.prefix}/groups/${String(created.groupId)}`)).json, (v) => v.status !== 'pending');
    assert.equal(view.status, 'created', JSON.stringify(view));
    groupId = String(view.phone);
    // Z-API's fields in the answer itself, since the network made the group within the wait.
    assert.deepEqual([created.phone, created.invitationLink, created.phonesNotAdded], [groupId, view.inviteLink, []], JSON.stringify(created));
  });
  after(async () => {
    await h?.close();
  });

  test('GET /groups lists the group from the network; light-group-metadata has no link', async () => {
    const list = await h.call('GET', `${inst.prefix}/groups?page=1&pageSize=10`);
    assert.equal(list.status, 200, list.body.toString());
    const rows = JSON.parse(list.body.toString()) as Record<string, unknown>[];
    assert.deepEqual(rows.map((r) => [r.phone, r.name, r.isGroup, r.archived]), [[groupId, 'Ops', true, 'false']]);
    const light = await h.call('GET', `${inst.prefix}/light-group-metadata/${groupId}`);
    assert.equal(light.status, 200, light.body.toString());
    assert.equal(light.json.invitationLink, null);
    assert.equal(light.json.subject, 'Ops');
    assert.deepEqual((light.json.participants as { phone: string }[]).map((p) => p.phone).sort(), [CARLA, OWNER].sort());
  });

  test('light-group-metadata is served from the cache until the network reports a change', async () => {
    const light = async () => (await h.call('GET', `${inst.prefix}/light-group-metadata/${groupId}`)).json;
    const queries = async () => (await h.admin.counters()).counters['group.query'] ?? 0;
    await light();
    const before = await queries();
    for (let i = 0; i < 5; i++) await light();
    assert.equal(await queries(), before, 'five reads, no query to the network');
    // Another admin (Carla is made one on the network) renames the group: the notification drops the cache.
    await h.admin.groupAction({ group: jidOf(groupId), actor: OWNER, action: 'promote', participants: [CARLA] });
    await h.admin.groupAction({ group: jidOf(groupId), actor: CARLA, action: 'subject', value: 'Ops (renamed by Carla)' });
    const renamed = await until('the new subject', light, (m) => m.subject === 'Ops (renamed by Carla)');
    assert.equal((renamed.participants as { phone: string; isAdmin: boolean }[]).find((p) => p.phone === CARLA)?.isAdmin, true);
    await h.admin.groupAction({ group: jidOf(groupId), actor: CARLA, action: 'subject', value: 'Ops' });
    await until('the subject back', light, (m) => m.subject === 'Ops');
  });

  test('add-participant adds who can be added; with autoInvite the others get the link in a private message', async () => {
    const r = await post('add-participant', { groupId, phones: [DAN, EVE], autoInvite: true });
    assert.equal(r.value, false, 'not every phone was added');
    assert.deepEqual(r.phonesNotAdded, [EVE]);
    assert.deepEqual((r.errors as { phone: string }[]).map((e) => e.phone), [EVE]);
    assert.equal((await roles())[DAN], null, 'Dan is a member on the network');
    const invite = await h.admin.waitForReceived(EVE, (m) => (m.text ?? '').includes('https://chat.whatsapp.com/'), 20_000);
    assert.match(invite.text ?? '', /"Ops"/, 'the invite names the group');
  });

  test('add-admin and remove-admin change Dan\'s role; remove-participant takes him out', async () => {
    assert.deepEqual(await post('add-admin', { groupId, phones: [DAN] }), { value: true, errors: [] });
    assert.equal((await roles())[DAN], 'admin');
    assert.deepEqual(await post('remove-admin', { groupId, phones: [DAN] }), { value: true, errors: [] });
    assert.equal((await roles())[DAN], null);
    assert.deepEqual(await post('remove-participant', { groupId, phones: [DAN] }), { value: true, errors: [] });
    assert.equal(DAN in (await roles()), false, 'Dan left the group');
    const again = await post('remove-participant', { groupId, phones: [DAN] });
    assert.equal(again.value, false, 'removing someone who is not in the group is reported');
  });

  test('update-group-name, -description and -photo are applied on the network', async () => {
    await post('update-group-name', { groupId, groupName: 'Ops team' });
    await post('update-group-description', { groupId, groupDescription: 'Orders and deliveries' });
    const png = await sharp({ create: { width: 640, height: 640, channels: 3, background: { r: 20, g: 120, b: 200 } } }).png().toBuffer();
    await post('update-group-photo', { groupId, groupPhoto: `data:image/png;base64,${png.toString('base64')}` });
    const g = await h.admin.group(jidOf(groupId));
    assert.equal(g.subject, 'Ops team');
    assert.equal(g.description, 'Orders and deliveries');
    assert.ok((g.pictureBytes ?? 0) > 0, `the picture was uploaded: ${JSON.stringify(g.pictureBytes)}`);
    const bad = await h.call('POST', `${inst.prefix}/update-group-photo`, { groupId, groupPhoto: `data:image/png;base64,${Buffer.from('not an image').toString('base64')}` });
    assert.equal(bad.status, 400, bad.body.toString());
    const blank = await h.call('POST', `${inst.prefix}/update-group-name`, { groupId, groupName: '   ' });
    assert.equal(blank.status, 400, blank.body.toString());
  });

  test('the invitation link: read, redefined (the old one stops working), and accepted from another group', async () => {
    const link = await h.call('GET', `${inst.prefix}/group-invitation-link/${groupId}`);
    assert.equal(link.status, 200, link.body.toString());
    const g = await h.admin.group(jidOf(groupId));
    assert.deepEqual(link.json, { phone: groupId, invitationLink: `https://chat.whatsapp.com/${g.inviteCode}` });
    const redefined = await post(`redefine-invitation-link/${groupId}`, {});
    assert.notEqual(redefined.invitationLink, link.json.invitationLink);
    assert.equal(redefined.invitationLink, `https://chat.whatsapp.com/${(await h.admin.group(jidOf(groupId))).inviteCode}`);
    const old = await h.call('GET', `${inst.prefix}/group-invitation-metadata?url=${encodeURIComponent(String(link.json.invitationLink))}`);
    assert.equal(old.status, 422, `the old link is revoked: ${old.body.toString()}`);

    const other = await h.admin.createGroup({ creator: CARLA, subject: 'Carla\'s', participants: [DAN] });
    const accept = await h.call('GET', `${inst.prefix}/accept-invite-group?url=${encodeURIComponent(`https://chat.whatsapp.com/${other.inviteCode}`)}`);
    assert.equal(accept.status, 200, accept.body.toString());
    assert.deepEqual(accept.json, { success: true, phone: `${other.jid.split('@')[0]}-group` });
    assert.ok((await h.admin.group(other.jid)).participants.some((p) => p.phone === OWNER), 'joined on the network');
  });

  test('approve-participant and reject-participant answer join requests', async () => {
    await post('update-group-settings', { phone: groupId, requireAdminApproval: true });
    for (const actor of [FRANK, GINA]) await h.admin.groupAction({ group: jidOf(groupId), actor, action: 'requestJoin' });
    await until('both requests on the network', () => h.admin.group(jidOf(groupId)), (g) => (g.joinRequests ?? []).length === 2);
    assert.deepEqual(await post('approve-participant', { groupId, phones: [FRANK] }), { value: true, errors: [] });
    assert.deepEqual(await post('reject-participant', { groupId, phones: [GINA] }), { value: true, errors: [] });
    const g = await h.admin.group(jidOf(groupId));
    assert.deepEqual(g.joinRequests, [], 'no request left');
    assert.ok(g.participants.some((p) => p.phone === FRANK), 'Frank joined');
    assert.ok(!g.participants.some((p) => p.phone === GINA), 'Gina did not');
  });

  test('bad input is refused before anything is sent; leave-group leaves', async () => {
    for (const body of [{ groupId, phones: [] }, { groupId, phones: ['abc'] }, { groupId, phones: [CARLA, CARLA] }, { groupId: 'nope', phones: [CARLA] }]) {
      const r = await h.call('POST', `${inst.prefix}/add-participant`, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.body.toString()}`);
    }
    assert.equal((await h.call('GET', `${inst.prefix}/accept-invite-group?url=${encodeURIComponent('https://example.com/x')}`)).status, 400);
    assert.deepEqual(await post('leave-group', { groupId }), { value: true });
    assert.equal(OWNER in (await roles()), false, 'the instance left');
    const groups = async () => JSON.parse((await h.call('GET', `${inst.prefix}/groups`)).body.toString()) as { phone: string }[];
    const list = await until('the group to leave the listing', groups, (l) => !l.some((g) => g.phone === groupId));
    assert.equal(list.some((g) => g.phone === groupId), false, 'no longer listed');
  });
});
