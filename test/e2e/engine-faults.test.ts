// Network faults injected by simnet map to the documented instance states (docs/contract.md §4), with
// the webhooks a client sees, and a flapping network costs a bounded number of reconnects.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FaultRequest } from '../../simnet/src/index.js';
import { sleep, startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

describe('engine faults (gateway + Baileys + simnet)', () => {
  let h: Harness;
  // Distinct accounts per fault, so one test's damage (a ban, a removal) cannot leak into another.
  const phones = { transient: '5511900001001', replaced: '5511900001002', removed: '5511900001003', banned: '5511900001004', flap: '5511900001005' };
  const inst: Partial<Record<keyof typeof phones, Instance>> = {};

  before(async () => {
    h = await startHarness();
    for (const [k, phone] of Object.entries(phones)) inst[k as keyof typeof phones] = await h.pairNew(phone, k);
  });
  after(async () => {
    await h?.close();
  });

  const logins = async (): Promise<number> => (await h.admin.counters()).counters.logins ?? 0;
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
      await h.webhooks.waitFor(() => hooksFor(i, 'ConnectedCallback').length > connectedBefore, 20_000, `reconnect after ${label}`);
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
    const status = await h.waitForStatus(i, 'replaced');
    assert.equal(status.connected, false);
    await h.webhooks.waitFor((w) => w.path === `/${i.instanceId}` && w.body.type === 'DisconnectedCallback' && w.body.error === 'replaced by another session');
    await sleep(1_000);
    assert.equal(await logins(), before, 'no automatic reconnect');
    assert.equal((await h.call('POST', `${i.prefix}/restart`)).status, 200);
    await h.waitForStatus(i, 'connected');
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
    const status = await h.waitForStatus(i, 'banned');
    assert.match(String(status.statusReason), /403/);
    await sleep(1_000);
    assert.equal(await logins(), before);
  });

  test('a flapping network (every link dropped right after login) gets backoff, not a reconnect storm', async () => {
    const i = inst.flap!;
    const start = await logins();
    const deadline = Date.now() + 6_000;
    let drops = 0;
    // Drop the link every time it comes up, for six seconds.
    while (Date.now() < deadline) {
      const st = await h.call('GET', `${i.prefix}/status`);
      if (st.json.connected === true) {
        await h.admin.injectFault(phones.flap, { kind: 'close' });
        drops++;
      }
      await sleep(20);
    }
    const attempts = (await logins()) - start;
    // Backoff from 50 ms doubling (time scale 0.05): at most ~8 logins fit in 6 s; an immediate
    // reconnect loop would log in hundreds of times.
    assert.ok(drops >= 3, `the network flapped (${drops} drops)`);
    assert.ok(attempts <= 10, `${attempts} logins in 6 s`);
    // Once the network is calm, it settles back to connected.
    await h.waitForStatus(i, 'connected', 30_000);
  });

  test('a slow disk: the restart the network asks for right after pairing logs in with the new credentials', async () => {
    // The pairing's credentials are still being committed when the 515 restart reconnects: it
    // must read them back, not the row from before them (which looked like an unfinished
    // pairing, was wiped, and left the instance showing a fresh QR forever).
    const auth = h.gateway.store.auth;
    const writeCreds = auth.writeCreds.bind(auth);
    auth.writeCreds = async (...args) => {
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
