// Calls from contacts (admin placeCall): <call> offer / terminate / reject / accept → Baileys 'call' events; rejectCall is recorded.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WACallEvent } from 'baileys';
import { connect, endSock, pairByQr, startEnv, until, waitForEvent, waitForOpen, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000150';
const BOB = '5511900000151';
const pn = (p: string) => `${p}@s.whatsapp.net`;

let env: SimEnv;
let sock: Sock;
let auth: MemoryAuth;
const calls: WACallEvent[] = [];

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  ({ sock, auth } = await pairByQr(env, ALICE));
  sock.ev.on('call', (cs) => calls.push(...cs));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

const events = (id: string) => calls.filter((c) => c.id === id);

test('missed voice call: offer, then terminate by ring-out (status timeout)', async () => {
  const rec = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'missed', ringMs: 2000 });
  assert.equal(rec.devices, 1);
  const offer = await until(() => events(rec.callId).find((c) => c.status === 'offer'), 5000, 'offer');
  assert.equal(offer.from, pn(BOB));
  assert.equal(offer.chatId, pn(BOB));
  assert.equal(offer.isVideo, false);
  assert.equal(offer.isGroup, false);
  assert.equal(offer.offline, false);
  const end = await until(() => events(rec.callId).find((c) => c.status === 'timeout'), 5000, 'timeout');
  assert.equal(end.from, pn(BOB));
  assert.equal(end.isVideo, false, 'carried over from the offer');
  await until(async () => (await env.admin.calls(ALICE)).find((c) => c.callId === rec.callId && c.status === 'missed'), 5000, 'recorded missed');
});

test('video call the caller cancels: terminate; isVideo carried over', async () => {
  const rec = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'cancelled', video: true, ringMs: 1000 });
  const offer = await until(() => events(rec.callId).find((c) => c.status === 'offer'), 5000, 'offer');
  assert.equal(offer.isVideo, true);
  const end = await until(() => events(rec.callId).find((c) => c.status === 'terminate'), 5000, 'terminate');
  assert.equal(end.isVideo, true);
});

test('rejected and answered on the account phone: reject / accept then terminate', async () => {
  const rej = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'rejected', ringMs: 500 });
  const r = await until(() => events(rej.callId).find((c) => c.status === 'reject'), 5000, 'reject');
  assert.equal(r.chatId, pn(ALICE), 'the reject comes from the account itself');
  assert.equal(r.from, pn(BOB), 'call-creator');
  const acc = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'accepted', ringMs: 500, durationMs: 1000 });
  await until(() => events(acc.callId).find((c) => c.status === 'accept'), 5000, 'accept');
  await until(() => events(acc.callId).find((c) => c.status === 'terminate'), 5000, 'terminate after the talk');
  await until(async () => (await env.admin.calls(BOB)).find((c) => c.callId === acc.callId && c.status === 'ended'), 5000, 'recorded ended');
});

test('the device rejects a ringing call (rejectCall): recorded as rejected by that device, no ring-out follows', async () => {
  // It rings ten minutes of the network's time (30 s of real time at its 0.05 time-lapse): the
  // device rejects it long before, however loaded the machine; the test then jumps past the ring.
  const rec = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'missed', ringMs: 600_000 });
  const offer = await until(() => events(rec.callId).find((c) => c.status === 'offer'), 5000, 'offer');
  await sock.rejectCall(offer.id, offer.from);
  const after = await until(async () => (await env.admin.calls(ALICE)).find((c) => c.callId === rec.callId && c.status === 'rejected'), 5000, 'recorded');
  assert.equal(after.rejectedByDevice, 1);
  assert.ok(after.endedAt);
  // Past the ring time: a ring-out still armed would fire now, and its stanza reach the device
  // before a message the contact sends after it.
  env.jump(600_000);
  const barrier = waitForEvent(sock, 'messages.upsert', ({ messages }) => messages.some((m) => m.message?.conversation === 'after the ring time'));
  await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'after the ring time' });
  await barrier;
  assert.equal(events(rec.callId).filter((c) => c.status === 'timeout').length, 0);
});

test('a call offered while the device is offline arrives at login marked offline', async () => {
  await endSock(sock);
  await until(async () => !(await env.admin.user(ALICE)).devices[0]!.online, 5000, 'offline');
  const rec = await env.admin.placeCall({ from: BOB, to: ALICE, outcome: 'ringing', viaLid: true });
  sock = connect(env, auth);
  sock.ev.on('call', (cs) => calls.push(...cs));
  await waitForOpen(sock);
  const offer = await until(() => events(rec.callId).find((c) => c.status === 'offer'), 5000, 'offline offer');
  assert.equal(offer.offline, true);
  assert.match(offer.from, /@lid$/);
  assert.equal(offer.callerPn, pn(BOB));
});
