// Channels (newsletters) end to end (gateway + Baileys + simnet): create, metadata, edits and
// settings, follow/mute from a second instance, the list and the directory search, posting with
// the send endpoints (a post reaches the follower: on simnet and as its ReceivedCallback), admin
// invites (sent, revoked, accepted) with the NEWSLETTER_ADMIN_* notifications, removal of an
// admin, deletion and ownership transfer; each change is checked on the network's side.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { makeTestMedia } from '../helpers/media-tools.js';
import { startHarness, until, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511900007001';
const FOLLOWER = '5511900007002';
const CARLA = '5511900007003';

describe('engine channels (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let owner: Instance;
  let follower: Instance;
  let channel = '';
  const call = async (inst: Instance, method: string, path: string, body?: unknown, status = 200) => {
    const r = await h.call(method, `${inst.prefix}/${path}`, body);
    assert.equal(r.status, status, `${method} ${path}: ${r.body.toString()}`);
    // A send is queued behind a pacing gap (protocol time): jumped, not waited out.
    if (path.startsWith('send-') && r.status === 200) await h.sendQueued(inst);
    return r;
  };
  const hookFor = (inst: Instance, match: (b: Record<string, unknown>) => boolean, what: string): Promise<WebhookHit> =>
    h.webhooks.waitFor((hit) => hit.path === `/${inst.instanceId}` && match(hit.body), 20_000, what);

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    owner = await h.pairNew(OWNER, 'channel-owner');
    follower = await h.pairNew(FOLLOWER, 'channel-follower');
    const created = await call(owner, 'POST', 'create-newsletter', { name: 'Zapgate news', description: 'Releases and notes' }, 201);
    channel = String(created.json.id);
    assert.match(channel, /^\d+@newsletter$/, JSON.stringify(created.json));
  });
  after(async () => {
    await h?.close();
  });

  test('create-newsletter makes the channel on the network, owned by the instance; metadata answers Z-API\'s shape', async () => {
    const n = await h.admin.newsletter(channel);
    assert.deepEqual([n.owner, n.name, n.description, n.deleted], [OWNER, 'Zapgate news', 'Releases and notes', false]);
    const meta = (await call(owner, 'GET', `newsletter/metadata/${channel}`)).json;
    assert.deepEqual(
      [meta.id, meta.name, meta.description, meta.state, meta.subscribersCount, meta.verification, meta.picture, meta.viewMetadata],
      [channel, 'Zapgate news', 'Releases and notes', 'ACTIVE', '0', 'UNVERIFIED', null, { mute: 'OFF', role: 'OWNER' }],
    );
    assert.equal(meta.inviteLink, `https://whatsapp.com/channel/${n.inviteCode}`);
    assert.ok(Math.abs(Number(meta.creationTime) - n.creation) <= 1, `creationTime in seconds: ${String(meta.creationTime)}`);
    assert.equal((await h.call('POST', `${owner.prefix}/create-newsletter`, { name: '   ' })).status, 400, 'a blank name is refused');
    assert.equal((await h.call('GET', `${owner.prefix}/newsletter/metadata/12345`)).status, 400, 'an id without @newsletter is refused');
    assert.equal((await h.call('GET', `${owner.prefix}/newsletter/metadata/99999999999@newsletter`)).status, 404, 'an unknown channel is 404');
  });

  test('name, description, picture and reaction settings are changed on the network', async () => {
    assert.deepEqual((await call(owner, 'POST', 'update-newsletter-name', { id: channel, name: 'Zapgate releases' }, 201)).json, { value: true });
    assert.deepEqual((await call(owner, 'POST', 'update-newsletter-description', { id: channel, description: 'Every release, as it ships' }, 201)).json, { value: true });
    const png = await sharp({ create: { width: 640, height: 640, channels: 3, background: { r: 200, g: 60, b: 20 } } }).png().toBuffer();
    assert.deepEqual((await call(owner, 'POST', 'update-newsletter-picture', { id: channel, pictureUrl: `data:image/png;base64,${png.toString('base64')}` }, 201)).json, { value: true });
    assert.deepEqual((await call(owner, 'POST', `newsletter/settings/${channel}`, { reactionCodes: 'basic' }, 201)).json, { value: true });
    const n = await h.admin.newsletter(channel);
    assert.deepEqual([n.name, n.description, n.reactionCodes], ['Zapgate releases', 'Every release, as it ships', 'BASIC']);
    assert.ok((n.pictureBytes ?? 0) > 0, `the picture is on the network: ${String(n.pictureBytes)}`);
    const meta = (await call(owner, 'GET', `newsletter/metadata/${channel}`)).json;
    assert.match(String(meta.picture), /^https:\/\/.+/, 'metadata names the picture\'s URL');
    assert.equal((await h.call('POST', `${owner.prefix}/newsletter/settings/${channel}`, { reactionCodes: 'some' })).status, 400);
    const bad = await h.call('POST', `${owner.prefix}/update-newsletter-picture`, { id: channel, pictureUrl: `data:image/png;base64,${Buffer.from('not an image').toString('base64')}` });
    assert.equal(bad.status, 400, bad.body.toString());
  });

  test('another instance follows, mutes and unmutes; the list and the search find the channel', async () => {
    assert.deepEqual((await call(follower, 'PUT', 'follow-newsletter', { id: channel })).json, { value: true });
    assert.deepEqual((await h.admin.newsletter(channel)).followers, [{ phone: FOLLOWER, muted: false }]);
    await call(follower, 'PUT', 'mute-newsletter', { id: channel });
    assert.deepEqual((await h.admin.newsletter(channel)).followers, [{ phone: FOLLOWER, muted: true }]);
    const seen = (await call(follower, 'GET', `newsletter/metadata/${channel}`)).json;
    assert.deepEqual([seen.viewMetadata, seen.subscribersCount], [{ mute: 'ON', role: 'SUBSCRIBER' }, '1']);
    await call(follower, 'PUT', 'unmute-newsletter', { id: channel });
    assert.deepEqual((await h.admin.newsletter(channel)).followers, [{ phone: FOLLOWER, muted: false }]);

    const listed = JSON.parse((await call(follower, 'GET', 'newsletter')).body.toString()) as { id: string; viewMetadata: { role: string } }[];
    assert.deepEqual(listed.map((c) => [c.id, c.viewMetadata.role]), [[channel, 'SUBSCRIBER']]);
    const search = async (body: unknown) => (JSON.parse((await call(follower, 'POST', 'search-newsletter', body)).body.toString()) as { id: string }[]).map((c) => c.id);
    assert.deepEqual(await search({ limit: 10, filters: {}, searchText: 'releases' }), [channel], 'found by its name');
    assert.deepEqual(await search({ limit: 10, filters: {}, searchText: 'nothing like it' }), []);
    assert.ok((await search({ limit: 10, view: 'POPULAR', filters: { countryCodes: ['BR'] } })).includes(channel), 'a Brazilian channel (its owner is +55)');
    assert.deepEqual(await search({ limit: 10, view: 'NEW', filters: { countryCodes: ['US'] } }), []);
    assert.equal((await h.call('POST', `${follower.prefix}/search-newsletter`, { limit: 0, filters: {} })).status, 400);
    assert.equal((await h.call('POST', `${follower.prefix}/search-newsletter`, { limit: 5, view: 'SOON', filters: {} })).status, 400);
  });

  test('a post sent to the channel (text and image) reaches the follower: on the network and as its ReceivedCallback', async () => {
    const sent = (await call(owner, 'POST', 'send-text', { phone: channel, message: 'Version 1.0 is out' })).json;
    const hit = await hookFor(follower, (b) => b.type === 'ReceivedCallback' && b.messageId === sent.messageId, 'the post at the follower');
    assert.deepEqual([hit.body.phone, hit.body.isNewsletter, hit.body.isGroup, hit.body.fromMe, (hit.body.text as { message?: string } | undefined)?.message], [channel, true, false, false, 'Version 1.0 is out']);
    const onNet = await h.admin.waitForReceived(FOLLOWER, (m) => m.id === sent.messageId);
    assert.deepEqual([onNet.text, onNet.newsletter, onNet.from], ['Version 1.0 is out', channel, OWNER]);
    await until('the delivery report', async () => h.webhooks.hits.find((x) => x.path === `/${owner.instanceId}` && x.body.type === 'DeliveryCallback' && x.body.messageId === sent.messageId), (x) => !!x);

    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 10, g: 160, b: 90 } } }).png().toBuffer();
    const image = (await call(owner, 'POST', 'send-image', { phone: channel, image: `data:image/png;base64,${png.toString('base64')}`, caption: 'The new logo' })).json;
    const post = await until('the image post on the network', () => h.admin.newsletter(channel), (n) => n.posts.some((p) => p.id === image.messageId));
    const kept = post.posts.find((p) => p.id === image.messageId)!;
    assert.deepEqual([kept.type, kept.caption, kept.author], ['imageMessage', 'The new logo', OWNER]);
    assert.ok((kept.mediaBytes ?? 0) > 0, `the image was uploaded (channel media is not encrypted): ${JSON.stringify(kept)}`);
    const got = await hookFor(follower, (b) => b.messageId === image.messageId, 'the image post at the follower');
    const shown = got.body.image as { caption?: string; imageUrl?: string } | undefined;
    assert.equal(shown?.caption, 'The new logo');
    // Channel media is not encrypted: the follower's gateway fetches it as is, checked by its hash.
    const res = await fetch(String(shown?.imageUrl));
    const file = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200, file.toString().slice(0, 200));
    assert.equal(file.length, kept.mediaBytes, 'the follower has the file the network holds');
    assert.equal((await sharp(file).metadata()).width, 320, 'and it is the image');

    const doc = await h.call('POST', `${owner.prefix}/send-document/pdf`, { phone: channel, document: 'https://example.com/a.pdf' });
    assert.equal(doc.status, 400, doc.body.toString());
    assert.match(doc.body.toString(), /Document not available to channels/);
    const modify = await h.call('POST', `${follower.prefix}/modify-chat`, { phone: channel, action: 'archive' });
    assert.equal(modify.status, 400, modify.body.toString());
    assert.match(modify.body.toString(), /ModifyChat not available to channels/);
    const stranger = await h.call('POST', `${follower.prefix}/send-text`, { phone: channel, message: 'not mine to post' });
    assert.equal(stranger.status, 200, 'queued; the network refuses it');
    await h.sendQueued(follower);
    const failed = await hookFor(follower, (b) => b.type === 'DeliveryCallback' && b.messageId === stranger.json.messageId, 'the refused post');
    assert.ok(failed.body.error, `a follower may not post: ${JSON.stringify(failed.body)}`);
    assert.equal((await h.admin.newsletter(channel)).posts.some((p) => p.id === stranger.json.messageId), false);
  });

  test('audio and video posts reach the follower too, their files fetched as the network holds them', async () => {
    const media = await makeTestMedia();
    try {
      const cases = [
        ['send-audio', { audio: `data:audio/mpeg;base64,${media.mp3.toString('base64')}` }, 'audioMessage', 'audio', 'audioUrl'],
        ['send-video', { video: `data:video/mp4;base64,${media.mp4.toString('base64')}`, caption: 'Demo' }, 'videoMessage', 'video', 'videoUrl'],
      ] as const;
      for (const [path, body, kind, key, urlKey] of cases) {
        const sent = (await call(owner, 'POST', path, { phone: channel, ...body })).json;
        const n = await until(`the ${kind} post on the network`, () => h.admin.newsletter(channel), (c) => c.posts.some((p) => p.id === sent.messageId));
        const kept = n.posts.find((p) => p.id === sent.messageId)!;
        assert.equal(kept.type, kind, JSON.stringify(kept));
        assert.ok((kept.mediaBytes ?? 0) > 0, `${kind} uploaded: ${JSON.stringify(kept)}`);
        const hit = await hookFor(follower, (b) => b.messageId === sent.messageId, `the ${kind} post at the follower`);
        const url = String((hit.body[key] as Record<string, unknown> | undefined)?.[urlKey]);
        const res = await fetch(url);
        const file = Buffer.from(await res.arrayBuffer());
        assert.equal(res.status, 200, `${kind}: ${file.toString().slice(0, 200)}`);
        assert.equal(file.length, kept.mediaBytes, `${kind}: the follower has the file the network holds`);
      }
    } finally {
      media.close();
    }
  });

  test('admin invites: sent as a message, revoked, accepted; the promotion and the removal arrive as NEWSLETTER_ADMIN_* notifications', async () => {
    const invite = { newsletterId: channel, caption: 'Help me run the channel' };
    const toCarla = (await call(owner, 'POST', 'send-newsletter-admin-invite', { phone: CARLA, adminInviteMessage: invite })).json;
    assert.ok(toCarla.zaapId && toCarla.messageId, JSON.stringify(toCarla));
    const msg = await h.admin.waitForReceived(CARLA, (m) => m.id === toCarla.messageId, 20_000);
    const raw = msg.raw as { newsletterAdminInviteMessage?: { newsletterJid?: string; caption?: string; newsletterName?: string } };
    assert.deepEqual([raw.newsletterAdminInviteMessage?.newsletterJid, raw.newsletterAdminInviteMessage?.caption, raw.newsletterAdminInviteMessage?.newsletterName], [channel, 'Help me run the channel', 'Zapgate releases']);
    assert.deepEqual((await h.admin.newsletter(channel)).adminInvites.map((i) => i.phone), [CARLA]);
    await call(owner, 'POST', `newsletter/revoke-admin-invite/${channel}`, { phone: CARLA }, 201);
    assert.deepEqual((await h.admin.newsletter(channel)).adminInvites, [], 'the invite is revoked on the network');
    assert.equal((await h.call('POST', `${owner.prefix}/newsletter/revoke-admin-invite/${channel}`, { phone: CARLA })).status, 422, 'no invite left to revoke');

    // The follower instance is invited, gets the invitation, accepts it and hears its promotion.
    await call(owner, 'POST', 'send-newsletter-admin-invite', { phone: FOLLOWER, adminInviteMessage: invite });
    const got = await hookFor(follower, (b) => !!b.newsletterAdminInvite, 'the invitation at the follower');
    const inv = got.body.newsletterAdminInvite as { newsletterId: string; newsletterName: string; text: string; inviteExpiration: number };
    assert.deepEqual([inv.newsletterId, inv.newsletterName, inv.text, got.body.phone], [channel, 'Zapgate releases', 'Help me run the channel', OWNER]);
    assert.ok(inv.inviteExpiration > h.clock.now() / 1000, `expires in the future: ${inv.inviteExpiration}`);
    await call(follower, 'POST', `newsletter/accept-admin-invite/${channel}`, undefined, 201);
    assert.deepEqual((await h.admin.newsletter(channel)).admins, [FOLLOWER]);
    for (const inst of [follower, owner]) {
      const note = await hookFor(inst, (b) => b.notification === 'NEWSLETTER_ADMIN_PROMOTE', 'NEWSLETTER_ADMIN_PROMOTE');
      assert.deepEqual([note.body.phone, note.body.notificationParameters], [channel, [FOLLOWER, 'ADMIN']]);
    }
    assert.equal((await call(follower, 'GET', `newsletter/metadata/${channel}`)).json.viewMetadata && ((await call(follower, 'GET', `newsletter/metadata/${channel}`)).json.viewMetadata as { role: string }).role, 'ADMIN');

    await call(owner, 'POST', `newsletter/remove-admin/${channel}`, { phone: FOLLOWER }, 201);
    assert.deepEqual((await h.admin.newsletter(channel)).admins, []);
    const demoted = await hookFor(follower, (b) => b.notification === 'NEWSLETTER_ADMIN_DEMOTE', 'NEWSLETTER_ADMIN_DEMOTE');
    assert.deepEqual([demoted.body.phone, demoted.body.notificationParameters], [channel, [FOLLOWER, 'SUBSCRIBER']]);
    assert.equal((await h.call('POST', `${follower.prefix}/newsletter/accept-admin-invite/${channel}`)).status, 422, 'no invite to accept any more');
  });

  test('a post by another admin on the network reaches the follower instance', async () => {
    await call(owner, 'POST', 'send-newsletter-admin-invite', { phone: CARLA, adminInviteMessage: { newsletterId: channel, caption: 'Again?' } });
    await h.admin.newsletterAction({ newsletter: channel, actor: CARLA, action: 'accept' });
    await hookFor(owner, (b) => b.notification === 'NEWSLETTER_ADMIN_PROMOTE' && JSON.stringify(b.notificationParameters) === JSON.stringify([CARLA, 'ADMIN']), 'Carla\'s promotion at the owner');
    const posted = await h.admin.newsletterAction({ newsletter: channel, actor: CARLA, action: 'post', text: 'Hello from Carla' });
    assert.ok((posted.reached ?? []).includes(FOLLOWER), JSON.stringify(posted.reached));
    const hit = await hookFor(follower, (b) => (b.text as { message?: string } | undefined)?.message === 'Hello from Carla', 'Carla\'s post');
    assert.deepEqual([hit.body.phone, hit.body.isNewsletter], [channel, true]);
  });

  test('an instance that is not connected answers 409, as the group endpoints do; bad input is 400 first', async () => {
    const idle = await h.createInstance('channel-idle');
    for (const [method, path, body] of [['GET', 'newsletter', undefined], ['PUT', 'follow-newsletter', { id: channel }], ['POST', 'create-newsletter', { name: 'x' }], ['GET', `newsletter/metadata/${channel}`, undefined]] as const) {
      const r = await h.call(method, `${idle.prefix}/${path}`, body);
      assert.equal(r.status, 409, `${path}: ${r.body.toString()}`);
    }
    assert.equal((await h.call('PUT', `${idle.prefix}/follow-newsletter`, { id: 'abc' })).status, 400);
  });

  test('unfollow, delete and transfer-ownership change the channel on the network', async () => {
    await call(follower, 'PUT', 'unfollow-newsletter', { id: channel });
    assert.deepEqual((await h.admin.newsletter(channel)).followers, []);

    const temp = String((await call(owner, 'POST', 'create-newsletter', { name: 'Temporary' }, 201)).json.id);
    assert.deepEqual((await call(owner, 'DELETE', 'delete-newsletter', { id: temp })).json, { value: true });
    assert.equal((await h.admin.newsletter(temp)).deleted, true);
    assert.equal((await h.call('GET', `${owner.prefix}/newsletter/metadata/${temp}`)).status, 404, 'a deleted channel is gone');

    const refused = await h.call('POST', `${owner.prefix}/newsletter/transfer-ownership/${channel}`, { phone: FOLLOWER });
    assert.equal(refused.status, 422, `only an admin can become the owner: ${refused.body.toString()}`);
    assert.deepEqual((await call(owner, 'POST', `newsletter/transfer-ownership/${channel}`, { phone: CARLA, quitAdmin: true })).json, { value: true });
    const n = await h.admin.newsletter(channel);
    assert.deepEqual([n.owner, n.admins], [CARLA, []], 'Carla owns it; the former owner quit being an admin');
    assert.equal((await h.call('DELETE', `${owner.prefix}/delete-newsletter`, { id: channel })).status, 422, 'no longer the owner');
  });
});
