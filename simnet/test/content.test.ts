// Every content type the gateway sends (decrypted and checked by the contact) and what contacts send back to Baileys.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { WAMessage } from 'baileys';
import { endSock, pairByQr, startEnv, until, waitForEvent, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000030';
const BOB = '5511900000031';
const BOB_JID = `${BOB}@s.whatsapp.net`;
let env: SimEnv;
let sock: Sock;
let files: Server;
let filesUrl: string;
let png: Buffer;
let webp: Buffer;

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  ({ sock } = await pairByQr(env, ALICE));
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
  webp = await sharp({ create: { width: 512, height: 512, channels: 4, background: { r: 0, g: 0, b: 255, alpha: 0.5 } } }).webp().toBuffer();
  files = createServer((req, res) => {
    const body = req.url === '/s.webp' ? webp : png;
    res.writeHead(200, { 'content-type': req.url === '/s.webp' ? 'image/webp' : 'image/png', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', () => r()));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

after(async () => {
  await endSock(sock);
  files.closeAllConnections();
  await new Promise((r) => files.close(r));
  await env.close();
});

test('image by URL: uploaded to the media host, contact decrypts the bytes', async () => {
  const sent = await sock.sendMessage(BOB_JID, { image: { url: `${filesUrl}/a.png` }, caption: 'a red box', mimetype: 'image/png' });
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === sent!.key.id);
  assert.equal(got.type, 'image');
  assert.equal(got.caption, 'a red box');
  assert.equal(got.media?.mimetype, 'image/png');
  assert.equal(got.media?.error, undefined);
  assert.ok(Buffer.from(got.media!.base64!, 'base64').equals(png));
});

test('sticker webp 512×512', async () => {
  const sent = await sock.sendMessage(BOB_JID, { sticker: { url: `${filesUrl}/s.webp` }, width: 512, height: 512 } as never);
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === sent!.key.id);
  assert.equal(got.type, 'sticker');
  assert.ok(Buffer.from(got.media!.base64!, 'base64').equals(webp));
});

test('location', async () => {
  const sent = await sock.sendMessage(BOB_JID, { location: { degreesLatitude: -23.55, degreesLongitude: -46.63, name: 'Sé', address: 'São Paulo' } });
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === sent!.key.id);
  assert.deepEqual(got.location, { latitude: -23.55, longitude: -46.63, name: 'Sé', address: 'São Paulo' });
});

test('poll, and the contact votes on it', async () => {
  const sent = await sock.sendMessage(BOB_JID, { poll: { name: 'Lunch?', values: ['pizza', 'sushi', 'salad'], selectableCount: 1 } });
  // Copied at once: Baileys may merge later updates into the returned object (see 'edit and revoke').
  const pollId = sent!.key.id!;
  const secret = sent!.message!.messageContextInfo!.messageSecret!;
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === pollId);
  assert.deepEqual(got.poll, { name: 'Lunch?', options: ['pizza', 'sushi', 'salad'], selectableCount: 1 });
  const vote = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => !!m.message?.pollUpdateMessage));
  await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'pollVote', pollId, options: ['sushi'] });
  const m = (await vote).messages.find((x) => x.message?.pollUpdateMessage)!;
  assert.equal(m.message!.pollUpdateMessage!.pollCreationMessageKey!.id, pollId);
  // The gateway decrypts votes itself (rc14 does not); check that the standard derivation works.
  const { decryptPollVote, jidNormalizedUser } = await import('baileys');
  const decoded = decryptPollVote(m.message!.pollUpdateMessage!.vote!, {
    pollCreatorJid: jidNormalizedUser(sock.user!.id),
    pollMsgId: pollId,
    pollEncKey: secret,
    voterJid: BOB_JID,
  });
  assert.equal(decoded.selectedOptions?.length, 1);
});

test('edit and revoke', async () => {
  const sent = await sock.sendMessage(BOB_JID, { text: 'typo' });
  // Copy the key now: Baileys returns the same object it buffers for its own 'append' upsert, and a revoke's
  // messages.update that lands within the buffer's 100 ms flush window is Object.assign'ed into it (key replaced by
  // the revoke's key, message nulled). Reading sent.key after the revoke would then name the revoke itself.
  const key = { ...sent!.key };
  await env.admin.waitForReceived(BOB, (m) => m.id === key.id);
  const edit = await sock.sendMessage(BOB_JID, { text: 'fixed', edit: { ...key } });
  const editId = edit!.key.id;
  const e = await env.admin.waitForReceived(BOB, (m) => m.id === editId);
  assert.equal(e.type, 'edit');
  assert.equal(e.targetId, key.id);
  assert.equal(e.text, 'fixed');
  const del = await sock.sendMessage(BOB_JID, { delete: { ...key } });
  const delId = del!.key.id;
  assert.notEqual(delId, key.id);
  const d = await env.admin.waitForReceived(BOB, (m) => m.id === delId);
  assert.equal(d.type, 'revoke');
  assert.equal(d.targetId, key.id);
  assert.equal(d.editAttr, '7');
});

test('delete-for-me goes to app state (phone shared the key after pairing)', async () => {
  const sent = await sock.sendMessage(BOB_JID, { text: 'delete me for me' });
  await sock.chatModify({ deleteForMe: { key: sent!.key, timestamp: Date.now(), deleteMedia: false } }, BOB_JID);
  const c = await env.admin.counters();
  assert.ok((c.counters['appstate.patch.regular_high'] ?? 0) >= 1, JSON.stringify(c.counters));
});

test('contact sends reaction, location, reply, list and button answers, image', async () => {
  const seen: WAMessage[] = [];
  sock.ev.on('messages.upsert', (u) => seen.push(...u.messages));
  const sent = await sock.sendMessage(BOB_JID, { text: 'react to me' });
  await env.admin.waitForReceived(BOB, (m) => m.id === sent!.key.id);
  const ids = {
    reaction: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'reaction', targetId: sent!.key.id!, emoji: '👍' })).messageId,
    location: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'location', latitude: 1.5, longitude: 2.5, name: 'here' })).messageId,
    reply: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'reply', text: 'answer', quotedId: sent!.key.id!, quotedText: 'react to me' })).messageId,
    list: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'listResponse', title: 'Option A', rowId: 'row-a' })).messageId,
    button: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'buttonResponse', buttonId: 'btn-1', displayText: 'Yes' })).messageId,
    image: (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png', caption: 'from bob' })).messageId,
  };
  const byId = (id: string) => until(() => seen.find((x) => x.key.id === id), 10_000, `message ${id} to reach Baileys`);
  const r = await byId(ids.reaction);
  assert.equal(r.message?.reactionMessage?.text, '👍');
  assert.equal(r.message?.reactionMessage?.key?.id, sent!.key.id);
  assert.equal((await byId(ids.location)).message?.locationMessage?.degreesLatitude, 1.5);
  const reply = await byId(ids.reply);
  assert.equal(reply.message?.extendedTextMessage?.contextInfo?.stanzaId, sent!.key.id);
  assert.equal((await byId(ids.list)).message?.listResponseMessage?.singleSelectReply?.selectedRowId, 'row-a');
  assert.equal((await byId(ids.button)).message?.buttonsResponseMessage?.selectedButtonId, 'btn-1');
  const img = await byId(ids.image);
  // Downloading needs trust in simnet's media CA: an undici dispatcher with the CA (or NODE_EXTRA_CA_CERTS).
  const { downloadMediaMessage } = await import('baileys');
  const { Agent } = await import('undici');
  const dispatcher = new Agent({ connect: { ca: env.sim.mediaCaPem } });
  try {
    const bytes = (await downloadMediaMessage(img, 'buffer', { options: { dispatcher } } as never)) as Buffer;
    assert.ok(bytes.equals(png));
    assert.equal(img.message?.imageMessage?.caption, 'from bob');
  } finally {
    await dispatcher.close();
  }
});
