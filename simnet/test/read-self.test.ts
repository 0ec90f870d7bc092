// READ_BY_ME (admin ownerRead): the account's phone reads what it received; its linked devices get receipt type="read-self".
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BaileysEventMap, WAMessage } from 'baileys';
import { endSock, pairByQr, startEnv, until, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000170';
const BOB = '5511900000171';
const CAROL = '5511900000172';
const pn = (p: string) => `${p}@s.whatsapp.net`;

let env: SimEnv;
let sock: Sock;
const received: WAMessage[] = [];
const updates: BaileysEventMap['messages.update'] = [];
const receiptUpdates: BaileysEventMap['message-receipt.update'] = [];

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  await env.admin.createUser({ phone: CAROL, pushName: 'Carol' });
  ({ sock } = await pairByQr(env, ALICE));
  sock.ev.on('messages.upsert', ({ messages }) => received.push(...messages));
  sock.ev.on('messages.update', (u) => updates.push(...u));
  sock.ev.on('message-receipt.update', (u) => receiptUpdates.push(...u));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

test('1:1: messages.update status READ (4) with fromMe false, one per id; the sender gets the read receipt', async () => {
  const ids: string[] = [];
  for (const text of ['one', 'two']) ids.push((await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text })).messageId);
  await until(() => ids.every((id) => received.some((m) => m.key.id === id)), 5000, 'messages in');
  const r = await env.admin.ownerRead({ phone: ALICE, chat: BOB, ids });
  assert.deepEqual(r, { devices: 1, receipts: 1, unknown: [] });
  for (const id of ids) {
    const u = await until(() => updates.find((x) => x.key.id === id && x.update.status === 4), 5000, `read-self ${id}`);
    assert.equal(u.key.remoteJid, pn(BOB));
    assert.equal(u.key.fromMe, false);
  }
  const bob = await env.admin.receipts(BOB);
  assert.deepEqual(bob.received.filter((x) => ids.includes(x.messageId) && x.type === 'read').map((x) => x.from), [ALICE, ALICE]);
});

test('the chat defaults to where the network routed each id', async () => {
  const { messageId } = await env.admin.sendAsContact({ from: CAROL, to: ALICE, type: 'text', text: 'from carol' });
  await until(() => received.some((m) => m.key.id === messageId), 5000, 'in');
  await env.admin.ownerRead({ phone: ALICE, ids: [messageId] });
  const u = await until(() => updates.find((x) => x.key.id === messageId && x.update.status === 4), 5000, 'read-self');
  assert.equal(u.key.remoteJid, pn(CAROL));
});

test('group: message-receipt.update with the account as reader', async () => {
  const g = await env.admin.createGroup({ creator: BOB, subject: 'read', participants: [ALICE, CAROL] });
  const { messageId } = await env.admin.sendAsContact({ from: CAROL, to: g.jid, type: 'text', text: 'group hi' });
  await until(() => received.some((m) => m.key.id === messageId), 5000, 'in');
  await env.admin.ownerRead({ phone: ALICE, chat: g.jid, ids: [messageId] });
  const u = await until(() => receiptUpdates.find((x) => x.key.id === messageId && x.receipt.readTimestamp), 5000, 'group read-self');
  assert.equal(u.key.remoteJid, g.jid);
  assert.equal(u.receipt.userJid, pn(ALICE));
  // Baileys keys it with the reader as participant (not the message's author) and fromMe false.
  assert.equal(u.key.fromMe, false);
  assert.equal(u.key.participant, pn(ALICE));
});
