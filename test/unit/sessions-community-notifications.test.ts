// The w:gp2 community notifications Baileys drops → stub messages in the API's spelling; anything
// else (or a malformed one) is left to Baileys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { proto, type BinaryNode } from 'baileys';
import { communityChangeOf } from '../../src/sessions/inbound/community-notifications.js';

const Stub = proto.WebMessageInfo.StubType;
const PARENT = '120363000000000001@g.us';
const GROUP = '120363000000000002@g.us';

function notification(from: string, change: BinaryNode): BinaryNode {
  return { tag: 'notification', attrs: { from, type: 'w:gp2', id: 'N1', t: '1764000000', participant: '111@lid', participant_pn: '5511900000001@s.whatsapp.net' }, content: [change] };
}

test('link and unlink, seen from the community and from the group', () => {
  const sub = communityChangeOf(notification(PARENT, { tag: 'link', attrs: { link_type: 'sub_group' }, content: [{ tag: 'group', attrs: { jid: GROUP, subject: 'Parking' } }] }));
  assert.equal(sub?.message.messageStubType, Stub.COMMUNITY_LINK_SUB_GROUP);
  assert.deepEqual(sub?.message.messageStubParameters, ['120363000000000002-group', 'Parking']);
  assert.deepEqual(sub?.message.key, { remoteJid: PARENT, id: 'N1', fromMe: false, participant: '111@lid', participantAlt: '5511900000001@s.whatsapp.net' });
  assert.equal(sub?.message.messageTimestamp, 1764000000);
  assert.deepEqual(sub?.groups, [PARENT, GROUP], 'both groups\' cached metadata is outdated');

  const parent = communityChangeOf(notification(GROUP, { tag: 'unlink', attrs: { unlink_type: 'parent_group', unlink_reason: 'delete_parent' }, content: [{ tag: 'group', attrs: { jid: PARENT, subject: 'Neighbours' } }] }));
  assert.equal(parent?.message.messageStubType, Stub.COMMUNITY_UNLINK_PARENT_GROUP);
  assert.deepEqual(parent?.message.messageStubParameters, ['120363000000000001', 'Neighbours'], 'a community by its digits');
});

test('deactivation and the sub-group setting', () => {
  const deleted = communityChangeOf(notification(PARENT, { tag: 'delete', attrs: { reason: 'delete_parent' } }));
  assert.equal(deleted?.message.messageStubType, Stub.COMMUNITY_PARENT_GROUP_DELETED);
  assert.deepEqual(deleted?.message.messageStubParameters, []);
  const on = communityChangeOf(notification(PARENT, { tag: 'allow_non_admin_sub_group_creation', attrs: {} }));
  const off = communityChangeOf(notification(PARENT, { tag: 'not_allow_non_admin_sub_group_creation', attrs: {} }));
  assert.deepEqual([on?.message.messageStubParameters, off?.message.messageStubParameters], [['on'], ['off']]);
});

test('what is not a community change is left alone', () => {
  assert.equal(communityChangeOf(notification(PARENT, { tag: 'subject', attrs: { subject: 'x' } })), null, 'Baileys reports subjects');
  assert.equal(communityChangeOf(notification(PARENT, { tag: 'delete', attrs: { reason: 'other' } })), null, 'only a deactivated community');
  assert.equal(communityChangeOf(notification(PARENT, { tag: 'link', attrs: { link_type: 'sibling_group' }, content: [{ tag: 'group', attrs: { jid: GROUP } }] })), null, 'unknown link type');
  assert.equal(communityChangeOf(notification(PARENT, { tag: 'link', attrs: { link_type: 'sub_group' } })), null, 'no group named');
  assert.equal(communityChangeOf({ tag: 'notification', attrs: { from: PARENT, type: 'w:gp2' }, content: [{ tag: 'delete', attrs: { reason: 'delete_parent' } }] }), null, 'no id');
});
