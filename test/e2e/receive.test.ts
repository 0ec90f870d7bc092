// The receive side end to end: a simnet contact sends every kind of message to an instance paired
// by the real gateway (real Baileys), and each arrives at the received webhook in Z-API's shape;
// media links serve exactly the bytes the contact sent and refuse tampered or expired links; messages
// sent while the gateway was stopped or its link was down arrive once each, in order; a slow media
// host for one instance holds up nobody else's events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { request } from 'undici';
import { Value } from '@sinclair/typebox/value';
import { MediaUrlSigner } from '../../src/media/signed-urls.js';
import {
  ConnectedCallbackSchema,
  DeliveryCallbackSchema,
  DisconnectedCallbackSchema,
  MessageStatusCallbackSchema,
  PresenceChatCallbackSchema,
  ReceivedCallbackSchema,
} from '../../src/http/schemas/callbacks.js';
import { startHarness, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511999996001';
const OTHER_OWNER = '5511999996002';
const CONTACT = '5511988886001';
const SLOW_CONTACT = '5511988886002';

type Payload = Record<string, unknown>;

describe('receiving: every kind, media links, catch-up (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let png: Buffer;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CONTACT, pushName: 'Carla' });
    await h.admin.createUser({ phone: SLOW_CONTACT, pushName: 'Slow' });
    inst = await h.pairNew(OWNER, 'rx');
    png = await sharp({ create: { width: 48, height: 32, channels: 3, background: { r: 200, g: 10, b: 40 } } }).png().toBuffer();
  });

  after(async () => {
    await h.close();
  });

  const received = (instanceId: string): Payload[] =>
    h.webhooks.hits.filter((x) => x.path === `/${instanceId}` && x.body.type === 'ReceivedCallback').map((x) => x.body);

  async function arrival(messageId: string, instance = inst, timeoutMs = 20_000): Promise<Payload> {
    const hit = await h.webhooks.waitFor(
      (x: WebhookHit) => x.path === `/${instance.instanceId}` && x.body.type === 'ReceivedCallback' && x.body.messageId === messageId,
      timeoutMs,
      `ReceivedCallback ${messageId}`,
    );
    return hit.body;
  }

  /**
   * Resolves once a text the contact sends now has arrived: the network delivers a chat's messages
   * in order and the gateway reports them in order, so a duplicate of any earlier one (a replay)
   * would have been reported by then.
   */
  async function afterAllOf(ids: readonly string[]): Promise<void> {
    await arrival(await send({ type: 'text', text: `after ${ids.length} messages` }));
  }

  async function send(req: Record<string, unknown>, from = CONTACT, to = OWNER): Promise<string> {
    const { messageId } = await h.admin.sendAsContact({ from, to, ...req } as Parameters<Harness['admin']['sendAsContact']>[0]);
    return messageId;
  }

  async function fetchMedia(url: string): Promise<{ status: number; body: Buffer; type: string | undefined }> {
    const res = await request(url, { headersTimeout: 60_000, bodyTimeout: 60_000 });
    const body = Buffer.from(await res.body.arrayBuffer());
    return { status: res.statusCode, body, type: res.headers['content-type'] as string | undefined };
  }

  test('text, link, reply, forward, location, contact(s), poll, reaction: Z-API fields, phones not LIDs', async () => {
    const text = await arrival(await send({ type: 'text', text: 'hello there', forwarded: true, expirationSeconds: 86400 }));
    assert.deepEqual(text.text, { message: 'hello there' });
    assert.equal(text.phone, CONTACT);
    assert.equal(text.fromMe, false);
    assert.equal(text.status, 'RECEIVED');
    assert.equal(text.senderName, 'Carla');
    assert.equal(text.isGroup, false);
    assert.equal(text.isNewsletter, false);
    assert.equal(text.broadcast, false);
    assert.equal(text.isEdit, false);
    assert.equal(text.isStatusReply, false);
    assert.equal(text.fromApi, false);
    assert.equal(text.forwarded, true);
    assert.equal(text.messageExpirationSeconds, 86400);
    assert.equal(text.connectedPhone, OWNER);
    assert.equal(text.instanceId, inst.instanceId);
    // docs/contract.md §5: people are phones, with Z-API's LID fields beside them.
    const lid = `${(await h.admin.user(CONTACT)).lid}@lid`;
    assert.deepEqual([text.chatLid, text.senderLid, text.participantLid], [lid, lid, null]);
    assert.ok(typeof text.momment === 'number' && Math.abs(Number(text.momment) - h.clock.now()) < 60_000, `momment ${String(text.momment)}`);

    const reply = await arrival(await send({ type: 'reply', text: 'answering', quotedId: String(text.messageId) }));
    assert.equal(reply.referenceMessageId, text.messageId);

    const loc = await arrival(await send({ type: 'location', latitude: -23.5505, longitude: -46.6333, name: 'Sé', address: 'Praça da Sé' }));
    assert.deepEqual(loc.location, { latitude: -23.5505, longitude: -46.6333, name: 'Sé', address: 'Praça da Sé', url: 'https://maps.google.com/maps?q=-23.5505,-46.6333' });

    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nTEL;type=CELL;waid=5511977776666:+55 11 97777-6666\nEND:VCARD';
    const contact = await arrival(await send({ type: 'contact', displayName: 'Ana', vcard }));
    assert.deepEqual(contact.contact, { displayName: 'Ana', vCard: vcard, phones: ['5511977776666'] });
    const many = await arrival(await send({ type: 'contacts', contacts: [{ displayName: 'Ana', vcard }, { displayName: 'Bia', vcard: vcard.replace('5511977776666', '5511966665555') }] }));
    assert.deepEqual((many.contacts as { phones: string[] }[]).map((c) => c.phones[0]), ['5511977776666', '5511966665555']);

    const poll = await arrival(await send({ type: 'poll', name: 'Lunch?', options: ['pizza', 'sushi'], selectableCount: 1 }));
    assert.deepEqual(poll.poll, { question: 'Lunch?', pollMaxOptions: 1, options: [{ name: 'pizza' }, { name: 'sushi' }] });

    const reaction = await arrival(await send({ type: 'reaction', targetId: String(text.messageId), emoji: '❤️' }));
    const r = reaction.reaction as { value: string; reactionBy: string; referencedMessage: { messageId: string } };
    assert.equal(r.value, '❤️');
    assert.equal(r.reactionBy, CONTACT);
    assert.equal(r.referencedMessage.messageId, text.messageId);

    const status = await arrival(await send({ type: 'statusReply', text: 'nice status' }));
    assert.equal(status.isStatusReply, true);
    assert.deepEqual(status.text, { message: 'nice status' });
  });

  test('edits and deletions arrive under the original message id', async () => {
    const original = await send({ type: 'text', text: 'first version' });
    await arrival(original);
    const editId = await send({ type: 'edit', targetId: original, text: 'second version' });
    const edit = await h.webhooks.waitFor((x) => x.body.isEdit === true && x.body.messageId === original, 20_000, 'the edit');
    assert.deepEqual(edit.body.text, { message: 'second version' });
    assert.notEqual(editId, original);
    await send({ type: 'revoke', targetId: original });
    const revoke = await h.webhooks.waitFor((x) => x.body.notification === 'REVOKE' && x.body.messageId === original, 20_000, 'the revoke');
    assert.equal(revoke.body.referenceMessageId, original);
    assert.equal(revoke.body.phone, CONTACT);
  });

  test('a broadcast-list message says broadcast and names the sender', async () => {
    const id = await send({ type: 'text', text: 'to my list', viaBroadcastList: true });
    const e = await arrival(id);
    assert.equal(e.broadcast, true);
    assert.equal(e.phone, CONTACT);
    assert.deepEqual(e.text, { message: 'to my list' });
  });

  test('every media kind: Z-API fields, and the link serves exactly the bytes the contact sent', async () => {
    const video = randomBytes(5000);
    const audio = randomBytes(2500);
    const doc = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(4000)]);
    const webp = await sharp({ create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).webp().toBuffer();
    const cases: { req: Record<string, unknown>; key: string; urlKey: string; bytes: Buffer; check(c: Payload): void }[] = [
      {
        req: { type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png', caption: 'a red box' },
        key: 'image',
        urlKey: 'imageUrl',
        bytes: png,
        check: (c) => {
          assert.equal(c.caption, 'a red box');
          assert.equal(c.mimeType, 'image/png');
          assert.equal(c.width, 48);
          assert.equal(c.height, 32);
          assert.equal(c.viewOnce, false);
          assert.match(String(c.thumbnailUrl), /\/media\//);
        },
      },
      { req: { type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png', viewOnce: true }, key: 'image', urlKey: 'imageUrl', bytes: png, check: (c) => assert.equal(c.viewOnce, true) },
      { req: { type: 'video', videoBase64: video.toString('base64'), caption: 'clip', seconds: 7, width: 320, height: 240 }, key: 'video', urlKey: 'videoUrl', bytes: video, check: (c) => { assert.equal(c.seconds, 7); assert.equal(c.caption, 'clip'); assert.equal(c.mimeType, 'video/mp4'); } },
      { req: { type: 'video', videoBase64: video.toString('base64'), gif: true }, key: 'video', urlKey: 'videoUrl', bytes: video, check: (c) => assert.equal(c.gif, true) },
      { req: { type: 'ptv', videoBase64: video.toString('base64'), seconds: 4 }, key: 'video', urlKey: 'videoUrl', bytes: video, check: (c) => { assert.equal(c.ptv, true); assert.equal(c.seconds, 4); } },
      { req: { type: 'audio', audioBase64: audio.toString('base64'), ptt: true, seconds: 3 }, key: 'audio', urlKey: 'audioUrl', bytes: audio, check: (c) => { assert.equal(c.ptt, true); assert.equal(c.seconds, 3); assert.equal(c.mimeType, 'audio/ogg; codecs=opus'); } },
      { req: { type: 'audio', audioBase64: audio.toString('base64'), mimetype: 'audio/mpeg' }, key: 'audio', urlKey: 'audioUrl', bytes: audio, check: (c) => assert.equal(c.ptt, false) },
      { req: { type: 'document', documentBase64: doc.toString('base64'), mimetype: 'application/pdf', fileName: 'report.pdf', caption: 'read this' }, key: 'document', urlKey: 'documentUrl', bytes: doc, check: (c) => { assert.equal(c.fileName, 'report.pdf'); assert.equal(c.mimeType, 'application/pdf'); assert.equal(c.caption, 'read this'); } },
      { req: { type: 'sticker', stickerBase64: webp.toString('base64') }, key: 'sticker', urlKey: 'stickerUrl', bytes: webp, check: (c) => assert.equal(c.mimeType, 'image/webp') },
    ];
    const ids = [];
    for (const c of cases) ids.push(await send(c.req));
    for (const [i, c] of cases.entries()) {
      const e = await arrival(ids[i]!);
      const content = e[c.key] as Payload;
      assert.ok(content, `${c.key} content in ${JSON.stringify(e).slice(0, 300)}`);
      c.check(content);
      const url = String(content[c.urlKey]);
      assert.ok(url.startsWith(h.url + '/media/'), url);
      const got = await fetchMedia(url);
      assert.equal(got.status, 200, `${c.key} ${got.body.toString().slice(0, 200)}`);
      assert.ok(got.body.equals(c.bytes), `${c.key}: the served bytes are the bytes sent`);
      assert.equal(got.type, content.mimeType);
    }
  });

  test('a tampered or expired media link never serves the file', async () => {
    const id = await send({ type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png' });
    const url = new URL(String(((await arrival(id)).image as Payload).imageUrl));
    assert.equal((await fetchMedia(url.toString())).status, 200);
    const sig = url.searchParams.get('sig')!;
    const tampered = new URL(url);
    tampered.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const later = new URL(url);
    later.searchParams.set('exp', String(Number(url.searchParams.get('exp')) + 1));
    const otherFile = new URL(url.toString().replace(/\.file\?/, '.thumbnail?'));
    const unsigned = new URL(url.origin + url.pathname);
    for (const bad of [tampered, later, otherFile, unsigned]) {
      const r = await fetchMedia(bad.toString());
      assert.equal(r.status, 403, bad.toString());
      assert.ok(!r.body.equals(png), 'a refused link never carries the file');
    }
    // A link the gateway itself signed, but past its expiry.
    const key = Buffer.from(await h.gateway.store.secrets.getOrCreate('media-url-key', () => 'unused', h.clock.now()), 'base64');
    const expired = new MediaUrlSigner(key, () => h.url).url(decodeURIComponent(url.pathname.split('/').pop()!), h.clock.now() - 1000);
    const r = await fetchMedia(expired);
    assert.equal(r.status, 403);
    assert.match(r.body.toString(), /expired/);
  });

  test('messages sent while the gateway is stopped arrive once each, in order, with their own time', async () => {
    await h.stopGateway();
    const sentAt = h.clock.now();
    const ids: string[] = [];
    // Each send resolves once the network holds the message for the offline device.
    for (let i = 1; i <= 3; i++) ids.push(await send({ type: 'text', text: `while stopped ${i}` }));
    await h.startGateway();
    await h.waitForStatus(inst, 'connected', 30_000);
    for (const id of ids) await arrival(id, inst, 30_000);
    await afterAllOf(ids);
    const got = received(inst.instanceId).filter((p) => ids.includes(String(p.messageId)));
    assert.deepEqual(got.map((p) => (p.text as { message: string }).message), ['while stopped 1', 'while stopped 2', 'while stopped 3']);
    for (const p of got) assert.ok(Number(p.momment) <= sentAt + 2_000 && Number(p.momment) >= sentAt - 2_000, 'the original send time');
    // Nothing is left held for the device: every stanza was acknowledged once recorded.
    const user = await h.admin.user(OWNER);
    assert.deepEqual(user.devices.flatMap((d) => d.heldMessages).filter((m) => ids.includes(m)), []);
  });

  test('messages sent while the link is down arrive once each after it reconnects', async () => {
    await h.admin.injectFault(OWNER, { kind: 'close' });
    const ids: string[] = [];
    for (let i = 1; i <= 3; i++) ids.push(await send({ type: 'text', text: `while cut off ${i}` }));
    await h.waitForStatus(inst, 'connected', 30_000);
    for (const id of ids) await arrival(id, inst, 30_000);
    await afterAllOf(ids);
    const got = received(inst.instanceId).filter((p) => ids.includes(String(p.messageId)));
    assert.equal(got.length, 3, 'once each');
    assert.deepEqual(got.map((p) => (p.text as { message: string }).message), ['while cut off 1', 'while cut off 2', 'while cut off 3']);
  });

  test('a restart replays nothing: ids already reported are never reported again', async () => {
    const before = received(inst.instanceId).length;
    await h.restartGateway();
    await h.waitForStatus(inst, 'connected', 30_000);
    const id = await send({ type: 'text', text: 'after the replay check' });
    await arrival(id);
    const all = received(inst.instanceId);
    assert.equal(all.length, before + 1);
    const counts = new Map<string, number>();
    for (const p of all) {
      const k = `${String(p.messageId)}:${String(p.isEdit)}:${String(p.notification)}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    assert.deepEqual([...counts].filter(([, n]) => n > 1), []);
  });

  test('a slow media host for one instance delays no other instance\'s text', async (t) => {
    const other = await h.pairNew(OTHER_OWNER, 'rx-other');
    const HOLD_MS = 30_000;
    await h.admin.setMediaFault(SLOW_CONTACT, { kind: 'delay', ms: HOLD_MS });
    try {
      // The slow contact floods the first instance with images its media host holds for 30 s.
      const slowSentAt = performance.now();
      const slowIds: string[] = [];
      for (let i = 0; i < 6; i++) slowIds.push(await send({ type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png' }, SLOW_CONTACT, OWNER));
      // Their events are not held back either: they arrive with their links at once.
      for (const id of slowIds) await arrival(id, inst, 10_000);
      const t0 = performance.now();
      const id = await send({ type: 'text', text: 'meanwhile, elsewhere' }, CONTACT, OTHER_OWNER);
      await arrival(id, other, 25_000);
      const arrivedAt = performance.now();
      t.diagnostic(`the other instance's text took ${Math.round(arrivedAt - t0)} ms`);
      // The media host holds each download for 30 s of real time (a guard) from its request, which
      // came after the image was sent: a text held behind any of them could not arrive before then.
      assert.ok(arrivedAt < slowSentAt + HOLD_MS, `the other instance's text arrived ${Math.round(arrivedAt - slowSentAt)} ms after the first slow image was sent: held behind its download`);
    } finally {
      await h.admin.setMediaFault(SLOW_CONTACT, null);
    }
  });

  test('every payload delivered in this file matches its schema in the OpenAPI webhooks section', async () => {
    const schemas = {
      ReceivedCallback: ReceivedCallbackSchema,
      MessageStatusCallback: MessageStatusCallbackSchema,
      DeliveryCallback: DeliveryCallbackSchema,
      ConnectedCallback: ConnectedCallbackSchema,
      DisconnectedCallback: DisconnectedCallbackSchema,
      PresenceChatCallback: PresenceChatCallbackSchema,
    } as const;
    const doc = (await h.call('GET', '/openapi.json')).json as { openapi: string; webhooks?: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(Object.keys(doc.webhooks ?? {}).sort(), Object.keys(schemas).sort());
    assert.ok(h.webhooks.hits.length >= 30, `only ${h.webhooks.hits.length} deliveries to check`);
    for (const { body } of h.webhooks.hits) {
      const schema = schemas[body.type as keyof typeof schemas];
      assert.ok(schema, `unknown callback type ${String(body.type)}`);
      const errs = [...Value.Errors(schema, body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
      assert.deepEqual(errs, [], JSON.stringify(body).slice(0, 400));
      // Exactly one content key (or a notification).
      const keys = ['text', 'image', 'audio', 'video', 'document', 'sticker', 'contact', 'contacts', 'location', 'reaction', 'poll', 'pollVote', 'listResponseMessage', 'buttonsResponseMessage', 'pinMessage', 'notification'];
      if (body.type === 'ReceivedCallback') assert.equal(keys.filter((k) => body[k] !== undefined).length, 1, JSON.stringify(body).slice(0, 300));
    }
  });
});
