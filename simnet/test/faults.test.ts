// Fault injection: each injected fault yields the close code of docs/whatsapp-protocol.md Part 1; nacks surface as status ERROR.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, endSock, pairByQr, startEnv, until, waitForClose, waitForOpen, type MemoryAuth, type SimEnv, type Sock } from './helpers.js';

const PHONE = '5511900000020';
const BOB = '5511900000021';
let env: SimEnv;
let auth: MemoryAuth;
let sock: Sock | undefined;

before(async () => {
  env = await startEnv();
  ({ sock, auth } = await pairByQr(env, PHONE));
});

after(async () => {
  await endSock(sock);
  await env.close();
});

async function reopen(extra = {}): Promise<Sock> {
  sock = connect(env, auth, extra);
  await waitForOpen(sock);
  return sock;
}

for (const [fault, code] of [
  [{ kind: 'stream-error', code: 515 }, 515],
  [{ kind: 'stream-error', code: 503 }, 503],
  [{ kind: 'stream-error', code: 440 }, 440],
  [{ kind: 'close' }, 428],
] as const) {
  test(`fault ${JSON.stringify(fault)} → close ${code}, then reconnect works`, async () => {
    const s = sock ?? (await reopen());
    const closed = waitForClose(s);
    const r = await env.admin.injectFault(PHONE, fault);
    assert.equal(r.affected, 1);
    assert.equal((await closed).code, code);
    sock = undefined;
    await reopen();
  });
}

test('a second login replaces the first: the old socket closes with 440', async () => {
  const old = sock ?? (await reopen());
  const closed = waitForClose(old);
  const fresh = connect(env, auth);
  await waitForOpen(fresh);
  assert.equal((await closed).code, 440);
  sock = fresh;
});

test('silence past keep-alive → 408 connection lost', async () => {
  await endSock(sock);
  const s = await reopen({ keepAliveIntervalMs: 500 });
  const closed = waitForClose(s, 15_000);
  await env.admin.injectFault(PHONE, { kind: 'silence' });
  const r = await closed;
  assert.equal(r.code, 408);
  sock = undefined;
  await reopen();
});

test('message nack → messages.update status ERROR with the code', async () => {
  const s = sock ?? (await reopen());
  await env.admin.injectFault(PHONE, { kind: 'nack', code: 479, count: 1 });
  const errors = new Map<string, unknown>();
  s.ev.on('messages.update', (ups) => {
    for (const u of ups) if (u.update.status === 0) errors.set(u.key.id!, u.update.messageStubParameters);
  });
  // An ack that lands while our own upsert is still buffered is folded into it.
  s.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) if (m.status === 0 && m.key.fromMe) errors.set(m.key.id!, m.messageStubParameters);
  });
  const sent = await s.sendMessage(`${BOB}@s.whatsapp.net`, { text: 'will be refused' });
  const params = await until(() => errors.get(sent!.key.id!), 5000, 'error status');
  assert.deepEqual(params, ['479']);
  const ok = await s.sendMessage(`${BOB}@s.whatsapp.net`, { text: 'goes through' });
  await env.admin.waitForReceived(BOB, (m) => m.id === ok!.key.id);
});

test('stream error 401 device_removed → 401 and the device is gone', async () => {
  const s = sock ?? (await reopen());
  const closed = waitForClose(s);
  await env.admin.injectFault(PHONE, { kind: 'stream-error', code: 401 });
  assert.equal((await closed).code, 401);
  sock = undefined;
  assert.equal((await env.admin.user(PHONE)).devices.length, 0);
});

test('ban → failure 403 now and at the next login', async () => {
  const paired = await pairByQr(env, '5511900000022');
  const closed = waitForClose(paired.sock);
  await env.admin.injectFault('5511900000022', { kind: 'ban' });
  assert.equal((await closed).code, 403);
  const again = connect(env, paired.auth);
  assert.equal((await waitForClose(again)).code, 403);
});
