// 1:1 messaging with libsignal contacts: send, server ack, receipts, receive, device-sent copy, offline holding.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { proto, WAMessage } from 'baileys';
import { connect, endSock, pairByQr, startEnv, until, waitForEvent, waitForOpen, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000010';
const BOB = '5511900000011';
const BOB_JID = `${BOB}@s.whatsapp.net`;

let env: SimEnv;
let sock: Sock;
let auth: MemoryAuth;

before(async () => {
  env = await startEnv({ receipts: { delivered: 'auto', deliveredDelayMs: 4000, read: 'manual' } });
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  ({ sock, auth } = await pairByQr(env, ALICE));
  track(sock);
});

after(async () => {
  await endSock(sock);
  await env.close();
});

/** Highest status seen per message id (receipts can arrive before a waiter subscribes, and buffering merges them). */
const statuses = new Map<string, number>();
function track(s: Sock): void {
  // A receipt landing while our own upsert is still buffered is folded into that upsert's status.
  s.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) if (m.key.id && m.status != null) statuses.set(m.key.id, Math.max(statuses.get(m.key.id) ?? 0, m.status));
  });
  s.ev.on('messages.update', (ups) => {
    for (const u of ups) if (u.key.id && u.update.status != null) statuses.set(u.key.id, Math.max(statuses.get(u.key.id) ?? 0, u.update.status));
  });
}
function waitForStatus(id: string, status: number, timeoutMs = 10_000) {
  return until(() => (statuses.get(id) ?? 0) >= status, timeoutMs, `status ${status} for ${id}`);
}

test('text: server ack, contact decrypts, delivered then read receipts', async () => {
  const acked = new Promise<string>((resolve) => sock.ws.on('CB:ack,class:message', (n: { attrs: { id: string } }) => resolve(n.attrs.id)));
  const sent = await sock.sendMessage(BOB_JID, { text: 'hello bob' });
  const id = sent!.key.id!;
  const delivered = waitForStatus(id, 3);
  assert.equal(await acked, id);
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === id);
  assert.equal(got.type, 'text');
  assert.equal(got.text, 'hello bob');
  assert.equal(got.from, ALICE);
  await delivered;
  const read = waitForStatus(id, 4);
  const r = await env.admin.markRead(BOB, [id]);
  assert.deepEqual(r.sent, [id]);
  await read;
  const copies = await env.admin.sentCopies(ALICE);
  assert.ok(copies.some((c) => c.id === id && c.text === 'hello bob' && c.destination === BOB_JID), 'own phone got the device-sent copy');
});

test('receive: contact text reaches Baileys as messages.upsert notify; Baileys read receipt is recorded', async () => {
  const upsert = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => m.message?.conversation === 'hi alice'));
  const { messageId } = await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'hi alice' });
  const u = await upsert;
  const m = u.messages.find((x) => x.key.id === messageId)!;
  assert.equal(u.type, 'notify');
  assert.equal(m.key.fromMe, false);
  assert.equal(m.key.remoteJid, BOB_JID);
  assert.equal(m.pushName, 'Bob');
  await sock.readMessages([m.key]);
  await until(async () => (await env.admin.receipts(BOB)).received.find((r) => r.messageId === messageId && r.type === 'read'), 5000, 'read receipt at contact');
});

test('a reply with mentions and a quoted id', async () => {
  const upsert = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => m.message?.conversation === 'quote me'));
  await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'quote me' });
  const quoted = (await upsert).messages[0] as WAMessage;
  const sent = await sock.sendMessage(BOB_JID, { text: 'replying @' + BOB, mentions: [BOB_JID] }, { quoted });
  const got = await env.admin.waitForReceived(BOB, (m) => m.id === sent!.key.id);
  assert.equal(got.quotedId, quoted.key.id);
  assert.deepEqual(got.mentions, [BOB_JID]);
});

test('messages for an offline device are held and delivered at its next login', async () => {
  await endSock(sock);
  await until(async () => !(await env.admin.user(ALICE)).devices[0]!.online, 5000, 'offline');
  const { messageId } = await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'while you were away' });
  // Other stanzas the socket had not acked before it closed (a receipt timer of an earlier test, an incoming message
  // whose ack was still on its way) are held too and redelivered at login, as on the real network.
  const { heldMessages } = (await env.admin.user(ALICE)).devices[0]!;
  assert.ok(heldMessages.includes(messageId), `held ${JSON.stringify(heldMessages)}`);
  sock = connect(env, auth);
  track(sock);
  const got = waitForEvent(sock, 'messages.upsert', (u) => u.messages.some((m) => m.key.id === messageId), 15_000, 'held message');
  await waitForOpen(sock);
  const u = await got;
  const m = u.messages.find((x) => x.key.id === messageId) as proto.IWebMessageInfo;
  assert.equal(m.message?.conversation, 'while you were away');
  await until(async () => (await env.admin.user(ALICE)).devices[0]!.held === 0, 5000, 'held queue drained');
});
