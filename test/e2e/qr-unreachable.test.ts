// When the network cannot be reached, GET …/qr-code says why in its `message` (the reason /status
// records), not only Z-API's "may already be connected or QR expired" guess.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { startHarness, type Harness } from '../helpers/engine-harness.js';

describe('QR code with the network unreachable (real engine)', () => {
  let h: Harness;
  let closedPort = 0;

  before(async () => {
    // A port nobody listens on: take one, then let it go.
    const probe: Server = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closedPort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));
    h = await startHarness({ env: { ZAPGATE_WA_URL: `ws://127.0.0.1:${closedPort}/ws/chat` } });
  });
  after(async () => {
    await h?.close();
  });

  test('qr-code → 404 with the reason the session recorded, the same one /status shows', async () => {
    const inst = await h.createInstance('unreachable');
    const r = await h.call('GET', `${inst.prefix}/qr-code`);
    assert.equal(r.status, 404, r.body.toString());
    assert.equal(r.json.error, 'QR code not available. Instance may already be connected or QR expired.');
    const status = (await h.call('GET', `${inst.prefix}/status`)).json;
    assert.ok(typeof status.statusReason === 'string' && status.statusReason !== 'created', JSON.stringify(status));
    assert.match(String(r.json.message), /^no QR code came from the network \(status \w+: /);
    assert.match(String(r.json.message), /ECONNREFUSED|connect|connection/i, 'the reason names the failed connection');
  });
});
