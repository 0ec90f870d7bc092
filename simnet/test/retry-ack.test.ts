// What the network holds for a device around a retry: Baileys answers a message it cannot decrypt
// with a retry receipt and then a nack (an <ack error="500">); the contact's phone re-sends the
// message under the same id meanwhile. The nack is for the copy that failed, not for the re-send:
// a device that goes away before it has read the re-send gets it again on its next login. (The
// network used to drop the re-send with the nack, and such messages were lost for good —
// test/e2e/two-way-kill9.test.ts.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WAMessage } from 'baileys';
import { connect, endSock, pairByQr, startEnv, until, waitForOpen, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources (the rule guards the gateway's src/)
import type { ClientConnection } from '../src/server/connection.js';

const ALICE = '5511900000190';
const BOB = '5511900000191';

let env: SimEnv;
let sock: Sock | undefined;
let auth: MemoryAuth;
let bobLid = '';

before(async () => {
  env = await startEnv();
  bobLid = (await env.admin.createUser({ phone: BOB, pushName: 'Bob' })).lid;
  // Pair, then log in again with a long pause between Baileys' retry receipt and its nack, so the
  // phone's re-send is on the device's link before the nack reaches the network.
  const paired = await pairByQr(env, ALICE);
  auth = paired.auth;
  await endSock(paired.sock);
  sock = connect(env, auth, { retryRequestDelayMs: 1_500 });
  await waitForOpen(sock);
});

after(async () => {
  await endSock(sock);
  await env.close();
});

const upserted = (s: Sock, list: WAMessage[]) => s.ev.on('messages.upsert', ({ messages }) => list.push(...messages));

test('the nack after a retry receipt leaves the phone\'s re-send held: the device gets it on its next login', async () => {
  const seen: WAMessage[] = [];
  upserted(sock!, seen);
  const first = await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'before' });
  await until(() => seen.some((m) => m.key.id === first.messageId && !m.messageStubType), 10_000, 'the first message');
  // The device loses its session with bob: his next message fails to decrypt.
  let wiped = 0;
  for (const k of [...auth.data.keys()]) if (k.startsWith('session:') && k.includes(bobLid) && auth.data.delete(k)) wiped++;
  assert.ok(wiped > 0, 'the device had a session with bob');

  // The link goes down the moment the network has taken the nack for the failed copy (before the
  // device has answered the re-send, which Baileys reads only after its retry pause). The nack is
  // the acknowledgement that comes after the phone re-sent.
  const device = env.sim.net.registry.byNumber(ALICE)!.companions.get(1)!;
  const bob = env.sim.net.registry.byNumber(BOB)!;
  let nacked = false;
  let secondId = '';
  const acknowledged = env.sim.net.acknowledged.bind(env.sim.net);
  env.sim.net.acknowledged = (dev, tag, id, copies) => {
    acknowledged(dev, tag, id, copies);
    const resent = bob.retryLog.some((r) => r.messageId === secondId && r.action === 'resent');
    if (dev === device && tag === 'message' && id === secondId && resent && !nacked) {
      nacked = true;
      (dev.link as ClientConnection).destroy();
    }
  };
  const second = await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'after the loss' });
  secondId = second.messageId;
  await until(() => nacked, 15_000, 'the nack of the failed copy');
  env.sim.net.acknowledged = acknowledged;
  const retries = (await env.admin.retries(BOB)).filter((r) => r.messageId === second.messageId);
  assert.deepEqual(retries.map((r) => r.action), ['resent'], 'the phone re-sent the message once');
  const held = (await env.admin.user(ALICE)).devices.find((d) => d.id === 1)!.heldMessages;
  assert.deepEqual(held.filter((id) => id === second.messageId).length, 1, 'the re-send is still held for the device');

  // Next login: the re-send arrives and decrypts (the session it made is the one the device lacks).
  await endSock(sock);
  sock = connect(env, auth);
  const again: WAMessage[] = [];
  upserted(sock, again);
  await waitForOpen(sock);
  const m = await until(() => again.find((x) => x.key.id === second.messageId && !x.messageStubType), 15_000, 'the re-send after the login');
  assert.equal(m.message?.conversation ?? m.message?.extendedTextMessage?.text, 'after the loss');
});
