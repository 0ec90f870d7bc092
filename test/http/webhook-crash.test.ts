// kill -9 during a delivery attempt: the gateway process dies while the receiver holds the request.
// After a restart on the same database the interrupted delivery is attempted again with the same
// webhook-id and bytes, and every other event follows (at-least-once, nothing lost).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Webhook } from 'standardwebhooks';
import { eventually, startHarness, startReceiver, testPki, type Harness, type Receiver, type ReceivedRequest } from '../helpers/webhook-harness.js';

const COUNT = 20;

let rx: Receiver;
let h: Harness | undefined;

before(async () => {
  rx = await startReceiver('127.0.0.1');
});
after(async () => {
  await h?.close();
  await rx.close();
});

test('an attempt cut short by a crash is retried with the same webhook-id after restart', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-crash-'));
  rx.answer = () => 'hang';

  // Under scripts/test.mjs this file runs transpiled (scripts/test-build.mjs): so does the child, with no loader.
  const compiled = import.meta.filename.endsWith('.js');
  const childArgs = compiled ? [join(import.meta.dirname, '../helpers/webhook-crash-child.js')] : ['--import', 'tsx', join(import.meta.dirname, '../helpers/webhook-crash-child.ts')];
  const child = spawn(process.execPath, [...childArgs, dataDir, `${rx.origin}/hook`, String(COUNT)], {
    env: { ...process.env, TEST_WEBHOOK_CA: testPki().ca },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  let instanceId: string;
  let startTimer: NodeJS.Timeout | undefined;
  try {
    const firstLine = await Promise.race([
      new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
      exited.then(() => {
        throw new Error('the gateway process exited before committing its events');
      }),
      new Promise<never>((_, reject) => (startTimer = setTimeout(() => reject(new Error('the gateway process did not start in time')), 120_000))),
    ]);
    clearTimeout(startTimer);
    instanceId = (JSON.parse(firstLine) as { instanceId: string }).instanceId;
    await rx.waitFor(() => rx.held === 1, 20_000, 'the first attempt to be in flight');
  } finally {
    clearTimeout(startTimer);
    child.kill('SIGKILL');
  }
  assert.equal(await exited, 'SIGKILL');
  assert.equal(rx.requests.length, 1, 'one attempt at a time per URL');
  const interrupted = rx.requests[0]!;

  const answered: ReceivedRequest[] = [];
  rx.answer = (req) => {
    answered.push(req);
    return { status: 200 };
  };
  h = await startHarness({ dataDir, env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' } });
  await eventually(() => answered.length >= COUNT, 20_000, 'every event after the restart');

  const secret = (await h.gateway.store.instances.findById(instanceId))!.webhook_secret;
  const headers = (r: ReceivedRequest) => Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, String(v)]));
  for (const r of [interrupted, ...answered]) new Webhook(secret).verify(r.body, headers(r));
  const again = answered.filter((r) => r.headers['webhook-id'] === interrupted.headers['webhook-id']);
  assert.equal(again.length, 1, 'the interrupted delivery is attempted again');
  assert.equal(again[0]!.body, interrupted.body, 'with the same bytes');
  const ids = answered.map((r) => (JSON.parse(r.body) as { messageId: string }).messageId);
  assert.deepEqual(ids, Array.from({ length: COUNT }, (_, n) => `3EB0${String(n).padStart(18, '0')}`), 'all of them, in order');
  await eventually(async () => (await h!.gateway.store.deliveries.list(instanceId, 'pending', 0, 10)).length === 0, 10_000, 'nothing left pending');
});
