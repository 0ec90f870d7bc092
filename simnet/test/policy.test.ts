// Network policy and schedule: QR refs (6, then 408), expired refs, spam restriction nacks (463), the
// temporary restriction of new chats, then ban (403), duplicate counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, endSock, memoryAuth, pairByQr, startEnv, until, waitForClose, type Sock } from './helpers.js';

test('QR: six refs, then the client gives up with 408 "QR refs attempts ended"; an expired ref cannot be scanned', async () => {
  const env = await startEnv({ timeScale: 0.001 });
  let sock: Sock | undefined;
  try {
    const qrs: string[] = [];
    sock = connect(env, memoryAuth(), { qrTimeout: 150 });
    sock.ev.on('connection.update', (u) => {
      if (u.qr) qrs.push(u.qr);
    });
    const closed = await waitForClose(sock, 10_000);
    assert.equal(qrs.length, 6);
    assert.equal(closed.code, 408);
    assert.match(closed.message, /QR refs attempts ended/);
    // At timeScale 0.001 the first ref lived 60 ms: long gone.
    await assert.rejects(env.admin.scanQr('5511900000050', qrs[0]!), /expired|unknown/);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

/** Error acks per message id (status ERROR with the code); one folded into our still-buffered upsert counts too. */
function trackErrors(sock: Sock): Map<string, string> {
  const errors = new Map<string, string>();
  const onStatus = (id: string | null | undefined, status: number | null | undefined, params: string[] | null | undefined) => {
    if (id && status === 0) errors.set(id, params?.[0] ?? '');
  };
  sock.ev.on('messages.update', (ups) => ups.forEach((u) => onStatus(u.key.id, u.update.status, u.update.messageStubParameters)));
  sock.ev.on('messages.upsert', ({ messages }) => messages.forEach((m) => onStatus(m.key.id, m.status, m.messageStubParameters)));
  return errors;
}

// The spam window is protocol time: at time scale 0.05 an hour passes in 3 minutes, long enough for a slow run to stay in one window.
const HOUR = 3_600_000;

test('spam detector: too many new chats → 463 nacks, then the account is banned (403)', async () => {
  const env = await startEnv({ spam: { enabled: true, maxNewChatsPerWindow: 2, banAfterViolations: 2, windowMs: HOUR } });
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, '5511900000051'));
    const errors = trackErrors(sock);
    for (const n of ['5511900000061', '5511900000062']) {
      const s = await sock.sendMessage(`${n}@s.whatsapp.net`, { text: 'hi stranger' });
      await env.admin.waitForReceived(n, (m) => m.id === s!.key.id);
    }
    // A known contact is still fine.
    await sock.sendMessage('5511900000061@s.whatsapp.net', { text: 'again' });
    const third = await sock.sendMessage('5511900000063@s.whatsapp.net', { text: 'hi stranger' });
    assert.equal(await until(() => errors.get(third!.key.id!), 5000, '463'), '463');
    const closed = waitForClose(sock);
    await sock.sendMessage('5511900000064@s.whatsapp.net', { text: 'hi stranger' });
    assert.equal((await closed).code, 403);
    assert.equal((await env.admin.user('5511900000051')).banned, true);
    assert.ok((await env.admin.counters()).counters['spam.banned'] === 1);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('spam detector: identical content to more than maxIdenticalRecipients → 463 nacks, then a 403 ban; different content to as many does not', async () => {
  // New chats are plentiful here: only the identical-content rule can trigger.
  const env = await startEnv({ spam: { enabled: true, maxNewChatsPerWindow: 100, maxIdenticalRecipients: 3, banAfterViolations: 2, windowMs: HOUR } });
  const SENDER = '5511900000056';
  const to = ['5511900000071', '5511900000072', '5511900000073', '5511900000074', '5511900000075'];
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, SENDER));
    const errors = trackErrors(sock);
    // Different content to all five: every message is accepted and reaches its contact.
    for (const [i, n] of to.entries()) {
      const s = await sock.sendMessage(`${n}@s.whatsapp.net`, { text: `personal note #${i} for ${n}` });
      await env.admin.waitForReceived(n, (m) => m.id === s!.key.id);
    }
    // The same text to the same five: the first three recipients get it (repeating one of them is no broadcast)…
    const promo = { text: 'Big sale today only!' };
    for (const n of [to[0]!, to[1]!, to[2]!, to[0]!]) {
      const s = await sock.sendMessage(`${n}@s.whatsapp.net`, promo);
      await env.admin.waitForReceived(n, (m) => m.id === s!.key.id);
    }
    assert.equal(errors.size, 0, JSON.stringify([...errors]));
    assert.equal((await env.admin.counters()).counters['spam.restricted'] ?? 0, 0);
    // …the fourth distinct recipient is refused with 463 and never gets it…
    const fourth = await sock.sendMessage(`${to[3]}@s.whatsapp.net`, promo);
    const fourthId = fourth!.key.id!;
    assert.equal(await until(() => errors.get(fourthId), 5000, '463'), '463');
    assert.ok(!(await env.admin.received(to[3]!)).some((m) => m.id === fourthId));
    assert.equal((await env.admin.user(SENDER)).banned, false);
    // …and the second violation bans the account: failure 403 now and at the next login.
    const closed = waitForClose(sock);
    await sock.sendMessage(`${to[4]}@s.whatsapp.net`, promo);
    assert.equal((await closed).code, 403);
    assert.equal((await env.admin.user(SENDER)).banned, true);
    const c = (await env.admin.counters()).counters;
    assert.equal(c['spam.restricted'], 2);
    assert.equal(c['spam.banned'], 1);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('spam detector: after a violation new chats stay restricted beyond the window; known peers still get through; attempts meanwhile lead to the ban', async () => {
  // Window of 1 protocol minute, restriction of an hour: a new window does not lift it.
  const env = await startEnv({ spam: { enabled: true, maxNewChatsPerWindow: 1, banAfterViolations: 3, windowMs: 60_000, restrictNewChatsMs: HOUR } });
  const SENDER = '5511900000057';
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, SENDER));
    const errors = trackErrors(sock);
    const first = await sock.sendMessage('5511900000081@s.whatsapp.net', { text: 'hello one' });
    await env.admin.waitForReceived('5511900000081', (m) => m.id === first!.key.id);
    const second = await sock.sendMessage('5511900000082@s.whatsapp.net', { text: 'hello two' });
    assert.equal(await until(() => errors.get(second!.key.id!), 5000, '463'), '463');
    // The window rolls over: without the restriction a new chat would be allowed again.
    env.jump(61_000);
    const third = await sock.sendMessage('5511900000083@s.whatsapp.net', { text: 'hello three' });
    assert.equal(await until(() => errors.get(third!.key.id!), 5000, '463'), '463', 'new chats still restricted');
    const known = await sock.sendMessage('5511900000081@s.whatsapp.net', { text: 'a reply to a known peer' });
    await env.admin.waitForReceived('5511900000081', (m) => m.id === known!.key.id);
    assert.equal((await env.admin.user(SENDER)).banned, false);
    // A third attempt at a new chat while restricted: banned.
    const closed = waitForClose(sock);
    await sock.sendMessage('5511900000084@s.whatsapp.net', { text: 'hello four' });
    assert.equal((await closed).code, 403);
    assert.equal((await env.admin.user(SENDER)).banned, true);
    assert.equal((await env.admin.counters()).counters['spam.restricted'], 3);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('counters report per-message-id deliveries, so a resend with the same id shows as a duplicate', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, '5511900000052'));
    const to = '5511900000053@s.whatsapp.net';
    await sock.sendMessage(to, { text: 'once' }, { messageId: 'DUPLICATE-ID-1' });
    await sock.sendMessage(to, { text: 'once' }, { messageId: 'DUPLICATE-ID-1' });
    const c = await until(async () => {
      const snap = await env.admin.counters();
      return snap.duplicates['5511900000053:DUPLICATE-ID-1'] ? snap : undefined;
    }, 5000, 'duplicate');
    assert.equal(c.duplicates['5511900000053:DUPLICATE-ID-1'], 2);
    assert.equal(c.counters.duplicates, 1);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('played receipt for a voice note when the contact reads automatically', async () => {
  const env = await startEnv({ receipts: { delivered: 'auto', deliveredDelayMs: 1000, read: 'auto', readDelayMs: 2000 } });
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, '5511900000054'));
    // Highest status per id: a receipt that lands while our own upsert is still buffered is folded into the upsert.
    const statuses = new Map<string, number>();
    const seen = (id: string | null | undefined, st: number | null | undefined) => {
      if (id && st != null) statuses.set(id, Math.max(statuses.get(id) ?? 0, st));
    };
    sock.ev.on('messages.update', (ups) => ups.forEach((u) => seen(u.key.id, u.update.status)));
    sock.ev.on('messages.upsert', ({ messages }) => messages.forEach((m) => seen(m.key.id, m.status)));
    const ogg = Buffer.from('OggS fake voice note bytes');
    const sent = await sock.sendMessage('5511900000055@s.whatsapp.net', { audio: ogg, ptt: true, mimetype: 'audio/ogg; codecs=opus', seconds: 1 } as never);
    const id = sent!.key.id!;
    await until(() => (statuses.get(id) ?? 0) >= 5, 10_000, 'played');
    const got = await env.admin.waitForReceived('5511900000055', (m) => m.type === 'audio');
    assert.ok(Buffer.from(got.media!.base64!, 'base64').equals(ogg));
  } finally {
    await endSock(sock);
    await env.close();
  }
});
