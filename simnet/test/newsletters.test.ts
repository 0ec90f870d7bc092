// Channels through Baileys' own newsletter calls: create/metadata shapes it parses, GraphQL errors
// as Boom statuses, follow and mute, a post fanned out as plaintext to a follower's device, the
// promotion and demotion notifications as newsletter-participants.update.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { endSock, pairByQr, startEnv, until, waitForEvent, type SimEnv, type Sock } from './helpers.js';

const OWNER = '5511900000070';
const FAN = '5511900000071';
let env: SimEnv;
let owner: Sock;
let fan: Sock;
let jid = '';

before(async () => {
  env = await startEnv();
  ({ sock: owner } = await pairByQr(env, OWNER));
  ({ sock: fan } = await pairByQr(env, FAN));
});

after(async () => {
  await endSock(owner);
  await endSock(fan);
  await env.close();
});

test('newsletterCreate and newsletterMetadata parse what simnet answers; an unknown channel is a 404 Boom', async () => {
  const created = await owner.newsletterCreate('Simnet channel', 'About simnet');
  jid = created.id;
  assert.match(jid, /^\d+@newsletter$/);
  assert.deepEqual([created.name, created.description, created.subscribers, created.mute_state], ['Simnet channel', 'About simnet', 0, 'OFF']);
  const meta = (await owner.newsletterMetadata('jid', jid)) as unknown as { id: string; viewer_metadata: { role: string } };
  assert.deepEqual([meta.id, meta.viewer_metadata.role], [jid, 'OWNER']);
  await assert.rejects(owner.newsletterMetadata('jid', '1234567890@newsletter'), (e: { output?: { statusCode?: number } }) => e.output?.statusCode === 404);
  await owner.newsletterUpdateName(jid, 'Renamed');
  assert.equal((await env.admin.newsletter(jid)).name, 'Renamed');
});

test('a follower follows and mutes; a non-admin cannot remove the owner\'s rights', async () => {
  await fan.newsletterFollow(jid);
  await fan.newsletterMute(jid);
  assert.deepEqual((await env.admin.newsletter(jid)).followers, [{ phone: FAN, muted: true }]);
  await assert.rejects(fan.newsletterDemote(jid, `${OWNER}@s.whatsapp.net`), (e: { output?: { statusCode?: number } }) => e.output?.statusCode === 403);
  assert.equal(await owner.newsletterAdminCount(jid), 1);
});

test('a post is acked with a server id and reaches the follower\'s device as plaintext', async () => {
  const upsert = waitForEvent(fan, 'messages.upsert', (u) => u.messages.some((m) => m.key.remoteJid === jid));
  const sent = await owner.sendMessage(jid, { text: 'first post' });
  const got = (await upsert).messages.find((m) => m.key.remoteJid === jid)!;
  assert.equal(got.key.id, sent?.key.id);
  assert.equal(got.message?.conversation ?? got.message?.extendedTextMessage?.text, 'first post');
  assert.ok((got.key as { server_id?: string }).server_id, 'the server id is on the key');
  const rec = await env.admin.waitForReceived(FAN, (m) => m.id === sent?.key.id);
  assert.equal(rec.newsletter, jid);
  // A follower's post is refused: nothing is kept.
  const seen = async () => (await env.admin.counters()).counters['messages.in'] ?? 0;
  const before = await seen();
  const refused = await fan.sendMessage(jid, { text: 'not allowed' });
  await until(async () => (await seen()) > before, 5_000, 'the refused post to arrive');
  assert.equal((await env.admin.newsletter(jid)).posts.some((p) => p.id === refused?.key.id), false);
});

test('accepting an admin invite and a demotion are heard as newsletter-participants.update', async () => {
  await env.admin.newsletterAction({ newsletter: jid, actor: OWNER, action: 'invite', participant: FAN });
  const promoted = waitForEvent(owner, 'newsletter-participants.update', (u) => u.action === 'promote');
  await fan.query({
    tag: 'iq',
    attrs: { id: fan.generateMessageTag(), type: 'get', to: 's.whatsapp.net', xmlns: 'w:mex' },
    content: [{ tag: 'query', attrs: { query_id: '9580828702035549' }, content: Buffer.from(JSON.stringify({ variables: { newsletter_id: jid } })) }],
  });
  const p = await promoted;
  assert.deepEqual([p.id, p.user, p.new_role], [jid, `${FAN}@s.whatsapp.net`, 'ADMIN']);
  assert.deepEqual((await env.admin.newsletter(jid)).admins, [FAN]);
  const demoted = waitForEvent(fan, 'newsletter-participants.update', (u) => u.action === 'demote');
  await owner.newsletterDemote(jid, `${FAN}@s.whatsapp.net`);
  assert.deepEqual([(await demoted).new_role, (await env.admin.newsletter(jid)).admins], ['SUBSCRIBER', []]);
});
