// A pairing interrupted by kill -9 leaves no extra linked device on the phone. Round after round,
// the phone scans the instance's QR and the gateway process is killed a few milliseconds later
// (before pair-success reaches it, while its creds are written, during the restart the network asks
// for, after the login), then restarted. Whenever the instance settles, the phone's list of linked
// devices must match what the gateway shows: a fresh QR with nothing linked, or connected with
// exactly one device. Finally it pairs, and the phone lists exactly one device, connected.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';
import { settle, sleep, until } from '../helpers/wait.js';

const OWNER = '5511999997201';
/** Every creds write of the gateway waits this long (a slow disk): the pairing's own write is a window to hit. */
const SLOW_CREDS_MS = 150;
/**
 * Milliseconds from the scan to the kill, one round each: before pair-success arrives or while its
 * creds are written (nothing linked yet), during the restart the network asks for and the first
 * login (linked, not yet open), after it (connected).
 */
const KILL_AFTER_SCAN_MS = [0, 50, 100, 150, 200, 300, 450];

type Settled = { kind: 'qr'; qr: string } | { kind: 'connected' };

describe('pairing across kill -9 (gateway process + Baileys + simnet)', () => {
  let h: ProcessHarness;

  before(async () => {
    h = await startProcessHarness({
      owner: OWNER,
      contacts: [],
      pair: false,
      // The child runs in its data dir: tsx is named by path, not resolved from there.
      nodeArgs: ['--import', import.meta.resolve('tsx'), '--import', import.meta.resolve('../helpers/slow-creds.ts')],
      env: { TEST_SLOW_CREDS_MS: String(SLOW_CREDS_MS) },
    });
  });

  after(async () => {
    await h.close();
  });

  const devices = async (): Promise<number[]> => (await h.admin.user(OWNER)).devices.map((d) => d.id);

  /** Waits until the instance either offers a QR or is connected (asking for the QR is what a user does). */
  async function settled(): Promise<Settled> {
    const read = async (): Promise<Settled | { kind: 'neither'; status: unknown; qrCode: number }> => {
      const status = await h.api('GET', `${h.prefix}/status`);
      if (status.json.connected === true) return { kind: 'connected' };
      const qr = await h.api('GET', `${h.prefix}/qr-code`);
      if (qr.status === 200 && typeof qr.json.value === 'string') return { kind: 'qr', qr: qr.json.value };
      return { kind: 'neither', status: status.json, qrCode: qr.status };
    };
    return (await until('the instance to offer a QR or connect', read, (s) => s.kind !== 'neither', { pollMs: 100 })) as Settled;
  }

  async function devicesBecome(count: number, what: string): Promise<void> {
    const linked = await settle(devices, (d) => d.length === count);
    assert.equal(linked.length, count, `${what}: the phone lists ${JSON.stringify(linked)}`);
  }

  test('kills around the scan leave at most the one device the instance uses', async (t) => {
    const outcomes: string[] = [];
    let state = await settled();
    for (const delay of KILL_AFTER_SCAN_MS) {
      if (state.kind === 'connected') {
        // A pairing completed across the kill: the phone shows exactly this device. Log out to
        // pair again in the next round (the phone's list empties).
        await devicesBecome(1, 'connected after a kill');
        const out = await h.api('GET', `${h.prefix}/disconnect`);
        assert.equal(out.status, 200, `disconnect answered ${out.status}`);
        await devicesBecome(0, 'after disconnect');
        state = await settled();
        assert.equal(state.kind, 'qr', 'a logged-out instance offers a QR');
      }
      assert.equal(state.kind, 'qr', 'the round starts from a QR');
      // The scan is not awaited: the kill may land before simnet even answers it.
      const scan = h.admin.scanQr(OWNER, state.kind === 'qr' ? state.qr : '').catch((e: unknown) => e);
      // The scenario: the kill lands this long after the scan (each round a different moment).
      if (delay > 0) await sleep(delay);
      await h.gateway().kill9();
      await scan;
      await h.restart();
      state = await settled();
      const linked = await devices();
      outcomes.push(`${delay} ms: ${state.kind}, ${linked.length} linked`);
      // A QR means the gateway starts a new device: nothing of its earlier attempts may stay linked.
      if (state.kind === 'qr') assert.deepEqual(linked, [], `killed ${delay} ms after the scan, restarted offering a QR, yet the phone lists ${JSON.stringify(linked)}`);
      else await devicesBecome(1, `killed ${delay} ms after the scan, restarted connected`);
    }
    if (state.kind === 'qr') {
      await h.admin.scanQr(OWNER, state.qr);
      await h.connected();
    }
    t.diagnostic(outcomes.join('; '));
    const status = await h.api('GET', `${h.prefix}/status`);
    assert.equal(status.json.connected, true, `the instance is connected: ${JSON.stringify(status.json)}`);
    const final = (await h.admin.user(OWNER)).devices;
    assert.equal(final.length, 1, `one linked device on the phone: ${JSON.stringify(final)}`);
    assert.equal(final[0]!.online, true, 'and it is the one the instance is connected as');
  });
});
