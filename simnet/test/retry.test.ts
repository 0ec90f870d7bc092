// Retry receipts: the device loses its Signal state with a contact, asks for a re-send, and the contact's phone re-encrypts the
// same message (same id) over a new session: from the device's server bundle, or from the keys in the receipt.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { extractE2ESessionFromRetryReceipt, type BinaryNode, type WAMessage } from 'baileys';
import { endSock, pairByQr, startEnv, until, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources (the rule guards the gateway's src/)
import { MAX_RESENDS, phoneAnswerRetry } from '../src/contacts/resend.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { MAX_RETRY_ASKS, phoneAsksRetry } from '../src/contacts/ask-retry.js';

const ALICE = '5511900000180';
const BOB = '5511900000181';
const CAROL = '5511900000182';
const DAVE = '5511900000183';

let env: SimEnv;
let sock: Sock;
let auth: MemoryAuth;
const upserts: WAMessage[] = [];
let bobLid = '';

before(async () => {
  env = await startEnv();
  bobLid = (await env.admin.createUser({ phone: BOB, pushName: 'Bob' })).lid;
  await env.admin.createUser({ phone: CAROL, pushName: 'Carol' });
  ({ sock, auth } = await pairByQr(env, ALICE));
  sock.ev.on('messages.upsert', ({ messages }) => upserts.push(...messages));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

/** Deletes entries of the test's auth store whose type matches and whose id mentions `who` (all of the type if who is ''). */
function wipe(type: string, who = '', store: MemoryAuth = auth): number {
  let n = 0;
  for (const k of [...store.data.keys()]) {
    if (k.startsWith(`${type}:`) && k.includes(who)) {
      store.data.delete(k);
      n++;
    }
  }
  return n;
}

async function textFromBob(to: string, text: string): Promise<string> {
  const { messageId } = await env.admin.sendAsContact({ from: BOB, to, type: 'text', text });
  return messageId;
}

const decrypted = (id: string, text: string) => upserts.find((m) => m.key.id === id && (m.message?.conversation === text || m.message?.extendedTextMessage?.text === text));

test('lost session: the first retry is re-encrypted over the phone\'s session, the second (with keys) over a new one', async () => {
  const first = await textFromBob(ALICE, 'before the loss');
  await until(() => decrypted(first, 'before the loss'), 5000, 'first');
  assert.ok(wipe('session', bobLid) > 0, 'the device had a session with bob');
  const id = await textFromBob(ALICE, 'after the loss');
  const m = await until(() => decrypted(id, 'after the loss'), 15_000, 're-sent message');
  assert.equal(m.key.fromMe, false);
  const log = (await env.admin.retries(BOB)).filter((x) => x.messageId === id);
  // The phone's session still carries its pre-key message header (the device never answered bob),
  // so both re-sends are pkmsg: the first over the session the device lost, the second a new one.
  assert.deepEqual(
    log.map((r) => [r.count, r.withKeys, r.action, r.from]),
    [
      [1, false, 'resent', ALICE],
      [2, true, 'resent', ALICE],
    ],
    'as WhatsApp\'s phones: the same session first, a new one from the receipt\'s keys next',
  );
  // The healed session carries on with ordinary messages.
  const next = await textFromBob(ALICE, 'business as usual');
  await until(() => decrypted(next, 'business as usual'), 5000, 'next');
  assert.equal((await env.admin.retries(BOB)).filter((x) => x.messageId === next).length, 0);
});

test('session and pre-keys lost: the bundle re-send fails too, the second retry carries keys and the contact uses them', async () => {
  wipe('session', bobLid);
  assert.ok(wipe('pre-key') > 0);
  const id = await textFromBob(ALICE, 'needs the keys');
  await until(() => decrypted(id, 'needs the keys'), 20_000, 're-sent with receipt keys');
  const mine = (await env.admin.retries(BOB)).filter((x) => x.messageId === id);
  assert.deepEqual(mine.map((x) => [x.count, x.withKeys, x.action]), [[1, false, 'resent'], [2, true, 'resent']]);
});

test('the phone cannot decrypt a device\'s message (its session rolled back, as after a crash): it asks the device again and the re-sent message decrypts', async () => {
  const bobJid = `${BOB}@s.whatsapp.net`;
  const sent = async (text: string) => (await sock.sendMessage(bobJid, { text }))!.key.id!;
  const atBob = async (id: string) => (await env.admin.received(BOB)).filter((m) => m.id === id);
  const warm = await sent('warm up');
  await until(async () => (await atBob(warm)).some((m) => !m.error), 10_000, 'the first message at bob');
  // The device's copy of its session with bob, as a crash would leave it on disk.
  const snapshot = [...auth.data].filter(([k]) => k.startsWith('session:') && k.includes(bobLid)).map(([k, v]) => [k, structuredClone(v)] as const);
  assert.ok(snapshot.length > 0, 'the device has a session with bob');
  for (const text of ['one', 'two']) {
    const id = await sent(text);
    await until(async () => (await atBob(id)).some((m) => !m.error), 10_000, `${text} at bob`);
  }
  for (const [k, v] of snapshot) auth.data.set(k, v);
  // Encrypted with message keys bob's phone has already used: it cannot decrypt them.
  const id = await sent('after the rollback');
  const copies = await until(async () => {
    const c = await atBob(id);
    return c.some((m) => !m.error) ? c : undefined;
  }, 20_000, 'the message decrypted by bob after the asks');
  assert.ok(copies.some((m) => m.error), `bob's phone failed first: ${JSON.stringify(copies.map((m) => m.error ?? 'ok'))}`);
  assert.equal(copies.find((m) => !m.error)?.text, 'after the rollback', 'the same id, the same text');
  const cs = (await env.admin.counters()).counters;
  assert.ok((cs['retry.asked'] ?? 0) >= 1, `the phone asked the device: ${JSON.stringify(cs)}`);
  // The new session carries on.
  const next = await sent('carry on');
  await until(async () => (await atBob(next)).some((m) => !m.error), 10_000, 'the next message');
  assert.deepEqual((await atBob(next)).map((m) => m.error ?? 'ok'), ['ok'], 'decrypted at once, no ask');
});

test('the phone\'s retry receipts: count and registration first, its keys (a bundle Baileys accepts) from the second on; bounded', async () => {
  const net = env.sim.net;
  const bob = net.registry.byNumber(BOB)!;
  const dev = net.registry.byNumber(ALICE)!.companions.get(1)!;
  const got: BinaryNode[] = [];
  const onReceipt = (node: BinaryNode) => {
    if (node.attrs.id === 'ASK-FORMAT') got.push(node);
  };
  sock.ws.on('CB:receipt', onReceipt);
  try {
    const counts = Array.from({ length: MAX_RETRY_ASKS + 1 }, () => phoneAsksRetry(net, bob, dev, 'ASK-FORMAT', false));
    assert.deepEqual(counts, [1, 2, 3, 4, 5, 0], 'asks count up, then the phone gives up');
    await until(() => got.length >= 2, 5000, 'the receipts at the device');
    assert.equal(got[0]?.attrs.type, 'retry');
    assert.equal(got[0]?.attrs.from, `${BOB}@s.whatsapp.net`);
    assert.equal(extractE2ESessionFromRetryReceipt(got[0]!), null, 'no keys on the first ask');
    const bundle = extractE2ESessionFromRetryReceipt(got[1]!);
    assert.ok(bundle, 'the second ask carries a bundle Baileys parses');
    assert.equal(bundle.registrationId, bob.phoneSignal.registrationId);
    assert.ok(bundle.preKey, 'with a one-time pre-key');
  } finally {
    sock.ws.off('CB:receipt', onReceipt);
  }
});

test('group message whose sender key was lost: re-sent pairwise with the sender key, same id', async () => {
  const g = await env.admin.createGroup({ creator: BOB, subject: 'retry', participants: [ALICE, CAROL] });
  const first = await textFromBob(g.jid, 'group one');
  await until(() => decrypted(first, 'group one'), 5000, 'group first');
  assert.ok(wipe('sender-key', bobLid) > 0, 'the device held bob\'s sender key');
  const id = await textFromBob(g.jid, 'group two');
  const m = await until(() => decrypted(id, 'group two'), 15_000, 'group re-send');
  assert.equal(m.key.remoteJid, g.jid);
  const r = (await env.admin.retries(BOB)).find((x) => x.messageId === id);
  assert.equal(r?.action, 'resent');
  // Bob's later group messages decrypt with the sender key the re-send carried.
  const third = await textFromBob(g.jid, 'group three');
  await until(() => decrypted(third, 'group three'), 5000, 'group third');
});

test('re-sends are bounded per message and device; a message the contact no longer has is not re-sent', async () => {
  const net = env.sim.net;
  const bob = net.registry.byNumber(BOB)!;
  const dev = net.registry.byNumber(ALICE)!.companions.get(1)!;
  const id = await textFromBob(ALICE, 'asked too often');
  await until(() => decrypted(id, 'asked too often'), 5000, 'in');
  const retry = (msgId: string, count: number) => ({ tag: 'receipt', attrs: { id: msgId, type: 'retry' }, content: [{ tag: 'retry', attrs: { count: String(count), id: msgId, v: '1' } }] });
  const actions: string[] = [];
  for (let i = 1; i <= MAX_RESENDS + 1; i++) actions.push((await phoneAnswerRetry(net, bob, dev, retry(id, i))).action);
  assert.deepEqual(actions, [...Array(MAX_RESENDS).fill('resent'), 'exhausted']);
  assert.equal((await phoneAnswerRetry(net, bob, dev, retry('NO-SUCH-MESSAGE', 1))).action, 'unknown');
  const c = await env.admin.counters();
  assert.ok((c.counters['retry.received'] ?? 0) >= 4);
  assert.equal(c.counters['retry.failed'] ?? 0, 0);
});

test('between two linked devices: the retry is relayed to the sending device, whose Baileys re-sends to the asking device only', async () => {
  const dave = await pairByQr(env, DAVE);
  const daveUpserts: WAMessage[] = [];
  dave.sock.ev.on('messages.upsert', ({ messages }) => daveUpserts.push(...messages));
  try {
    const got = (id: string, text: string) => daveUpserts.find((m) => m.key.id === id && (m.message?.conversation ?? m.message?.extendedTextMessage?.text) === text);
    const first = await sock.sendMessage(`${DAVE}@s.whatsapp.net`, { text: 'hi dave' });
    const firstId = first!.key.id!;
    await until(() => got(firstId, 'hi dave'), 10_000, 'first at dave');
    const aliceLid = (await env.admin.user(ALICE)).lid;
    assert.ok(wipe('session', aliceLid, dave.auth) > 0, 'dave had a session with alice');
    const second = await sock.sendMessage(`${DAVE}@s.whatsapp.net`, { text: 'again dave' });
    const id = second!.key.id!;
    await until(() => got(id, 'again dave'), 15_000, 're-sent by alice');
    const r = (await env.admin.retries(ALICE)).find((x) => x.messageId === id);
    assert.equal(r?.action, 'relayed');
    assert.equal(r?.from, DAVE);
    const cs = (await env.admin.counters()).counters;
    assert.ok((cs['retry.forwarded'] ?? 0) >= 1, JSON.stringify(cs));
  } finally {
    await endSock(dave.sock);
  }
});
