// Groups: create with addable and non-addable participants, metadata, invites, settings + w:gp2, sender-key sends, receipts, incoming.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { WAMessageStubType, type BinaryNode } from 'baileys';
import { endSock, pairByQr, startEnv, until, waitForEvent, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000040';
const BOB = '5511900000041';
const CAROL = '5511900000042';
const DAVE = '5511900000043';
const jid = (p: string) => `${p}@s.whatsapp.net`;
let env: SimEnv;
let sock: Sock;
let gid: string;

before(async () => {
  env = await startEnv({ receipts: { delivered: 'auto', deliveredDelayMs: 2000, read: 'auto', readDelayMs: 4000 } });
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  await env.admin.createUser({ phone: CAROL, pushName: 'Carol' });
  await env.admin.createUser({ phone: DAVE, pushName: 'Dave' });
  await env.admin.setGroupAddable(DAVE, false);
  ({ sock } = await pairByQr(env, ALICE));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

test('create: addable participants join, a privacy-restricted one and an unknown number do not', async () => {
  const meta = await sock.groupCreate('Team', [jid(BOB), jid(CAROL), jid(DAVE), jid('4420000000009')]);
  gid = meta.id;
  assert.match(gid, /^\d+@g\.us$/);
  assert.equal(meta.subject, 'Team');
  const info = await env.admin.group(gid);
  assert.deepEqual(info.participants.map((p) => p.phone).sort(), [ALICE, BOB, CAROL]);
  assert.equal(info.participants.find((p) => p.phone === ALICE)?.role, 'superadmin');
  const fresh = await sock.groupMetadata(gid);
  assert.equal(fresh.participants.length, 3);
  assert.equal(fresh.addressingMode, 'lid');
  assert.ok(fresh.participants.every((p) => p.id.endsWith('@lid') && p.phoneNumber?.endsWith('@s.whatsapp.net')));
});

test('create is deduplicated by creator and key: a repeated create answers the group the first one made', async () => {
  const create = (key: string, subject: string) =>
    sock.query({
      tag: 'iq',
      attrs: { type: 'set', xmlns: 'w:g2', to: '@g.us' },
      content: [{ tag: 'create', attrs: { subject, key }, content: [{ tag: 'participant', attrs: { jid: jid(BOB) } }] }],
    });
  const groupId = (answer: BinaryNode) => (answer.content as BinaryNode[]).find((n) => n.tag === 'group')?.attrs.id;
  const before = (await env.admin.groups(ALICE)).length;
  const first = groupId(await create('3EB0AAAAAAAAAAAAAAAAAA', 'Once'));
  const again = groupId(await create('3EB0AAAAAAAAAAAAAAAAAA', 'Once'));
  assert.ok(first, 'the create answer carries the group');
  assert.equal(again, first, 'the repeated create names the same group');
  const other = groupId(await create('3EB0BBBBBBBBBBBBBBBBBB', 'Once'));
  assert.notEqual(other, first, 'another key makes another group');
  const mine = await env.admin.groups(ALICE);
  assert.equal(mine.length, before + 2, `two groups made for three creates (${mine.map((g) => g.subject).join(', ')})`);
  assert.equal(mine.filter((g) => g.jid === `${first}@g.us`).length, 1, 'the first group is listed once');
  const c = await env.admin.counters();
  assert.equal(c.counters['groups.create_repeated'], 1, 'one create was answered from the key');
});

test('invite code, invite info, revoke; revoked and unknown codes fail', async () => {
  const code = await sock.groupInviteCode(gid);
  assert.ok(code);
  const inviteInfo = await sock.groupGetInviteInfo(code!);
  assert.equal(inviteInfo.id, gid);
  assert.equal(inviteInfo.subject, 'Team');
  const fresh = await sock.groupRevokeInvite(gid);
  assert.notEqual(fresh, code);
  await assert.rejects(sock.groupGetInviteInfo(code!), (e: { data?: number }) => e.data === 410);
  await assert.rejects(sock.groupGetInviteInfo('NoSuchCode123'), (e: { data?: number }) => e.data === 406);
});

test('settings change state and send w:gp2 notifications', async () => {
  const stub = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => m.messageStubType === WAMessageStubType.GROUP_CHANGE_ANNOUNCE));
  await sock.groupSettingUpdate(gid, 'announcement');
  await stub;
  await sock.groupSettingUpdate(gid, 'locked');
  await sock.groupMemberAddMode(gid, 'all_member_add');
  await sock.groupJoinApprovalMode(gid, 'on');
  const info = await env.admin.group(gid);
  assert.equal(info.announce, true);
  assert.equal(info.locked, true);
  assert.equal(info.memberAddMode, 'all_member_add');
  assert.equal(info.joinApproval, true);
  const meta = await sock.groupMetadata(gid);
  assert.equal(meta.announce, true);
  assert.equal(meta.restrict, true);
  assert.equal(meta.memberAddMode, true);
  assert.equal(meta.joinApprovalMode, true);
  await sock.groupSettingUpdate(gid, 'not_announcement');
  const c = await env.admin.counters();
  assert.ok((c.counters['groups.notify.not_announcement'] ?? 0) >= 1);
});

test('group send with sender keys: every member decrypts; per-participant receipts', async () => {
  const receipts = new Map<string, Set<string>>();
  sock.ev.on('message-receipt.update', (ups) => {
    for (const u of ups) {
      const key = `${u.key.id}`;
      if (!receipts.has(key)) receipts.set(key, new Set());
      if (u.receipt.readTimestamp) receipts.get(key)!.add(`read:${u.receipt.userJid}`);
      if (u.receipt.receiptTimestamp) receipts.get(key)!.add(`delivered:${u.receipt.userJid}`);
    }
  });
  const sent = await sock.sendMessage(gid, { text: 'hello team' });
  const id = sent!.key.id!;
  for (const p of [BOB, CAROL]) {
    const got = await env.admin.waitForReceived(p, (m) => m.id === id);
    assert.equal(got.groupId, gid);
    assert.equal(got.text, 'hello team');
  }
  await until(() => (receipts.get(id)?.size ?? 0) >= 4, 10_000, 'delivered+read from both members');
  const second = await sock.sendMessage(gid, { text: 'second, no new SKDM' });
  await env.admin.waitForReceived(CAROL, (m) => m.id === second!.key.id && m.text === 'second, no new SKDM');
});

test('incoming group message from a contact', async () => {
  const up = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => m.message?.conversation === 'hi from bob in group'));
  await env.admin.sendAsContact({ from: BOB, to: gid, type: 'text', text: 'hi from bob in group' });
  const m = (await up).messages.find((x) => x.message?.conversation === 'hi from bob in group')!;
  assert.equal(m.key.remoteJid, gid);
  assert.match(m.key.participant!, /@lid$/);
  assert.equal(m.key.participantAlt, jid(BOB));
  const again = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((x) => x.message?.conversation === 'and again'));
  await env.admin.sendAsContact({ from: BOB, to: gid, type: 'text', text: 'and again' });
  await again;
});

test('a contact creates a group with the linked account in it', async () => {
  const up = waitForEvent(sock, 'groups.upsert', (gs) => gs.some((g) => g.subject === 'Carol group'));
  const info = await env.admin.createGroup({ creator: CAROL, subject: 'Carol group', participants: [ALICE, BOB] });
  const [g] = (await up).filter((x) => x.subject === 'Carol group');
  assert.equal(g!.id, info.jid);
});
