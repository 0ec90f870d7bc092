// Pairing: QR scan and pairing code lead real Baileys 7 to connection 'open'; unknown numbers do not exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, endSock, memoryAuth, pairByQr, startEnv, until, waitForClose, waitForOpen, waitForQr, type Sock } from './helpers.js';

test('pair by QR: scan → 515 → login → open', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    await env.admin.createUser({ phone: '5511900000001', pushName: 'Alice' });
    const paired = await pairByQr(env, '5511900000001');
    sock = paired.sock;
    assert.match(paired.auth.creds.me!.id, /^5511900000001:\d+@s\.whatsapp\.net$/);
    assert.match(paired.auth.creds.me!.lid!, /@lid$/);
    const info = await env.admin.user('5511900000001');
    assert.equal(info.devices.length, 1);
    assert.ok(info.devices[0]!.online);
    assert.ok(info.devices[0]!.preKeys > 700, 'pre-keys uploaded at first login');
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('pair by code: requestPairingCode → phone enters it → 515 → open', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    const auth = memoryAuth();
    const first = connect(env, auth);
    await waitForQr(first);
    const code = await first.requestPairingCode('5511900000002');
    assert.equal(code.length, 8);
    const closed = waitForClose(first);
    const linked = await env.admin.enterPairingCode('5511900000002', code);
    assert.match(linked.jid, /^5511900000002:\d+@s\.whatsapp\.net$/);
    assert.equal((await closed).code, 515);
    sock = connect(env, auth);
    await waitForOpen(sock);
    assert.equal(auth.creds.me?.id, linked.jid);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('wrong pairing code is rejected and does not link', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    const auth = memoryAuth();
    sock = connect(env, auth);
    await waitForQr(sock);
    await sock.requestPairingCode('5511900000003');
    await assert.rejects(env.admin.enterPairingCode('5511900000003', 'AAAAAAAA'), /rejected/);
    assert.equal((await env.admin.user('5511900000003')).devices.length, 0);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('numbers outside the auto pattern do not exist; onWhatsApp reports only existing ones', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    ({ sock } = await pairByQr(env, '5511900000004'));
    await env.admin.createUser({ phone: '4420000000001' });
    const res = await sock.onWhatsApp('5511900000005', '4420000000001', '4420000000002');
    assert.deepEqual(res?.map((r) => r.jid).sort(), ['4420000000001@s.whatsapp.net', '5511900000005@s.whatsapp.net']);
    await assert.rejects(env.admin.user('4420000000002'), /no such user/);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('unlinkDevice logs the device out with 401 and later logins fail with 401', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    const paired = await pairByQr(env, '5511900000006');
    const closed = waitForClose(paired.sock);
    await env.admin.unlinkDevice('5511900000006');
    assert.equal((await closed).code, 401);
    sock = connect(env, paired.auth);
    assert.equal((await waitForClose(sock)).code, 401);
  } finally {
    await endSock(sock);
    await env.close();
  }
});

test('a companion gone before answering pair-success is not linked; pair-device-sign is what links', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    const phone = '5511900000007';
    await env.admin.createUser({ phone });
    const auth = memoryAuth();
    const first = connect(env, auth);
    const qr = await waitForQr(first);
    // The paired creds arrive (creds.update) just before Baileys sends pair-device-sign: closing
    // the link there is a companion that crashed before its answer left.
    first.ev.on('creds.update', (u) => {
      if (u.account) void first.ws.close();
    });
    const closed = waitForClose(first);
    const scanned = await env.admin.scanQr(phone, qr);
    await closed;
    await until(async () => (await env.admin.counters()).counters['pairings.abandoned'] === 1, 5_000, 'simnet saw the pairing abandoned');
    assert.deepEqual((await env.admin.user(phone)).devices, [], 'nothing linked without pair-device-sign');
    assert.equal(auth.creds.me?.id, scanned.jid, 'the companion did get pair-success');
    const retry = connect(env, auth);
    assert.equal((await waitForClose(retry)).code, 401, 'the creds of an unanswered pair-success cannot log in');
    ({ sock } = await pairByQr(env, phone));
    const devices = (await env.admin.user(phone)).devices;
    assert.equal(devices.length, 1, `one linked device after a pairing that answered (${JSON.stringify(devices)})`);
    assert.notEqual(devices[0]!.id, scanned.deviceId, 'the abandoned device id is not reused');
  } finally {
    await endSock(sock);
    await env.close();
  }
});
