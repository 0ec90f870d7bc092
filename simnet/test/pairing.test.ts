// Pairing: QR scan and pairing code lead real Baileys 7 to connection 'open'; unknown numbers do not exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endSock, pairByQr, startEnv, type Sock } from './helpers.js';

test('pair by QR: scan → 515 → login → open', async () => {
  const env = await startEnv();
  let sock: Sock | undefined;
  try {
    await env.admin.createUser({ phone: '5511900000001', pushName: 'Alice' });
    const t0 = Date.now();
    const paired = await pairByQr(env, '5511900000001');
    sock = paired.sock;
    assert.match(paired.auth.creds.me!.id, /^5511900000001:\d+@s\.whatsapp\.net$/);
    assert.match(paired.auth.creds.me!.lid!, /@lid$/);
    const info = await env.admin.user('5511900000001');
    assert.equal(info.devices.length, 1);
    assert.ok(info.devices[0]!.online);
    assert.ok(info.devices[0]!.preKeys > 700, 'pre-keys uploaded at first login');
    assert.ok(Date.now() - t0 < 10_000);
  } finally {
    await endSock(sock);
    await env.close();
  }
});
