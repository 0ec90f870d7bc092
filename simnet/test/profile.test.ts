// The account's own settings as the server keeps them, driven by a raw Baileys socket: push name by
// app-state patch, about (status + usync), profile picture (set, served, hidden by privacy),
// privacy categories and their lists, the default disappearing timer, and the blocklist, whose
// effect is that the blocker gets nothing from whom it blocked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { endSock, pairByQr, startEnv, until, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000160';
const BOB = '5511900000161';
const CARLA = '5511900000162';
const pn = (p: string) => `${p}@s.whatsapp.net`;

let env: SimEnv;
let alice: Sock;
let bob: Sock;
const aliceGot: string[] = [];

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: CARLA, pushName: 'Carla' });
  ({ sock: alice } = await pairByQr(env, ALICE));
  ({ sock: bob } = await pairByQr(env, BOB));
  alice.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) if (m.key.id) aliceGot.push(m.key.id);
  });
});

after(async () => {
  await endSock(alice);
  await endSock(bob);
  await env.close();
});

test('push name: the device\'s app-state patch (setting_pushName) becomes the name contacts see', async () => {
  await until(() => alice.authState.creds.myAppStateKeyId, 10_000, 'the app-state key shared by the phone');
  await alice.updateProfileName('Alice Cooper');
  const profile = await until(async () => {
    const p = await env.admin.profile(ALICE);
    return p.pushName === 'Alice Cooper' ? p : undefined;
  }, 5000, 'the push name on the server');
  assert.equal(profile.pushName, 'Alice Cooper');
  assert.equal((await env.admin.user(ALICE)).pushName, 'Alice Cooper', 'the account\'s name everywhere');
});

test('about: set by the device, read back by usync status (default before)', async () => {
  const before = await bob.fetchStatus(pn(ALICE));
  assert.equal((before?.[0] as { status?: { status?: string } }).status?.status, 'Hey there! I am using WhatsApp.', 'the default about');
  await alice.updateProfileStatus('Out fishing');
  assert.equal((await env.admin.profile(ALICE)).about, 'Out fishing');
  const after = await bob.fetchStatus(pn(ALICE));
  assert.equal((after?.[0] as { status?: { status?: string } }).status?.status, 'Out fishing', 'another account sees the new about');
});

test('profile picture: stored byte for byte, its URL served to others, hidden by privacy "none"', async () => {
  const jpeg = await sharp({ create: { width: 640, height: 640, channels: 3, background: { r: 1, g: 2, b: 3 } } }).jpeg().toBuffer();
  await assert.rejects(bob.profilePictureUrl(pn(ALICE), 'image'), (e: { data?: unknown }) => e.data === 404, 'no picture yet → 404');
  await alice.updateProfilePicture(pn(ALICE), jpeg);
  const profile = await env.admin.profile(ALICE);
  assert.ok(profile.picture, 'a picture is stored');
  const stored = await env.admin.profilePicture(ALICE);
  assert.equal((await sharp(stored).metadata()).format, 'jpeg', 'what the device uploaded (Baileys re-encodes to JPEG)');
  assert.equal(await bob.profilePictureUrl(pn(ALICE), 'image'), profile.picture.url, 'another account gets the URL');

  await alice.updateProfilePicturePrivacy('none');
  assert.equal((await env.admin.profile(ALICE)).privacy.profile, 'none');
  await assert.rejects(bob.profilePictureUrl(pn(ALICE), 'image'), (e: { data?: unknown }) => e.data === 401, 'hidden → 401');
  assert.equal(await alice.profilePictureUrl(pn(ALICE), 'image'), profile.picture.url, 'the owner still sees it');
  await alice.updateProfilePicturePrivacy('all');
});

test('privacy: each category set by the device is stored and read back by fetchPrivacySettings', async () => {
  await alice.updateLastSeenPrivacy('contacts');
  await alice.updateOnlinePrivacy('match_last_seen');
  await alice.updateStatusPrivacy('none');
  await alice.updateReadReceiptsPrivacy('none');
  await alice.updateGroupsAddPrivacy('contacts');
  const settings = await alice.fetchPrivacySettings(true);
  assert.equal(settings.last, 'contacts');
  assert.equal(settings.online, 'match_last_seen');
  assert.equal(settings.status, 'none');
  assert.equal(settings.readreceipts, 'none');
  assert.equal(settings.groupadd, 'contacts');
  assert.deepEqual((await env.admin.profile(ALICE)).privacy, { ...settings }, 'the admin view is the same');
  const hidden = await bob.fetchStatus(pn(ALICE));
  assert.equal((hidden?.[0] as { status?: { status?: string | null } }).status?.status ?? null, null, 'about hidden by status=none');
  await alice.updateStatusPrivacy('all');
  await alice.updateGroupsAddPrivacy('all');
});

test('privacy lists: <user action> changes in a contact_blacklist category; the list is readable', async () => {
  const set = (users: { jid: string; action: string }[]) =>
    alice.query({
      tag: 'iq',
      attrs: { xmlns: 'privacy', to: 's.whatsapp.net', type: 'set' },
      content: [{ tag: 'privacy', attrs: {}, content: [{ tag: 'category', attrs: { name: 'last', value: 'contact_blacklist' }, content: users.map((u) => ({ tag: 'user', attrs: u })) }] }],
    });
  await set([{ jid: pn(BOB), action: 'add' }, { jid: pn(CARLA), action: 'add' }]);
  await set([{ jid: pn(CARLA), action: 'remove' }]);
  assert.deepEqual((await env.admin.profile(ALICE)).disallowed, { last: [BOB] });
  const answer = await alice.query({
    tag: 'iq',
    attrs: { xmlns: 'privacy', to: 's.whatsapp.net', type: 'get' },
    content: [{ tag: 'privacy', attrs: {}, content: [{ tag: 'list', attrs: { name: 'last', value: 'contact_blacklist' } }] }],
  });
  const privacy = (answer.content as { tag: string; content: { tag: string; content: { attrs: { jid: string } }[] }[] }[])[0];
  assert.deepEqual(privacy?.content[0]?.content.map((u) => u.attrs.jid), [pn(BOB)]);
});

test('default disappearing timer: stored in seconds', async () => {
  await alice.updateDefaultDisappearingMode(86_400);
  assert.equal((await env.admin.profile(ALICE)).disappearingSeconds, 86_400);
});

test('blocklist: a blocked contact\'s messages are dropped by the server; unblocked, they are delivered', async () => {
  await alice.updateBlockStatus(pn(CARLA), 'block');
  assert.deepEqual((await env.admin.profile(ALICE)).blocked, [CARLA]);
  assert.deepEqual(await alice.fetchBlocklist(), [pn(CARLA)], 'the device reads its blocklist back');
  const dropped = await env.admin.sendAsContact({ from: CARLA, to: ALICE, type: 'text', text: 'hello?' });
  assert.equal(dropped.dropped, true, 'the server took it and did not deliver it');

  await alice.updateBlockStatus(pn(CARLA), 'unblock');
  assert.deepEqual((await env.admin.profile(ALICE)).blocked, []);
  const delivered = await env.admin.sendAsContact({ from: CARLA, to: ALICE, type: 'text', text: 'hello again' });
  await until(() => aliceGot.includes(delivered.messageId), 5000, 'the message after unblocking');
  // Had the first one been delivered, it would have come before this one, from the same contact.
  assert.equal(aliceGot.includes(dropped.messageId), false, 'nothing reached the blocker');
});
