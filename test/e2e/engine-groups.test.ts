// Groups end to end: asynchronous creation behind a pending id (with GROUP_CREATE and auto-invites),
// metadata, settings as the network applies them, invitation links, group sends and both revokes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900003001';
const CARLA = '5511900003002';
const DAN = '5511900003003';
const EVE = '5511900003004';

describe('engine groups (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let pendingId = '';
  let groupId = '';
  let inviteLink = '';

  before(async () => {
    h = await startHarness();
    for (const [phone, name] of [[CARLA, 'Carla'], [DAN, 'Dan'], [EVE, 'Eve']] as const) await h.admin.createUser({ phone, pushName: name });
    // Eve only accepts being added by her contacts: the network refuses to add her.
    await h.admin.setGroupAddable(EVE, false);
    inst = await h.pairNew(OWNER, 'groups');
  });
  after(async () => {
    await h?.close();
  });

  const jidOf = (id: string) => `${id.replace(/-group$/, '')}@g.us`;

  test('create-group answers a pending id at once; the creation completes with an invite link and the numbers not added', async () => {
    const r = await h.call('POST', `${inst.prefix}/create-group`, { groupName: 'Team', phones: [CARLA, DAN, EVE], autoInvite: true });
    assert.equal(r.status, 200, r.body.toString());
    assert.match(String(r.json.groupId), /^pending-[0-9a-f-]{36}$/);
    assert.equal(r.json.inviteLink, null);
    pendingId = String(r.json.groupId);
    const view = await until('the creation to complete', async () => (await h.call('GET', `${inst.prefix}/groups/${pendingId}`)).json, (v) => v.status !== 'pending');
    assert.equal(view.status, 'created', JSON.stringify(view));
    groupId = String(view.phone);
    assert.match(groupId, /^\d+-group$/);
    inviteLink = String(view.inviteLink);
    assert.match(inviteLink, /^https:\/\/chat\.whatsapp\.com\/[A-Za-z0-9]+$/);
    assert.deepEqual(view.phonesNotAdded, [EVE]);
    const g = await h.admin.group(jidOf(groupId));
    assert.equal(g.subject, 'Team');
    assert.deepEqual(g.participants.map((p) => p.phone).sort(), [CARLA, DAN, OWNER].sort());
  });

  test('a GROUP_CREATE notification carries both ids, and the number not added gets the invite link', async () => {
    const n = await h.webhooks.waitFor((w) => w.body.notification === 'GROUP_CREATE', 15_000, 'GROUP_CREATE');
    assert.equal(n.body.phone, groupId);
    assert.equal(n.body.pendingGroupId, pendingId);
    assert.equal(n.body.isGroup, true);
    // The invite goes through the queue, paced: its gap is jumped.
    const isInvite = (m: { text?: string }) => (m.text ?? '').includes(inviteLink);
    const got = await h.driveUntil('Eve to get the invite link', () => h.admin.received(EVE), (ms) => ms.some(isInvite), { withinMs: 5_000 });
    assert.equal(got.find(isInvite)?.from, OWNER);
  });

  test('group-metadata (by group id or pending id) reports phones, roles and times in ms', async () => {
    for (const id of [groupId, pendingId]) {
      const r = await h.call('GET', `${inst.prefix}/group-metadata/${id}`);
      assert.equal(r.status, 200, r.body.toString());
      const g = r.json as { phone: string; owner: string; subject: string; creation: number; invitationLink: string; participants: { phone: string; lid: string | null; isAdmin: boolean; isSuperAdmin: boolean }[]; participantsCount: number };
      assert.equal(g.phone, groupId);
      assert.equal(g.owner, OWNER);
      assert.equal(g.subject, 'Team');
      assert.ok(Math.abs(g.creation - h.clock.now()) < 5 * 60_000, `creation ${g.creation} is in ms`);
      assert.equal(g.invitationLink, inviteLink);
      assert.equal(g.participantsCount, 3);
      const me = g.participants.find((p) => p.phone === OWNER);
      // Members are named by number with their LID beside it (docs/contract.md §5).
      assert.deepEqual(me, { phone: OWNER, lid: `${(await h.admin.user(OWNER)).lid}@lid`, isAdmin: true, isSuperAdmin: true });
      assert.deepEqual(g.participants.find((p) => p.phone === CARLA), { phone: CARLA, lid: `${(await h.admin.user(CARLA)).lid}@lid`, isAdmin: false, isSuperAdmin: false });
    }
  });

  test('update-group-settings is applied by the network and read back in the metadata', async () => {
    const r = await h.call('POST', `${inst.prefix}/update-group-settings`, {
      phone: groupId, adminOnlyMessage: true, adminOnlySettings: true, requireAdminApproval: true, adminOnlyAddMember: true,
    });
    assert.deepEqual(r.json, { value: true });
    const g = await h.admin.group(jidOf(groupId));
    assert.deepEqual([g.announce, g.locked, g.joinApproval, g.memberAddMode], [true, true, true, 'admin_add']);
    const meta = (await h.call('GET', `${inst.prefix}/group-metadata/${groupId}`)).json;
    assert.deepEqual([meta.adminOnlyMessage, meta.adminOnlySettings, meta.requireAdminApproval], [true, true, true]);
    await h.call('POST', `${inst.prefix}/update-group-settings`, { phone: groupId, adminOnlyMessage: false });
    assert.equal((await h.admin.group(jidOf(groupId))).announce, false);
  });

  test('group-invitation-metadata reads a link; a revoked or unknown link is 422 with the reason', async () => {
    const { inviteCode: code, jid } = await h.admin.createGroup({ creator: CARLA, subject: 'Public', participants: [DAN] });
    assert.match(code, /^[A-Za-z0-9]{22}$/, 'simnet mints invite codes in WhatsApp\'s shape');
    const ok = await h.call('GET', `${inst.prefix}/group-invitation-metadata?url=${encodeURIComponent(`https://chat.whatsapp.com/${code}`)}`);
    assert.equal(ok.status, 200, ok.body.toString());
    assert.equal(ok.json.phone, `${jid.split('@')[0]}-group`);
    assert.equal(ok.json.subject, 'Public');
    assert.equal(ok.json.owner, CARLA);
    const bad = await h.call('GET', `${inst.prefix}/group-invitation-metadata?url=${encodeURIComponent('https://chat.whatsapp.com/AAAAAAAAAAAAAAAAAAAAAA')}`);
    assert.equal(bad.status, 422, bad.body.toString());
    assert.equal(bad.json.error, 'Unable to process request');
    assert.match(String(bad.json.message), /invitation link/);
  });

  test('a group send with mentionAll reaches every member; owner=true revokes it for everyone', async () => {
    const r = await h.call('POST', `${inst.prefix}/send-text`, { phone: groupId, message: 'Hello team', mentionAll: true });
    assert.equal(r.status, 200, r.body.toString());
    const id = String(r.json.messageId);
    await h.sendQueued(inst);
    for (const member of [CARLA, DAN]) {
      const got = await h.admin.waitForReceived(member, (m) => m.id === id, 20_000);
      assert.equal(got.text, 'Hello team');
      assert.equal(got.groupId, jidOf(groupId));
      assert.match(JSON.stringify(got.raw), /"nonJidMentions":1/);
    }
    const del = await h.call('DELETE', `${inst.prefix}/messages?messageId=${id}&phone=${groupId}&owner=true`);
    assert.deepEqual(del.json, { value: true });
    await h.admin.waitForReceived(DAN, (m) => m.type === 'revoke' && m.targetId === id, 15_000);
  });

  test("owner=false in a group revokes another member's message as admin", async () => {
    const m = await h.admin.sendAsContact({ from: CARLA, to: jidOf(groupId), type: 'text', text: 'spam!' });
    const seen = await h.webhooks.waitFor((w) => w.body.messageId === m.messageId, 15_000, 'group message');
    assert.equal(seen.body.isGroup, true);
    assert.equal(seen.body.phone, groupId);
    assert.equal(seen.body.participantPhone, CARLA);
    const del = await h.call('DELETE', `${inst.prefix}/messages?messageId=${m.messageId}&phone=${groupId}&owner=false`);
    assert.equal(del.status, 200, del.body.toString());
    const revoke = await h.admin.waitForReceived(DAN, (x) => x.type === 'revoke' && x.targetId === m.messageId, 15_000);
    assert.equal(revoke.editAttr, '8');
  });
});
