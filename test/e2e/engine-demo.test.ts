// `zapgate demo`: the printed steps work as written — pair the virtual phone, send, the contact gets it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimnetClient } from '../../simnet/src/index.js';
import { DEMO_CONTACT, DEMO_PHONE, startDemo } from '../../src/demo.js';
import '../helpers/baileys-timers.js';

test('the demo pairs its virtual phone from the QR and delivers a first message', async () => {
  const demo = await startDemo({ port: 0, simnetPort: 0, logLevel: 'silent' });
  try {
    assert.match(demo.instructions, new RegExp(`/users/${DEMO_PHONE}/scan`));
    const headers = { 'client-token': demo.clientToken, 'content-type': 'application/json' };
    const api = `${demo.gatewayUrl}${demo.prefix}`;
    const qr = (await (await fetch(`${api}/qr-code`, { headers })).json()) as { value: string };
    const admin = new SimnetClient(demo.simnetAdminUrl);
    await admin.scanQr(DEMO_PHONE, qr.value);
    const deadline = Date.now() + 20_000;
    let status: { connected?: boolean } = {};
    while (Date.now() < deadline && status.connected !== true) {
      status = (await (await fetch(`${api}/status`, { headers })).json()) as { connected?: boolean };
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status.connected, true);
    const sent = (await (await fetch(`${api}/send-text`, { method: 'POST', headers, body: JSON.stringify({ phone: DEMO_CONTACT, message: 'Hello from zapgate' }) })).json()) as { messageId: string };
    // The demo runs at real time scale: the first message waits the default 1–3 s gap.
    const got = await admin.waitForReceived(DEMO_CONTACT, (m) => m.id === sent.messageId, 20_000);
    assert.equal(got.text, 'Hello from zapgate');
  } finally {
    await demo.close();
  }
});
