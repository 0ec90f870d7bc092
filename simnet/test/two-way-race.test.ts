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
  await sleep(2000);
  stop = true;
  await Promise.all([bob, alice]);
  await sleep(3000);
  const undecrypted = fromBob.filter((id) => !got.get(id)?.message);
  const atBob = await env.admin.received(BOB);
  const failedAtBob = atBob.filter((m) => fromAlice.includes(m.id) && m.error);
  assert.deepEqual(
    { undecrypted: undecrypted.length, failedAtBob: failedAtBob.length },
    { undecrypted: 0, failedAtBob: 0 },
    `of ${fromBob.length} from Bob and ${fromAlice.length} from Alice`,
  );
});
