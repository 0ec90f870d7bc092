// Presence (admin presence): chat states always reach the device live; available/unavailable only after presenceSubscribe.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { BaileysEventMap } from 'baileys';
import { connect, endSock, pairByQr, startEnv, until, waitForOpen, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000160';
const BOB = '5511900000161';
const CAROL = '5511900000162';
const pn = (p: string) => `${p}@s.whatsapp.net`;

let env: SimEnv;
let sock: Sock;
let auth: MemoryAuth;
const updates: BaileysEventMap['presence.update'][] = [];

before(async () => {
  env = await startEnv();
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  await env.admin.createUser({ phone: CAROL, pushName: 'Carol' });
  ({ sock, auth } = await pairByQr(env, ALICE));
  sock.ev.on('presence.update', (u) => updates.push(u));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

const seen = (id: string, state: string) => updates.find((u) => u.id === id && Object.values(u.presences).some((p) => p.lastKnownPresence === state));

test('chat states in a 1:1 chat: composing, recording, paused (→ available)', async () => {
  for (const state of ['composing', 'recording', 'paused'] as const) {
    const r = await env.admin.presence({ from: BOB, to: ALICE, state });
    assert.equal(r.delivered, 1);
  }
  const c = await until(() => seen(pn(BOB), 'composing'), 5000, 'composing');
  assert.deepEqual(Object.keys(c.presences), [pn(BOB)]);
  await until(() => seen(pn(BOB), 'recording'), 5000, 'recording');
  await until(() => seen(pn(BOB), 'available'), 5000, 'paused reads as available');
});

test('group chat state: from the group, participant = the contact LID', async () => {
  const g = await env.admin.createGroup({ creator: BOB, subject: 'typing', participants: [ALICE, CAROL] });
  const r = await env.admin.presence({ from: CAROL, to: g.jid, state: 'composing' });
  assert.equal(r.delivered, 1);
  const u = await until(() => seen(g.jid, 'composing'), 5000, 'group composing');
  assert.deepEqual(Object.keys(u.presences), [`${(await env.admin.user(CAROL)).lid}@lid`]);
});

test('online/offline presence needs a subscription; subscribing answers with the current presence', async () => {
  const none = await env.admin.presence({ from: CAROL, to: ALICE, state: 'available' });
  assert.equal(none.delivered, 0, 'not subscribed yet');
  await sock.presenceSubscribe(pn(CAROL));
  await until(() => seen(pn(CAROL), 'available'), 5000, 'current presence on subscribe');
  const info = await until(async () => {
    const i = await env.admin.presenceInfo(ALICE);
    return i.devices[0]?.subscriptions.includes(CAROL) ? i : undefined;
  }, 5000, 'subscription recorded');
  assert.equal(info.devices[0]!.id, 1);
  const r = await env.admin.presence({ from: CAROL, state: 'unavailable', lastSeen: 1_700_000_000 });
  assert.equal(r.delivered, 1);
  const off = await until(() => updates.find((u) => u.id === pn(CAROL) && u.presences[pn(CAROL)]?.lastKnownPresence === 'unavailable'), 5000, 'unavailable');
  assert.equal(off.presences[pn(CAROL)]!.lastSeen, 1_700_000_000);
});

test('the device\'s own presence and chat states are recorded; subscriptions end with the session', async () => {
  await sock.sendPresenceUpdate('composing', pn(BOB));
  await sock.sendPresenceUpdate('recording', pn(BOB));
  // Baileys only announces itself with a name (creds.me.name, which the real phone syncs as the pushName app-state setting).
  auth.creds.me!.name = 'Alice';
  await sock.sendPresenceUpdate('available');
  const bob = await until(async () => {
    const i = await env.admin.presenceInfo(BOB);
    return i.chatstates.length >= 2 ? i : undefined;
  }, 5000, 'chat states at the contact');
  assert.deepEqual(bob.chatstates.map((c) => c.state), ['composing', 'recording']);
  assert.equal(bob.chatstates[0]!.from, ALICE);
  await until(async () => (await env.admin.presenceInfo(ALICE)).devices[0]?.lastPresence === 'available', 5000, 'own presence');
  await endSock(sock);
  sock = connect(env, auth);
  sock.ev.on('presence.update', (u) => updates.push(u));
  await waitForOpen(sock);
  // A round trip on the new connection: whatever the device sent at login has been handled.
  await sock.fetchBlocklist();
  assert.deepEqual((await env.admin.presenceInfo(ALICE)).devices[0]!.subscriptions, []);
  assert.equal((await env.admin.presence({ from: CAROL, state: 'available' })).delivered, 0);
});
