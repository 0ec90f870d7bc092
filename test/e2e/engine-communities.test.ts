// Communities end to end (gateway + Baileys + simnet): create, list, metadata, link and unlink
// groups, the announcement group (sent to like any group), members and admins through the group
// routes with communityId, settings, description, the invitation link and deactivation; each checked
// on the network's side, and changes by another admin arriving as Z-API notifications.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511900017001';
const CARLA = '5511900017002';
const DAN = '5511900017003';
const EVE = '5511900017004';
const FRANK = '5511900017005';

describe('engine communities (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let communityId = '';
  let announcementId = '';
  let parking = '';
  let garden = '';
  const jidOf = (id: string) => `${id.replace(/-group$/, '')}@g.us`;
  const post = async (path: string, body: unknown) => {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    // A send is queued behind a pacing gap (protocol time): jumped, not waited out.
    if (path.startsWith('send-')) await h.sendQueued(inst);
    return r.json;
  };
  const get = async (path: string) => {
    const r = await h.call('GET', `${inst.prefix}/${path}`);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    return JSON.parse(r.body.toString()) as unknown;
  };
  const createGroup = async (groupName: string, phones: string[]): Promise<string> => {
    const created = await post('create-group', { groupName, phones });
    assert.ok(typeof created.phone === 'string', `the group was made within the wait: ${JSON.stringify(created)}`);
    return String(created.phone);
  };
  const community = () => h.admin.community(jidOf(communityId));
  const roles = async () => Object.fromEntries((await community()).participants.map((p) => [p.phone, p.role]));
  const mine = (x: WebhookHit): boolean => x.path === `/${inst.instanceId}` && x.body.type === 'ReceivedCallback';
  const notification = async (name: string, extra: (b: Record<string, unknown>) => boolean = () => true) =>
    (await h.webhooks.waitFor((x) => mine(x) && x.body.notification === name && extra(x.body), 20_000, name)).body;

  before(async () => {
    h = await startHarness({ env: { ZAPGATE_CREATE_GROUP_WAIT_MS: '100000' } });
    for (const [phone, name] of [[CARLA, 'Carla'], [DAN, 'Dan'], [EVE, 'Eve'], [FRANK, 'Frank']] as const) await h.admin.createUser({ phone, pushName: name });
    await h.admin.setGroupAddable(EVE, false);
    inst = await h.pairNew(OWNER, 'communities');
    // The instance's own changes too (deactivation is reported to it as to every member).
    const hook = await h.call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${h.webhooks.url}/${inst.instanceId}`, notifySentByMe: true });
    assert.equal(hook.status, 200, hook.body.toString());
    parking = await createGroup('Parking', [CARLA]);
    garden = await createGroup('Garden', [DAN]);
  });
  after(async () => {
    await h?.close();
  });

  test('POST /communities creates the community and its announcement group on the network', async () => {
    const created = await post('communities', { name: 'Neighbours', description: 'Everything about the building' });
    communityId = String(created.id);
    assert.match(communityId, /^\d+$/, 'Z-API\'s community id: digits');
    const subGroups = created.subGroups as { name: string; phone: string; isGroupAnnouncement: boolean }[];
    assert.equal(subGroups.length, 1, JSON.stringify(subGroups));
    assert.deepEqual([subGroups[0]!.name, subGroups[0]!.isGroupAnnouncement], ['Neighbours', true]);
    announcementId = subGroups[0]!.phone;
    const c = await community();
    assert.deepEqual([c.subject, c.description, c.announcementJid], ['Neighbours', 'Everything about the building', jidOf(announcementId)]);
    assert.deepEqual(await roles(), { [OWNER]: 'superadmin' });
    const blank = await h.call('POST', `${inst.prefix}/communities`, { name: '  ' });
    assert.equal(blank.status, 400, blank.body.toString());
  });

  test('GET /communities lists it; GET /groups does not list the community as a group', async () => {
    assert.deepEqual(await get('communities?page=1&pageSize=10'), [{ name: 'Neighbours', id: communityId }]);
    assert.deepEqual(await get('communities?page=2&pageSize=10'), []);
    const groups = (await get('groups')) as { phone: string }[];
    assert.equal(groups.some((g) => g.phone === `${communityId}-group`), false, 'the community is not a group row');
    assert.equal(groups.some((g) => g.phone === announcementId), true, 'its announcement group is');
  });

  test('communities/link links groups (their members join); a group already linked, or not run by you, is refused', async () => {
    assert.deepEqual(await post('communities/link', { communityId, groupsPhones: [parking, garden] }), { success: true, errors: [] });
    const c = await community();
    assert.deepEqual(c.subGroups.map((g) => [g.jid, g.defaultSubGroup]), [[jidOf(announcementId), true], [jidOf(parking), false], [jidOf(garden), false]]);
    assert.deepEqual(Object.keys(await roles()).sort(), [CARLA, DAN, OWNER].sort(), 'Carla and Dan joined the community');
    const announcement = c.subGroups.find((g) => g.defaultSubGroup)!;
    assert.deepEqual([...announcement.participants].sort(), [CARLA, DAN, OWNER].sort(), 'and its announcement group');

    const meta = (await get(`communities-metadata/${communityId}`)) as Record<string, unknown>;
    assert.deepEqual(meta, {
      name: 'Neighbours',
      id: communityId,
      description: 'Everything about the building',
      subGroups: [
        { name: 'Neighbours', phone: announcementId, isGroupAnnouncement: true },
        { name: 'Parking', phone: parking, isGroupAnnouncement: false },
        { name: 'Garden', phone: garden, isGroupAnnouncement: false },
      ],
    });
    // The community's own metadata is served from the groups' cache (only its group list is asked).
    const queries = async () => (await h.admin.counters()).counters['group.query'] ?? 0;
    const before = await queries();
    for (let i = 0; i < 3; i++) await get(`communities-metadata/${communityId}`);
    assert.equal(await queries(), before, 'three reads, no metadata query to the network');
    const groupMeta = (await get(`group-metadata/${parking}`)) as Record<string, unknown>;
    assert.equal(groupMeta.communityId, communityId, 'group-metadata names the community');

    const frank = await h.admin.createGroup({ creator: FRANK, subject: 'Frank\'s', participants: [OWNER] });
    const again = await post('communities/link', { communityId, groupsPhones: [parking, `${frank.jid.split('@')[0]}-group`] });
    assert.equal(again.success, false);
    assert.deepEqual(
      (again.errors as { phone: string; error: string }[]).map((e) => [e.phone, e.error.match(/\((\d+)\)$/)?.[1]]),
      [
        [parking, '409'],
        [`${frank.jid.split('@')[0]}-group`, '401'],
      ],
    );
    assert.equal((await h.admin.group(frank.jid)).participants.length, 2, 'nothing changed on Frank\'s group');
  });

  test('the announcement group is sent to with send-text and its id; every member gets it; groups are mentioned by groupMentioned', async () => {
    const sent = await post('send-text', { phone: announcementId, message: 'Water is off on Monday' });
    assert.ok(sent.messageId, JSON.stringify(sent));
    for (const member of [CARLA, DAN]) {
      const got = await h.admin.waitForReceived(member, (m) => m.text === 'Water is off on Monday', 20_000);
      assert.equal(got.groupId, jidOf(announcementId), `${member} got it in the announcement group`);
    }
  
    // Z-API's "mention group": the groups of the community, named in the text.
    const text = `Garden party on Sunday, see @${garden}`;
    await post('send-text', { phone: announcementId, message: text, groupMentioned: [{ phone: garden, subject: 'Garden' }] });
    const mention = await h.admin.waitForReceived(CARLA, (m) => m.text === text, 20_000);
    assert.deepEqual(mention.groupMentions, [{ jid: jidOf(garden), subject: 'Garden' }]);
    // The community itself is no chat: the network refuses a message to it.
    const toCommunity = await post('send-text', { phone: `${communityId}-group`, message: 'To the parent' });
    const refused = await h.webhooks.waitFor((x) => x.path === `/${inst.instanceId}` && x.body.messageId === toCommunity.messageId && x.body.type === 'DeliveryCallback', 20_000, 'the refusal');
    assert.match(String(refused.body.error), /error 420/, JSON.stringify(refused.body));
    const toPhone = await h.call('POST', `${inst.prefix}/send-text`, { phone: CARLA, message: text, groupMentioned: [{ phone: garden, subject: 'Garden' }] });
    assert.equal(toPhone.status, 400, `groups are mentioned in groups only: ${toPhone.body.toString()}`);
  });

  test('members and admins through the group routes with communityId', async () => {
    const added = await post('add-participant', { communityId, phones: [FRANK, EVE], autoInvite: true });
    assert.equal(added.value, false, 'Eve could not be added');
    assert.deepEqual(added.phonesNotAdded, [EVE]);
    assert.equal((await roles())[FRANK], null, 'Frank is a member of the community');
    // The invite goes through the queue, paced: its gap is jumped.
    const isInvite = (m: { text?: string }) => (m.text ?? '').includes('https://chat.whatsapp.com/');
    const invite = (await h.driveUntil('Eve to get the invite link', () => h.admin.received(EVE), (ms) => ms.some(isInvite), { withinMs: 5_000 })).find(isInvite)!;
    assert.match(invite.text ?? '', /"Neighbours"/, 'the invite names the community');
    assert.ok((invite.text ?? '').endsWith((await h.admin.group(jidOf(communityId))).inviteCode), 'with the community\'s link');

    assert.deepEqual(await post('add-admin', { communityId, phones: [CARLA] }), { value: true, errors: [] });
    assert.equal((await roles())[CARLA], 'admin');
    assert.deepEqual(await post('remove-admin', { communityId, phones: [CARLA] }), { value: true, errors: [] });
    assert.equal((await roles())[CARLA], null);

    assert.deepEqual(await post('remove-participant', { communityId, phones: [DAN] }), { value: true, errors: [] });
    assert.equal(DAN in (await roles()), false, 'Dan left the community');
    assert.equal((await h.admin.group(jidOf(garden))).participants.some((p) => p.phone === DAN), false, 'and every group of it');
    const both = await h.call('POST', `${inst.prefix}/add-admin`, { communityId, groupId: parking, phones: [CARLA] });
    assert.equal(both.status, 400, both.body.toString());
  });

  test('description, who may add groups, and the invitation link are changed on the network', async () => {
    assert.deepEqual(await post('update-community-description', { communityId, communityDescription: 'Building news' }), { value: true });
    assert.equal((await community()).description, 'Building news');
    assert.deepEqual(await post('communities/settings', { communityId, whoCanAddNewGroups: 'all' }), { success: true });
    assert.equal((await community()).allowNonAdminSubGroupCreation, true);
    assert.deepEqual(await post('communities/settings', { communityId, whoCanAddNewGroups: 'admins' }), { success: true });
    assert.equal((await community()).allowNonAdminSubGroupCreation, false);
    const before = (await h.admin.group(jidOf(communityId))).inviteCode;
    const redefined = await post(`redefine-invitation-link/${communityId}`, {});
    const after = (await h.admin.group(jidOf(communityId))).inviteCode;
    assert.notEqual(after, before);
    assert.deepEqual(redefined, { invitationLink: `https://chat.whatsapp.com/${after}` });
  });

  test('changes by another admin arrive as notifications on the received webhook', async () => {
    await post('add-admin', { communityId, phones: [CARLA] });
    const carlas = await h.admin.createGroup({ creator: CARLA, subject: 'Carla\'s club', participants: [OWNER] });
    const carlasId = `${carlas.jid.split('@')[0]}-group`;
    await h.admin.communityAction({ community: jidOf(communityId), actor: CARLA, action: 'link', group: carlas.jid });
    const byCarla = (b: Record<string, unknown>) => b.participantPhone === CARLA;
    const linked = await notification('COMMUNITY_LINK_SUB_GROUP', (b) => byCarla(b) && b.phone === `${communityId}-group`);
    assert.deepEqual([linked.participantPhone, linked.notificationParameters, linked.fromMe], [CARLA, [carlasId, 'Carla\'s club'], false]);
    const joined = await notification('COMMUNITY_LINK_PARENT_GROUP', (b) => byCarla(b) && b.phone === carlasId);
    assert.deepEqual(joined.notificationParameters, [communityId, 'Neighbours']);
    assert.equal(((await get(`group-metadata/${carlasId}`)) as Record<string, unknown>).communityId, communityId, 'the cached group knows its community');

    await h.admin.groupAction({ group: jidOf(communityId), actor: CARLA, action: 'description', value: 'Set by Carla' });
    const described = await notification('GROUP_CHANGE_DESCRIPTION', (b) => byCarla(b) && b.phone === `${communityId}-group`);
    assert.deepEqual([described.participantPhone, described.notificationParameters], [CARLA, ['Set by Carla']]);
    assert.equal(((await get(`communities-metadata/${communityId}`)) as Record<string, unknown>).description, 'Set by Carla');

    await h.admin.communityAction({ community: jidOf(communityId), actor: CARLA, action: 'allowNonAdminSubGroupCreation', value: true });
    assert.deepEqual((await notification('COMMUNITY_ALLOW_MEMBER_ADDED_GROUPS', byCarla)).notificationParameters, ['on']);

    await h.admin.communityAction({ community: jidOf(communityId), actor: CARLA, action: 'unlink', group: carlas.jid });
    const unlinked = await notification('COMMUNITY_UNLINK_SUB_GROUP', (b) => byCarla(b) && b.phone === `${communityId}-group`);
    assert.deepEqual([unlinked.participantPhone, unlinked.notificationParameters], [CARLA, [carlasId, 'Carla\'s club']]);
    await until('the group to leave the community', () => get(`group-metadata/${carlasId}`) as Promise<Record<string, unknown>>, (m) => m.communityId === null);
  });

  test('communities/unlink unlinks; a group not in the community is refused', async () => {
    assert.deepEqual(await post('communities/unlink', { communityId, groupsPhones: [parking] }), { success: true, errors: [] });
    assert.deepEqual((await community()).subGroups.map((g) => g.jid), [jidOf(announcementId), jidOf(garden)]);
    assert.equal(CARLA in (await roles()), true, 'Carla stays: she is a community admin');
    const again = await post('communities/unlink', { communityId, groupsPhones: [parking] });
    assert.equal(again.success, false);
    assert.match((again.errors as { error: string }[])[0]!.error, /\(404\)$/);
  });

  test('bad input is refused before anything is sent', async () => {
    const cases: [string, string, unknown][] = [
      ['POST', 'communities/link', { communityId: 'abc', groupsPhones: [parking] }],
      ['POST', 'communities/link', { communityId, groupsPhones: [] }],
      ['POST', 'communities/link', { communityId, groupsPhones: [parking, parking] }],
      ['POST', 'communities/link', { communityId, groupsPhones: ['nope'] }],
      ['POST', 'communities/settings', { communityId, whoCanAddNewGroups: 'everyone' }],
      ['POST', 'add-participant', { phones: [FRANK] }],
      ['POST', 'update-community-description', { communityId: '12-34', communityDescription: 'x' }],
      ['GET', 'communities-metadata/not-a-community', undefined],
    ];
    for (const [method, path, body] of cases) {
      const r = await h.call(method, `${inst.prefix}/${path}`, body);
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${r.body.toString()}`);
    }
    const group = await h.call('GET', `${inst.prefix}/communities-metadata/${parking.replace(/-group$/, '')}`);
    assert.equal(group.status, 422, `a group is not a community: ${group.body.toString()}`);
    assert.deepEqual((await community()).subGroups.length, 2, 'nothing changed');
  });

  test('DELETE /communities/{id} deactivates it: its groups go on, unlinked', async () => {
    const r = await h.call('DELETE', `${inst.prefix}/communities/${communityId}`);
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { success: true });
    await assert.rejects(community(), /404|no such community/, 'the community is gone from the network');
    const gardenOnNet = await h.admin.group(jidOf(garden));
    assert.equal(gardenOnNet.participants.some((p) => p.phone === OWNER), true, 'the group still exists');
    const deleted = await notification('COMMUNITY_PARENT_GROUP_DELETED', (b) => b.phone === `${communityId}-group`);
    assert.equal(deleted.fromMe, true, 'the instance deactivated it');
    await notification('COMMUNITY_UNLINK_PARENT_GROUP', (b) => b.phone === garden);
    await until('garden to be out of the community', () => get(`group-metadata/${garden}`) as Promise<Record<string, unknown>>, (m) => m.communityId === null);
    assert.deepEqual(await get('communities'), []);
  });
});
