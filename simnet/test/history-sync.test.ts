// History sync at pairing, the phone's side: a seeded phone history reaches a newly linked plain
// Baileys device as WhatsApp sends it — an inline INITIAL_BOOTSTRAP, RECENT chunks downloaded from
// the media host ('md-msg-hist' blobs) with chunk order and progress, and the push names — and
// Baileys' messaging-history.set carries every chat and message; a later login gets nothing again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DisconnectReason, proto, type BaileysEventMap } from 'baileys';
import { Agent as UndiciAgent, type Dispatcher } from 'undici';
import { connect, endSock, memoryAuth, startEnv, until, waitForClose, waitForEvent, waitForOpen, waitForQr, type SimEnv, type Sock } from './helpers.js';

const ALICE = '5511900000190';
const BOB = '5511900000191';

let env: SimEnv;
let dispatcher: Dispatcher;
let base: UndiciAgent;

before(async () => {
  env = await startEnv();
  // Baileys downloads history blobs from WhatsApp's media host by path: send those to simnet's.
  base = new UndiciAgent({ connect: { ca: env.sim.mediaCaPem } });
  const origin = `https://${env.sim.mediaHost}`;
  dispatcher = base.compose((dispatch) => (opts, handler) => dispatch(String(opts.origin) === 'https://mmg.whatsapp.net' ? { ...opts, origin } : opts, handler));
});

after(async () => {
  await base.close();
  await env.close();
});

test('a phone with 120 chats: bootstrap, three RECENT chunks from the media host, push names; nothing again at the next login', async () => {
  await env.admin.createUser({ phone: ALICE, pushName: 'Alice' });
  const seeded = await env.admin.seedHistory(ALICE, { chats: 120, messagesPerChat: 5, days: 30, groups: 10, chunkChats: 50 });
  assert.equal(seeded.chats.length, 120, 'seeded chats');
  assert.equal(seeded.chunks, 3, 'three RECENT chunks');
  assert.equal(seeded.chats.filter((c) => c.isGroup).length, 10, 'ten groups among them');
  const newest = seeded.chats[0]!.messages.at(-1)!.at;
  const oldest = seeded.chats.at(-1)!.messages.at(-1)!.at;
  // On the network's clock (a time-lapse, 20 times real time): the wall clock drifts from it.
  const now = env.sim.clock.now();
  assert.ok(Math.abs(now - newest) < 60_000 && Math.abs(now - 30 * 86_400_000 - oldest) < 60_000, 'spread over 30 days');

  const auth = memoryAuth();
  // Baileys types `options` as the DOM RequestInit, which has no dispatcher; Node's fetch takes one.
  const extra = { options: { dispatcher } as unknown as RequestInit, shouldSyncHistoryMessage: () => true };
  const first = connect(env, auth, extra);
  const qr = await waitForQr(first);
  const closed = waitForClose(first);
  await env.admin.scanQr(ALICE, qr);
  assert.equal((await closed).code, DisconnectReason.restartRequired, 'restart after pairing');
  const sock: Sock = connect(env, auth, extra);
  const sets: BaileysEventMap['messaging-history.set'][] = [];
  sock.ev.on('messaging-history.set', (s) => sets.push(s));
  try {
    await waitForOpen(sock);
    const ids = new Set(seeded.chats.flatMap((c) => c.messages.map((m) => m.id)));
    const got = new Set<string>();
    await until(() => {
      for (const s of sets) for (const m of s.messages) if (m.key.id) got.add(m.key.id);
      return got.size >= ids.size && sets.some((s) => s.syncType === proto.HistorySync.HistorySyncType.PUSH_NAME || s.contacts.some((c) => c.notify));
    }, 30_000, 'every history message and the push names');
    assert.equal([...ids].filter((id) => !got.has(id)).length, 0, 'every seeded message arrived');
    const chats = new Map(sets.flatMap((s) => s.chats).map((c) => [c.id, c]));
    assert.equal(chats.size, 120, 'every chat arrived');
    const pinned = seeded.chats.find((c) => c.pinned)!;
    const archived = seeded.chats.find((c) => c.archived)!;
    assert.ok(Number(chats.get(pinned.jid)?.pinned) > 0, 'pinned travels');
    assert.equal(chats.get(archived.jid)?.archived, true, 'archived travels');
    assert.equal(chats.get(seeded.chats[4]!.jid)?.name ?? chats.get(seeded.chats[4]!.jid)?.displayName, seeded.chats[4]!.name, 'the chat name travels');
    const notify = sets.flatMap((s) => s.contacts).filter((c) => c.notify);
    assert.equal(new Set(notify.map((c) => c.id)).size, seeded.pushNames, 'every push name');
    const { counters } = await env.admin.counters();
    assert.deepEqual(
      { bootstrap: counters['history.bootstrap'], chunks: counters['history.chunks'], names: counters['history.pushnames'] },
      { bootstrap: 1, chunks: 3, names: 1 },
      'one bootstrap, three RECENT chunks, one push-name notice',
    );
    // A restart of the device: the phone does not send its history again.
    sock.end(undefined);
    const again = connect(env, auth, extra);
    const laterSets: BaileysEventMap['messaging-history.set'][] = [];
    again.ev.on('messaging-history.set', (s) => laterSets.push(s));
    try {
      // The phone decides at the device's first "active" of a login, when it also sends the end
      // of what it held offline: past that, a history it sent would travel before a message a
      // contact sends now.
      await waitForEvent(again, 'connection.update', (u) => u.receivedPendingNotifications === true, 15_000, 'the end of the offline messages');
      const barrier = waitForEvent(again, 'messages.upsert', ({ messages }) => messages.some((m) => m.message?.conversation === 'after the login'), 15_000, 'a message after the login');
      await env.admin.sendAsContact({ from: BOB, to: ALICE, type: 'text', text: 'after the login' });
      await barrier;
      const { counters: later } = await env.admin.counters();
      assert.equal(later['history.chunks'], 3, 'no history at a later login');
      assert.equal(later['history.bootstrap'], 1, 'no second bootstrap');
      assert.equal(laterSets.length, 0, 'the device got no history');
    } finally {
      await endSock(again);
    }
  } finally {
    await endSock(sock);
  }
});

test('seeding checks its input', async () => {
  await assert.rejects(env.admin.seedHistory(ALICE, { chats: -1, messagesPerChat: 1, days: 1 }), /chats must be/, 'negative chats');
  await assert.rejects(env.admin.seedHistory(ALICE, { chats: 5000, messagesPerChat: 1000, days: 1 }), /at most/, 'too many messages');
  await env.admin.createUser({ phone: '5511900000198' });
  await assert.rejects(env.admin.phoneHistory('5511900000198'), /holds no history/, 'a phone with no history');
});
