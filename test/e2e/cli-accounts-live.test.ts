// `zapgate accounts rotate|delete` run in another process take effect at once in a running gateway.
// They used to leave the old Client-Token working for up to 5 s (the auth cache),
// and a deleted account's sessions stayed connected (incoming messages then failed on a foreign
// key). Now the gateway polls the account_changes log every 100 ms (real time): the old token is
// refused within ~200 ms of the command's exit on a quiet machine, and a deleted account's instances
// are gone, their devices unlinked and their sessions closed.
// In process, the gateway's clock is frozen (the test moves it): the cache's 5 s of protocol time
// never run out on their own, so a token refused at all was refused by the poll, however slow the
// machine. The figures (ms from the command's exit) are printed, not asserted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { REPO_ROOT, cliEnv, spawnGateway } from '../helpers/process-gateway.js';
import { startHarness, until, type Harness } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const run = promisify(execFile);
/** How long the gateway keeps an authenticated token without reading the store again (services/accounts-service.ts). */
const AUTH_CACHE_MS = 5_000;

/** Runs `zapgate accounts …` against the harness' data directory; returns its JSON output. */
async function cli(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const env = cliEnv({ ZAPGATE_DATA_DIR: dataDir });
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin/zapgate.js'), ...args], { cwd: dataDir, env, timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

/** Real milliseconds until `check` holds (a figure to print; the wait is bounded by `until`). */
async function msUntil(what: string, check: () => Promise<boolean>): Promise<number> {
  const t0 = performance.now();
  await until(what, check, (ok) => ok);
  return performance.now() - t0;
}

describe('account changes from the CLI reach the running gateway at once', () => {
  let h: Harness;

  before(async () => {
    // Frozen protocol time (the token cache never expires by itself), real guards: the accounts
    // watcher polls the store on real time, as it does for Baileys and simnet.
    h = await startHarness({ clock: new VirtualClock({ mode: 'frozen', guards: 'real' }) });
  });
  after(() => h.close());

  const listWith = async (token: string) => (await h.call('GET', '/instances', undefined, { 'client-token': token })).status;

  test('accounts rotate: the old Client-Token is refused while still cached, the new one works', async (t) => {
    const b = await cli(h.dataDir, 'accounts', 'create', 'rotating');
    const oldToken = String(b.clientToken);
    // Used, so the gateway has it cached (for 5 s of protocol time: the frozen clock never gets there).
    assert.equal(await listWith(oldToken), 200);
    const cachedAt = h.clock.now();
    assert.equal(await listWith(oldToken), 200);
    const rotated = await cli(h.dataDir, 'accounts', 'rotate', String(b.id));
    const ms = await msUntil('the old token refused', async () => (await listWith(oldToken)) === 401);
    t.diagnostic(`the old token was refused ${ms.toFixed(0)} ms after the rotation command exited`);
    assert.ok(h.clock.now() - cachedAt < AUTH_CACHE_MS, 'refused while the cache still held it: the change log was read');
    assert.equal(await listWith(String(rotated.clientToken)), 200, 'the new token works');
  });

  test('accounts delete: the token is refused, the instances are gone, their sessions closed and devices unlinked', async (t) => {
    const phone = '5511970000001';
    // The pairing's protocol waits (the clock is frozen) are jumped.
    const inst = await skipWaits(h.clock, h.pairNew(phone, 'doomed'), { horizonMs: 5_000 });
    const accountId = (await h.gateway.store.accounts.list()).find((a) => a.name === 'e2e')?.id;
    assert.ok(accountId, 'the harness account');
    assert.equal(h.gateway.sessions.isConnected(inst.instanceId), true, 'connected before');
    const companions = async () => (await h.admin.user(phone)).devices.filter((d) => d.id !== 0);
    assert.ok((await companions()).some((d) => d.online), 'the device is linked and online');
    assert.equal(await listWith(h.clientToken), 200);
    const cachedAt = h.clock.now();

    await cli(h.dataDir, 'accounts', 'delete', accountId);
    const ms = await msUntil('the deleted account refused', async () => (await listWith(h.clientToken)) === 401);
    t.diagnostic(`the deleted account's token was refused ${ms.toFixed(0)} ms after the deletion command exited`);
    assert.ok(h.clock.now() - cachedAt < AUTH_CACHE_MS, 'refused while the cache still held it: the change log was read');
    await msUntil('the session closed', async () => !h.gateway.sessions.isConnected(inst.instanceId));
    await msUntil('the device unlinked on the network', async () => (await companions()).every((d) => !d.online));
    assert.equal(await h.gateway.store.instances.findById(inst.instanceId), undefined, 'the instance is gone');
    // Nothing reconnects it afterwards: no session is left to do it, and a reconnection would wait
    // for a backoff timer, which the clock jumps past (the longest is 5 min).
    assert.equal(h.gateway.engine?.sessionOf(inst.instanceId), undefined, 'no session left');
    await h.clock.advance(5 * 60_000 + 1);
    assert.equal(h.gateway.engine?.sessionOf(inst.instanceId), undefined, 'none started since');
    assert.equal(h.gateway.sessions.isConnected(inst.instanceId), false, 'still closed');
  });
});

describe('the same against a gateway running as its own process', () => {
  test('rotate: the old token refused while still cached; delete: the token refused and the instances gone', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-cli-live-'));
    const first = randomBytes(20).toString('hex').toUpperCase();
    const gw = await spawnGateway({ dataDir, env: { ZAPGATE_CLIENT_TOKEN: first, ZAPGATE_RATE_LIMIT: '0' } });
    const call = async (method: string, path: string, token: string, body?: unknown) => {
      const res = await fetch(gw.url + path, {
        method,
        headers: { 'client-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
    };
    try {
      const b = await cli(dataDir, 'accounts', 'create', 'b');
      const oldToken = String(b.clientToken);
      const created = await call('POST', '/instances', oldToken, { name: 'x' });
      assert.equal(created.status, 201);
      assert.equal((await call('GET', '/instances', oldToken)).status, 200, 'cached');
      // This gateway runs on the wall clock, so its cache could also let go of the token by itself
      // on a slow machine: that the change log is read in time is the in-process test's to show;
      // here, that a command run beside a separate gateway process takes effect there.
      const rotated = await cli(dataDir, 'accounts', 'rotate', String(b.id));
      const ms = await msUntil('the old token refused', async () => (await call('GET', '/instances', oldToken)).status === 401);
      t.diagnostic(`the old token was refused ${ms.toFixed(0)} ms after the rotation command exited`);
      const newToken = String(rotated.clientToken);
      assert.equal((await call('GET', '/instances', newToken)).status, 200);

      const prefix = `/instances/${String(created.json.instanceId)}/token/${String(created.json.instanceToken)}`;
      assert.equal((await call('GET', `${prefix}/status`, newToken)).status, 200);
      await cli(dataDir, 'accounts', 'delete', String(b.id));
      const gone = await msUntil('the deleted account refused', async () => (await call('GET', `${prefix}/status`, newToken)).status === 401);
      t.diagnostic(`the deleted account was refused ${gone.toFixed(0)} ms after the deletion command exited`);
      assert.equal((await call('GET', '/instances', first)).status, 200, 'other accounts unaffected');
      await gw.stop();
      assert.doesNotMatch(gw.stdout() + gw.stderr(), /"level":50/, 'no error logged');
    } finally {
      await gw.kill9();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
