// Two-way traffic with a new contact through a raw Baileys socket (no gateway, keys in memory):
// after one exchange, the contact and the device write to each other at once, and every message
// decrypts on both sides. The control for test/e2e/two-way-kill9.test.ts: when the gateway lost
// messages under the same traffic, this passing placed the fault in the gateway's key store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WAMessage } from 'baileys';
import { endSock, pairByQr, sleep, startEnv, until, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000070';
const BOB = '5511900000071';
const BOB_JID = `${BOB}@s.whatsapp.net`;
/** Messages each side writes while the other writes too. */
const PER_SIDE = 20;

let env: SimEnv;
let sock: Sock;
const got = new Map<string, WAMessage>();

before(async () => {
  env = await startEnv({});
  await env.admin.createUser({ phone: BOB, pushName: 'Bob' });
  ({ sock } = await pairByQr(env, ALICE));
  sock.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) if (!m.key.fromMe && m.key.id) got.set(m.key.id, m);
  });
});

after(async () => {
  await endSock(sock);
  await env.close();
});

test('simultaneous writing after a first exchange: nothing fails to decrypt either way', async () => {
  const hello = (await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'hello' })).messageId;
  await until(() => got.get(hello)?.message, 10_000, 'hello decrypted');
  const hi = await sock.sendMessage(BOB_JID, { text: 'hi' });
  await env.admin.waitForReceived(BOB, (m) => m.id === hi!.key.id, 10_000);
  const fromBob: string[] = [];
  const fromAlice: string[] = [];
  let stop = false;
  // The scenario: both sides write at once, a few ms apart, until each has sent enough that their
  // messages cross many times.
  const bob = (async () => {
    for (let i = 0; !stop; i++) {
      fromBob.push((await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: `b${i}` })).messageId);
      await sleep(5);
    }
  })();
  const alice = (async () => {
    for (let i = 0; !stop; i++) {
      fromAlice.push((await sock.sendMessage(BOB_JID, { text: `a${i}` }))!.key.id!);
      await sleep(5);
    }
  })();
  await until(() => fromBob.length >= PER_SIDE && fromAlice.length >= PER_SIDE, 30_000, `${PER_SIDE} messages each way`);
  stop = true;
  await Promise.all([bob, alice]);
  // Every message has landed (decrypted or not) once Baileys has an upsert for each of Bob's and
  // Bob's inbox holds each of Alice's; a retry of a failed decryption comes before that settles.
  const settled = async () => {
    const atBob = await env.admin.received(BOB);
    const decrypted = fromBob.every((id) => got.get(id)?.message);
    const arrived = fromAlice.every((id) => atBob.some((m) => m.id === id && !m.error));
    return decrypted && arrived;
  };
  await until(settled, 15_000, 'every message decrypted on both sides').catch(() => undefined);
  const undecrypted = fromBob.filter((id) => !got.get(id)?.message);
  const atBob = await env.admin.received(BOB);
  const failedAtBob = atBob.filter((m) => fromAlice.includes(m.id) && m.error);
  const missingAtBob = fromAlice.filter((id) => !atBob.some((m) => m.id === id));
  assert.deepEqual(
    { undecrypted: undecrypted.length, failedAtBob: failedAtBob.length, missingAtBob: missingAtBob.length },
    { undecrypted: 0, failedAtBob: 0, missingAtBob: 0 },
    `of ${fromBob.length} from Bob and ${fromAlice.length} from Alice`,
  );
});
