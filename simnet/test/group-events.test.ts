// Group changes made by another admin (admin groupAction): w:gp2 / picture notifications → Baileys stubs and group events.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WAMessageStubType, type BaileysEventMap, type WAMessage } from 'baileys';
import { endSock, pairByQr, startEnv, until, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000140';
const BOB = '5511900000141';
const CAROL = '5511900000142';
const DAVE = '5511900000143';
const EVE = '5511900000144';
const FRANK = '5511900000145';
const pn = (p: string) => `${p}@s.whatsapp.net`;

let env: SimEnv;
let sock: Sock;
let gid: string;
const stubs: WAMessage[] = [];
const participantsUpdates: BaileysEventMap['group-participants.update'][] = [];
const groupUpdates: BaileysEventMap['groups.update'] = [];
const joinRequests: BaileysEventMap['group.join-request'][] = [];
const contactUpdates: BaileysEventMap['contacts.update'] = [];

before(async () => {
  env = await startEnv();
  for (const [p, n] of [[BOB, 'Bob'], [CAROL, 'Carol'], [DAVE, 'Dave'], [EVE, 'Eve'], [FRANK, 'Frank']] as const) await env.admin.createUser({ phone: p, pushName: n });
  ({ sock } = await pairByQr(env, ALICE));
  sock.ev.on('messages.upsert', ({ messages }) => stubs.push(...messages.filter((m) => m.messageStubType)));
  sock.ev.on('group-participants.update', (u) => participantsUpdates.push(u));
  sock.ev.on('groups.update', (u) => groupUpdates.push(...u));
  sock.ev.on('group.join-request', (u) => joinRequests.push(u));
  sock.ev.on('contacts.update', (u) => contactUpdates.push(...u));
  const g = await env.admin.createGroup({ creator: BOB, subject: 'Bob team', participants: [ALICE, CAROL] });
  gid = g.jid;
});

after(async () => {
  await endSock(sock);
  await env.close();
});

function stub(type: number, id: string): Promise<WAMessage> {
  return until(() => stubs.find((m) => m.messageStubType === type && m.key.id === id), 5000, `stub ${WAMessageStubType[type]}`);
}

test('subject and description by another admin: stubs 21/24, groups.update, state and metadata follow', async () => {
  const r = await env.admin.groupAction({ group: gid, actor: BOB, action: 'subject', value: 'Renamed' });
  assert.equal(r.devices, 1);
  assert.equal(r.group.subject, 'Renamed');
  const m = await stub(WAMessageStubType.GROUP_CHANGE_SUBJECT, r.notificationId);
  assert.deepEqual(m.messageStubParameters, ['Renamed']);
  assert.equal(m.key.remoteJid, gid);
  assert.equal(m.key.fromMe, false);
  // rc14 builds notification stubs through proto.WebMessageInfo.fromObject, which drops participantAlt: the author is a LID only.
  assert.equal(m.key.participant, `${(await env.admin.user(BOB)).lid}@lid`);
  await until(() => groupUpdates.find((u) => u.id === gid && u.subject === 'Renamed'), 5000, 'groups.update subject');
  const d = await env.admin.groupAction({ group: gid, actor: BOB, action: 'description', value: 'About us' });
  assert.deepEqual((await stub(WAMessageStubType.GROUP_CHANGE_DESCRIPTION, d.notificationId)).messageStubParameters, ['About us']);
  await until(() => groupUpdates.find((u) => u.id === gid && u.desc === 'About us'), 5000, 'groups.update desc');
  const meta = await sock.groupMetadata(gid);
  assert.equal(meta.subject, 'Renamed');
  assert.equal(meta.desc, 'About us');
  assert.equal(d.group.description, 'About us');
});

test('add, promote, demote, remove: stubs 27/29/30/28 with participant JSON and group-participants.update', async () => {
  const add = await env.admin.groupAction({ group: gid, actor: BOB, action: 'add', participants: [DAVE] });
  assert.deepEqual(add.applied, [DAVE]);
  const m = await stub(WAMessageStubType.GROUP_PARTICIPANT_ADD, add.notificationId);
  const p = JSON.parse(m.messageStubParameters![0]!) as { id: string; phoneNumber?: string };
  assert.match(p.id, /@lid$/);
  assert.equal(p.phoneNumber, pn(DAVE));
  const upd = await until(() => participantsUpdates.find((u) => u.action === 'add' && u.id === gid), 5000, 'participants add');
  assert.equal(upd.author, `${(await env.admin.user(BOB)).lid}@lid`);
  assert.equal(upd.participants[0]?.phoneNumber, pn(DAVE));
  for (const action of ['promote', 'demote', 'remove'] as const) {
    const r = await env.admin.groupAction({ group: gid, actor: BOB, action, participants: [DAVE] });
    const type = { promote: WAMessageStubType.GROUP_PARTICIPANT_PROMOTE, demote: WAMessageStubType.GROUP_PARTICIPANT_DEMOTE, remove: WAMessageStubType.GROUP_PARTICIPANT_REMOVE }[action];
    await stub(type, r.notificationId);
    await until(() => participantsUpdates.find((u) => u.action === action && u.participants[0]?.phoneNumber === pn(DAVE)), 5000, `participants ${action}`);
  }
  const info = await env.admin.group(gid);
  assert.deepEqual(info.participants.map((x) => x.phone).sort(), [ALICE, BOB, CAROL]);
  const meta = await sock.groupMetadata(gid);
  assert.equal(meta.participants.length, 3);
  // A non-admin may not remove anyone.
  await assert.rejects(env.admin.groupAction({ group: gid, actor: CAROL, action: 'remove', participants: [BOB] }), (e: { status?: number }) => e.status === 403);
});

test('announce, locked, picture: stubs 26/25/22, groups.update and contacts.update', async () => {
  const a = await env.admin.groupAction({ group: gid, actor: BOB, action: 'announce', value: true });
  assert.deepEqual((await stub(WAMessageStubType.GROUP_CHANGE_ANNOUNCE, a.notificationId)).messageStubParameters, ['on']);
  await until(() => groupUpdates.find((u) => u.id === gid && u.announce === true), 5000, 'announce');
  const l = await env.admin.groupAction({ group: gid, actor: BOB, action: 'locked', value: 'on' });
  assert.deepEqual((await stub(WAMessageStubType.GROUP_CHANGE_RESTRICT, l.notificationId)).messageStubParameters, ['on']);
  await until(() => groupUpdates.find((u) => u.id === gid && u.restrict === true), 5000, 'restrict');
  assert.equal(l.group.announce, true);
  assert.equal(l.group.locked, true);
  const pic = await env.admin.groupAction({ group: gid, actor: BOB, action: 'picture', value: '1700000001' });
  const pm = await stub(WAMessageStubType.GROUP_CHANGE_ICON, pic.notificationId);
  assert.deepEqual(pm.messageStubParameters, ['1700000001']);
  await until(() => contactUpdates.find((u) => u.id === gid && u.imgUrl === 'changed'), 5000, 'contacts.update picture');
  assert.match((await sock.profilePictureUrl(gid)) ?? '', /1700000001\.jpg$/);
  const del = await env.admin.groupAction({ group: gid, actor: BOB, action: 'picture', value: '' });
  await stub(WAMessageStubType.GROUP_CHANGE_ICON, del.notificationId);
  await until(() => contactUpdates.find((u) => u.id === gid && u.imgUrl === 'removed'), 5000, 'contacts.update picture removed');
  assert.equal(del.group.pictureId, null);
  assert.equal(await sock.profilePictureUrl(gid), undefined);
});

test('invite link reset, member add mode, description removed: stubs 23/171/24 and groups.update', async () => {
  const before = (await env.admin.group(gid)).inviteCode;
  const inv = await env.admin.groupAction({ group: gid, actor: BOB, action: 'revokeInvite' });
  assert.notEqual(inv.group.inviteCode, before);
  assert.deepEqual((await stub(WAMessageStubType.GROUP_CHANGE_INVITE_LINK, inv.notificationId)).messageStubParameters, [inv.group.inviteCode]);
  await until(() => groupUpdates.find((u) => u.id === gid && u.inviteCode === inv.group.inviteCode), 5000, 'groups.update inviteCode');
  const mode = await env.admin.groupAction({ group: gid, actor: BOB, action: 'memberAddMode', value: 'all_member_add' });
  assert.deepEqual((await stub(WAMessageStubType.GROUP_MEMBER_ADD_MODE, mode.notificationId)).messageStubParameters, ['all_member_add']);
  await until(() => groupUpdates.find((u) => u.id === gid && u.memberAddMode === true), 5000, 'groups.update memberAddMode');
  const d = await env.admin.groupAction({ group: gid, actor: BOB, action: 'description', value: '' });
  const m = await stub(WAMessageStubType.GROUP_CHANGE_DESCRIPTION, d.notificationId);
  assert.equal(m.messageStubParameters?.length ?? 0, 0);
  assert.equal(d.group.description, '');
});

test('join requests: admins hear created/revoked (stub 172, group.join-request); the device lists and approves', async () => {
  await env.admin.groupAction({ group: gid, actor: BOB, action: 'promote', participants: [ALICE] });
  await env.admin.groupAction({ group: gid, actor: BOB, action: 'joinApproval', value: 'on' });
  const req = await env.admin.groupAction({ group: gid, actor: EVE, action: 'requestJoin' });
  const m = await stub(WAMessageStubType.GROUP_MEMBERSHIP_JOIN_APPROVAL_REQUEST_NON_ADMIN_ADD, req.notificationId);
  assert.equal(m.messageStubParameters![1], 'created');
  assert.equal(m.messageStubParameters![2], 'invite_link');
  assert.equal((JSON.parse(m.messageStubParameters![0]!) as { pn: string }).pn, pn(EVE));
  const ev = await until(() => joinRequests.find((j) => j.action === 'created' && j.participantPn === pn(EVE)), 5000, 'join-request created');
  assert.match(ev.participant, /@lid$/);
  assert.deepEqual(req.group.joinRequests, [EVE]);
  const listed = await sock.groupRequestParticipantsList(gid);
  assert.equal(listed.length, 1);
  assert.equal((listed[0] as { phone_number?: string }).phone_number, pn(EVE));
  const rev = await env.admin.groupAction({ group: gid, actor: EVE, action: 'revokeRequest' });
  assert.equal((await stub(WAMessageStubType.GROUP_MEMBERSHIP_JOIN_APPROVAL_REQUEST_NON_ADMIN_ADD, rev.notificationId)).messageStubParameters![1], 'revoked');
  await until(() => joinRequests.find((j) => j.action === 'revoked' && j.participantPn === pn(EVE)), 5000, 'join-request revoked');
  await env.admin.groupAction({ group: gid, actor: FRANK, action: 'requestJoin', method: 'linked_group_join' });
  await until(() => joinRequests.find((j) => j.action === 'created' && j.method === 'linked_group_join'), 5000, 'second request');
  const frankLid = (await env.admin.user(FRANK)).lid;
  const res = await sock.groupRequestParticipantsUpdate(gid, [`${frankLid}@lid`], 'approve');
  assert.equal(res[0]?.status, '200');
  await until(() => participantsUpdates.find((u) => u.action === 'add' && u.participants[0]?.phoneNumber === pn(FRANK)), 5000, 'approved member added');
  assert.ok((await env.admin.group(gid)).participants.some((p) => p.phone === FRANK));
  // A member cannot ask to join; a group without approval takes no requests.
  await assert.rejects(env.admin.groupAction({ group: gid, actor: FRANK, action: 'requestJoin' }), (e: { status?: number }) => e.status === 409);
});

test('leave, then the device itself is removed: stub 32 for the leaver, 28 with the device in it', async () => {
  const l = await env.admin.groupAction({ group: gid, actor: CAROL, action: 'leave' });
  const m = await stub(WAMessageStubType.GROUP_PARTICIPANT_LEAVE, l.notificationId);
  assert.equal((JSON.parse(m.messageStubParameters![0]!) as { phoneNumber: string }).phoneNumber, pn(CAROL));
  await until(() => participantsUpdates.find((u) => u.action === 'remove' && u.participants[0]?.phoneNumber === pn(CAROL)), 5000, 'leave as remove');
  const r = await env.admin.groupAction({ group: gid, actor: BOB, action: 'remove', participants: [ALICE] });
  assert.equal(r.devices, 1, 'the removed member hears it too');
  await stub(WAMessageStubType.GROUP_PARTICIPANT_REMOVE, r.notificationId);
  await assert.rejects(sock.groupMetadata(gid));
});
