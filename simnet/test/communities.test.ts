// Communities through Baileys' own calls: a parent group with its announcement group, linked groups
// (<linked_parent>, <sub_groups>), community-wide participants, another admin's unlink heard as a
// w:gp2 notification, and deactivation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { getBinaryNodeChild, type BinaryNode } from 'baileys';
import { endSock, pairByQr, startEnv, until, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000170';
const BOB = '5511900000171';
const CAROL = '5511900000172';
const jid = (p: string) => `${p}@s.whatsapp.net`;
let env: SimEnv;
let sock: Sock;
let parent = '';
let announcement = '';
let group = '';

const g2 = (to: string, type: 'get' | 'set', content: BinaryNode) => sock.query({ tag: 'iq', attrs: { to, type, xmlns: 'w:g2' }, content: [content] });

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  await env.admin.createUser({ phone: CAROL, pushName: 'Carol' });
  ({ sock } = await pairByQr(env, ALICE));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

test('create: a parent group (<parent>) and its announcement group (<default_sub_group>, admins only)', async () => {
  const created = await g2('@g.us', 'set', {
    tag: 'create',
    attrs: { subject: 'Neighbours' },
    content: [
      { tag: 'description', attrs: { id: 'D1' }, content: [{ tag: 'body', attrs: {}, content: Buffer.from('The building') }] },
      { tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } },
    ],
  });
  parent = `${getBinaryNodeChild(created, 'group')!.attrs.id}@g.us`;
  const meta = await sock.groupMetadata(parent);
  assert.deepEqual([meta.isCommunity, meta.subject, meta.desc], [true, 'Neighbours', 'The building']);
  announcement = (await env.admin.community(parent)).announcementJid;
  const ann = await sock.groupMetadata(announcement);
  assert.deepEqual([ann.isCommunityAnnounce, ann.linkedParent, ann.announce, ann.subject], [true, parent, true, 'Neighbours']);
});

test('link: the group carries <linked_parent>, its members join; a second community or a group you do not run is refused', async () => {
  group = (await sock.groupCreate('Parking', [jid(BOB)])).id;
  await sock.communityLinkGroup(group, parent);
  assert.equal((await sock.groupMetadata(group)).linkedParent, parent);
  const linked = await sock.communityFetchLinkedGroups(parent);
  assert.equal(linked.isCommunity, true);
  assert.deepEqual(linked.linkedGroups.map((g) => [g.id, g.subject]), [[announcement, 'Neighbours'], [group, 'Parking']]);
  const c = await env.admin.community(parent);
  assert.deepEqual(c.participants.map((p) => p.phone).sort(), [ALICE, BOB].sort(), 'Bob joined the community');
  assert.ok(c.subGroups[0]!.participants.includes(BOB), 'and its announcement group');

  await assert.rejects(sock.communityLinkGroup(group, parent), (e: { data?: unknown }) => e.data === 409);
  const carols = await env.admin.createGroup({ creator: CAROL, subject: 'Carol\'s', participants: [ALICE] });
  await assert.rejects(sock.communityLinkGroup(carols.jid, parent), (e: { data?: unknown }) => e.data === 401);
});

test('participants of the whole community: add joins the announcement group, remove leaves every group', async () => {
  const added = await sock.communityParticipantsUpdate(parent, [jid(CAROL)], 'add');
  assert.equal(added[0]?.status, '200');
  let c = await env.admin.community(parent);
  assert.ok(c.subGroups[0]!.participants.includes(CAROL), 'Carol is in the announcement group');
  assert.equal((await sock.communityParticipantsUpdate(parent, [jid(CAROL)], 'add'))[0]?.status, '409');
  await sock.groupParticipantsUpdate(group, [jid(CAROL)], 'add');
  await sock.communityParticipantsUpdate(parent, [jid(CAROL)], 'remove');
  c = await env.admin.community(parent);
  assert.ok(!c.participants.some((p) => p.phone === CAROL), 'out of the community');
  assert.ok(!c.subGroups.some((g) => g.participants.includes(CAROL)), 'and of every group of it');
});

test('another admin unlinks the group: the device hears <unlink> from the community and from the group', async () => {
  await sock.communityParticipantsUpdate(parent, [jid(BOB)], 'promote');
  const heard: BinaryNode[] = [];
  sock.ws.on('CB:notification,type:w:gp2,unlink', (n: BinaryNode) => heard.push(n));
  await env.admin.communityAction({ community: parent, actor: BOB, action: 'unlink', group });
  await until(() => heard.length >= 2, 10_000, 'two unlink notifications');
  const froms = heard.map((n) => [n.attrs.from, (n.content as BinaryNode[])[0]!.attrs.unlink_type]);
  assert.deepEqual(froms.sort(), [[group, 'parent_group'], [parent, 'sub_group']].sort());
  assert.equal((await sock.groupMetadata(group)).linkedParent, undefined);
  assert.equal((await env.admin.community(parent)).participants.find((p) => p.phone === BOB)?.role, 'admin', 'an admin stays');
});

test('deactivation (<delete_parent>): the community and its announcement group end; linked groups go on', async () => {
  await sock.communityLinkGroup(group, parent);
  await assert.rejects(env.admin.communityAction({ community: parent, actor: BOB, action: 'deactivate' }), /owner/);
  await g2(parent, 'set', { tag: 'delete_parent', attrs: {} });
  await assert.rejects(env.admin.community(parent), /no such community/);
  await assert.rejects(sock.groupMetadata(announcement), (e: { data?: unknown }) => e.data === 404);
  const meta = await sock.groupMetadata(group);
  assert.deepEqual([meta.subject, meta.linkedParent], ['Parking', undefined]);
});
