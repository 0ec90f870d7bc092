// Network faults injected by simnet map to the documented instance states (docs/contract.md §4), with
// the webhooks a client sees, and a flapping network costs one login per drop, with a backoff that
// doubles on the gateway's clock. Reconnect backoffs are protocol time: the tests jump the shared
// clock to them (driveUntil) instead of waiting them out.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import type { FaultRequest } from '../../simnet/src/index.js';
import { DEFAULT_BACKOFF } from '../../src/sessions/link/close-policy.js';
import { sleep, startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

/**
 * Baileys' keep-alive (real time): a silent link is dropped once it has been quiet for this plus
 * 5 s. Short, so that the silence fault is noticed in seconds rather than a minute.
 */
const KEEP_ALIVE_MS = 1_000;
/** The longest first reconnect delay the backoff can pick (base + jitter). */
const FIRST_BACKOFF_MAX_MS = DEFAULT_BACKOFF.baseMs * (1 + DEFAULT_BACKOFF.jitter);

describe('engine faults (gateway + Baileys + simnet)', () => {
  let h: Harness;
  // Distinct accounts per fault, so one test's damage (a ban, a removal) cannot leak into another.
  const phones = { transient: '5511900001001', replaced: '5511900001002', removed: '5511900001003', banned: '5511900001004', flap: '5511900001005' };
  const inst: Partial<Record<keyof typeof phones, Instance>> = {};

  before(async () => {
    h = await startHarness({ engine: { keepAliveMs: KEEP_ALIVE_MS } });
    for (const [k, phone] of Object.entries(phones)) inst[k as keyof typeof phones] = await h.pairNew(phone, k);
  });
  after(async () => {
    await h?.close();
  });

  const logins = async (): Promise<number> => (await h.admin.counters()).counters.logins ?? 0;
  const status = async (i: Instance): Promise<Record<string, unknown>> => (await h.call('GET', `${i.prefix}/status`)).json;
  const hooksFor = (i: Instance, type: string) => h.webhooks.hits.filter((w) => w.path === `/${i.instanceId}` && w.body.type === type);

  const transient: [FaultRequest, string][] = [
    [{ kind: 'stream-error', code: 503 }, '503'],
    [{ kind: 'stream-error', code: 515 }, '515'],
    [{ kind: 'close' }, 'closed socket (428)'],
    [{ kind: 'silence' }, 'silence past keep-alive (408)'],
  ];
  for (const [fault, label] of transient) {
    test(`a transient fault (${label}) is reported and the instance reconnects by itself`, async () => {
      const i = inst.transient!;
      const disconnectedBefore = hooksFor(i, 'DisconnectedCallback').length;
      const connectedBefore = hooksFor(i, 'ConnectedCallback').length;
      await h.admin.injectFault(phones.transient, fault);
      // The reconnect waits its backoff on the clock: jumped to (the silence is first noticed by
      // Baileys' keep-alive, on real time).
      await h.driveUntil(`reconnect after ${label}`, async () => hooksFor(i, 'ConnectedCallback').length, (n) => n > connectedBefore, { timeoutMs: 30_000 });
      const status = await h.waitForStatus(i, 'connected');
      assert.equal(status.connected, true);
      if (fault.kind !== 'stream-error' || fault.code !== 515) {
        const d = hooksFor(i, 'DisconnectedCallback');
        assert.ok(d.length > disconnectedBefore, 'a DisconnectedCallback was sent');
      }
    });
  }

  test('440 (another client took over) → replaced, not retried; restart reconnects it', async () => {
    const i = inst.replaced!;
    const before = await logins();
    await h.admin.injectFault(phones.replaced, { kind: 'stream-error', code: 440 });
    const replaced = await h.waitForStatus(i, 'replaced');
    assert.equal(replaced.connected, false);
    await h.webhooks.waitFor((w) => w.path === `/${i.instanceId}` && w.body.type === 'DisconnectedCallback' && w.body.error === 'replaced by another session');
    // A reconnect would be a timer on the clock: jump well past any first backoff. It would have
    // fired in the jump and set the status to connecting at once.
    await h.clock.advance(10 * FIRST_BACKOFF_MAX_MS);
    assert.equal((await status(i)).status, 'replaced', 'still replaced: no reconnect was scheduled');
    assert.equal((await h.call('POST', `${i.prefix}/restart`)).status, 200);
    await h.waitForStatus(i, 'connected');
    assert.equal(await logins(), before + 1, 'the restart is the only login since the takeover');
  });

  test('the phone removes the device (401) → logged_out, credentials wiped, a new QR is served', async () => {
    const i = inst.removed!;
    await h.admin.unlinkDevice(phones.removed);
    const status = await h.waitForStatus(i, 'logged_out');
    assert.equal(status.connected, false);
    assert.deepEqual(await h.gateway.store.auth.countKeys(i.instanceId), {});
    const qr = await h.call('GET', `${i.prefix}/qr-code`);
    assert.equal(qr.status, 200);
    assert.match(String(qr.json.value), /^https:\/\/wa\.me\/settings\/linked_devices#/);
  });

  test('a banned account (403) → banned, and stays down', async () => {
    const i = inst.banned!;
    const before = await logins();
    await h.admin.injectFault(phones.banned, { kind: 'ban' });
    const banned = await h.waitForStatus(i, 'banned');
    assert.match(String(banned.statusReason), /403/);
    // As for 440: a reconnect would be a timer, fired by this jump, and would show at once.
    await h.clock.advance(10 * FIRST_BACKOFF_MAX_MS);
    assert.equal((await status(i)).status, 'banned', 'stays down: no reconnect was scheduled');
    assert.equal(await logins(), before, 'no login attempt');
  });

  test('a flapping network (every link dropped right after login) gets backoff, not a reconnect storm', async (t) => {
    const i = inst.flap!;
    const DROPS = 4;
    const start = await logins();
    const started = performance.now();
    const waited: number[] = [];
    // Drop the link each time it comes up. The session names each wait in its status; the clock is
    // jumped only as far as that wait can go (so the link's 60 s stability timer never fires and
    // the backoff keeps doubling).
    for (let drop = 1; drop <= DROPS; drop++) {
      await h.waitForStatus(i, 'connected');
      await h.admin.injectFault(phones.flap, { kind: 'close' });
      const droppedAt = h.clock.now();
      const scheduled = await until('the reconnect to be scheduled', () => status(i), (s) => new RegExp(`reconnecting in [0-9.]+ s \\(attempt ${drop}\\)`).test(String(s.statusReason)));
      assert.equal(scheduled.connected, false);
      const maxDelay = DEFAULT_BACKOFF.baseMs * 2 ** (drop - 1) * (1 + DEFAULT_BACKOFF.jitter);
      await h.driveUntil(`reconnect ${drop}`, () => status(i), (s) => s.connected === true, { withinMs: maxDelay + 100 });
      waited.push(h.clock.now() - droppedAt);
    }
    const attempts = (await logins()) - start;
    t.diagnostic(`${DROPS} drops: ${attempts} logins; drop → connected on the clock ${waited.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}; ${Math.round(performance.now() - started)} ms real`);
    assert.equal(attempts, DROPS, 'one login per drop: no reconnect storm');
    // Each wait is at least its backoff: base · 2^(attempt-1), less the jitter.
    waited.forEach((ms, k) => assert.ok(ms >= DEFAULT_BACKOFF.baseMs * 2 ** k * (1 - DEFAULT_BACKOFF.jitter) - 50, `drop ${k + 1}: reconnected after ${ms} ms on the clock`));
    // Once the network is calm, it stays connected.
    assert.equal((await h.waitForStatus(i, 'connected')).connected, true);
  });

  test('a slow disk: the restart the network asks for right after pairing logs in with the new credentials', async () => {
    // The pairing's credentials are still being committed when the 515 restart reconnects: it
    // must read them back, not the row from before them (which looked like an unfinished
    // pairing, was wiped, and left the instance showing a fresh QR forever).
    const auth = h.gateway.store.auth;
    const writeCreds = auth.writeCreds.bind(auth);
    auth.writeCreds = async (...args) => {
      // The slow disk itself (real time, as a disk is), not a wait for anything.
      await sleep(300);
      return writeCreds(...args);
    };
    try {
      const slow = await h.pairNew('5511900001006', 'slow-disk');
      const status = await h.waitForStatus(slow, 'connected');
      assert.equal(status.phone, '5511900001006');
    } finally {
      auth.writeCreds = writeCreds;
    }
  });
});
