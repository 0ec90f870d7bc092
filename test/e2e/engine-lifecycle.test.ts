// An instance's life through the HTTP API against simnet: QR pairing, incoming messages as
// webhooks, phone checks, a gateway restart that reconnects without a QR, logout and pairing again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511999990001';
const CONTACT = '5511988880002';

describe('engine lifecycle (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: OWNER, pushName: 'Owner' });
    await h.admin.createUser({ phone: CONTACT, pushName: 'Carla' });
  });
  after(async () => {
    await h?.close();
  });

  test('the QR image decodes to the pairing string the phone scans, and the instance connects', async () => {
    inst = await h.createInstance('lifecycle');
    assert.equal((await h.call('GET', `${inst.prefix}/status`)).json.status, 'disconnected');
    // The network rotates the QR's reference every few (scaled) seconds: on a busy machine a rotation
    // can fall between the two reads, so a pair of reads that straddles one is taken again.
    let qr = '';
    for (let attempt = 1; ; attempt++) {
      qr = await h.qrFromPng(inst);
      assert.match(qr, /^https:\/\/wa\.me\/settings\/linked_devices#[^,]+,[^,]+,[^,]+,[^,]+/);
      const raw = await h.call('GET', `${inst.prefix}/qr-code`);
      assert.equal(raw.status, 200);
      if (raw.json.value === qr || attempt === 3) {
        assert.equal(raw.json.value, qr, 'the raw endpoint serves the same live QR');
        break;
      }
    }
    assert.equal((await h.call('GET', `${inst.prefix}/status`)).json.status, 'pairing');
    await h.admin.scanQr(OWNER, qr);
    const status = await h.waitForStatus(inst, 'connected');
    assert.equal(status.connected, true);
    assert.equal(status.phone, OWNER);
    const again = await h.call('GET', `${inst.prefix}/qr-code/image`);
    assert.equal(again.status, 404, 'no QR once connected');
    const hook = await h.call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${h.webhooks.url}/${inst.instanceId}` });
    assert.equal(hook.status, 200);
  });

  test('incoming text, image and location arrive as ReceivedCallbacks with phone numbers', async () => {
    const text = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: 'hello gateway' });
    const got = await h.webhooks.waitFor((w) => w.body.messageId === text.messageId, 15_000, 'incoming text');
    assert.equal(got.body.type, 'ReceivedCallback');
    assert.equal(got.body.instanceId, inst.instanceId);
    assert.equal(got.body.phone, CONTACT);
    assert.equal(got.body.fromMe, false);
    assert.equal(got.body.isGroup, false);
    assert.equal(got.body.senderName, 'Carla');
    assert.deepEqual(got.body.text, { message: 'hello gateway' });

    const loc = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'location', latitude: -23.55, longitude: -46.63, name: 'Sé' });
    const l = await h.webhooks.waitFor((w) => w.body.messageId === loc.messageId, 15_000, 'incoming location');
    assert.deepEqual(l.body.location, { latitude: -23.55, longitude: -46.63, name: 'Sé', url: 'https://maps.google.com/maps?q=-23.55,-46.63' });

    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const img = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png', caption: 'a dot' });
    const i = await h.webhooks.waitFor((w) => w.body.messageId === img.messageId, 15_000, 'incoming image');
    const image = i.body.image as Record<string, unknown>;
    assert.equal(image.caption, 'a dot');
    assert.equal(image.mimeType, 'image/png');
    assert.equal(image.viewOnce, false);
    assert.match(String(image.imageUrl), /^http:\/\/127\.0\.0\.1:\d+\/media\/[^?]+\?exp=\d+&sig=/);

    const reply = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'reply', text: 'about that', quotedId: text.messageId });
    const r = await h.webhooks.waitFor((w) => w.body.messageId === reply.messageId, 15_000, 'incoming reply');
    assert.equal(r.body.referenceMessageId, text.messageId);
  });

  test('phone-exists-batch answers per number, in input order, with the LID of existing ones', async () => {
    const r = await h.call('POST', `${inst.prefix}/phone-exists-batch`, { phones: [CONTACT, '+49 30 1234567', '5511977770003'] });
    assert.equal(r.status, 200);
    const list = JSON.parse(r.body.toString()) as { exists: boolean; inputPhone: string; outputPhone: string; lid: string | null }[];
    assert.equal(list.length, 3);
    assert.deepEqual(list.map((x) => [x.inputPhone, x.exists]), [[CONTACT, true], ['+49 30 1234567', false], ['5511977770003', true]]);
    assert.equal(list[0]!.outputPhone, CONTACT);
    const { lid } = await h.admin.user(CONTACT);
    assert.equal(list[0]!.lid, `${lid.split('@')[0]}@lid`, 'the LID as Z-API answers it: an address');
    assert.equal(list[1]!.lid, null);
    const one = await h.call('GET', `${inst.prefix}/phone-exists/${CONTACT}`);
    assert.deepEqual(one.json, { exists: true, phone: CONTACT, lid: `${lid.split('@')[0]}@lid` });
  });

  test('a received message can be deleted for me', async () => {
    const m = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: 'delete me' });
    await h.webhooks.waitFor((w) => w.body.messageId === m.messageId, 15_000, 'message to delete');
    const del = await h.call('DELETE', `${inst.prefix}/messages?messageId=${m.messageId}&phone=${CONTACT}&owner=false`);
    assert.equal(del.status, 200, del.body.toString());
    assert.deepEqual(del.json, { value: true });
  });

  test('after a gateway restart the paired instance reconnects without a new QR', async () => {
    const before = await h.admin.counters();
    await h.restartGateway();
    const status = await h.waitForStatus(inst, 'connected');
    assert.equal(status.phone, OWNER);
    const afterRestart = await h.admin.counters();
    assert.equal(afterRestart.counters.registrations ?? 0, before.counters.registrations ?? 0, 'no new pairing');
    assert.ok((afterRestart.counters.logins ?? 0) > (before.counters.logins ?? 0), 'it logged in again');
    // Still receiving after the restart.
    const m = await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: 'still there?' });
    await h.webhooks.waitFor((w) => w.body.messageId === m.messageId, 15_000, 'message after restart');
  });

  test('logout unlinks the device on the phone; the instance can pair again', async () => {
    assert.equal((await h.admin.user(OWNER)).devices.length, 1);
    const out = await h.call('GET', `${inst.prefix}/disconnect`);
    assert.deepEqual(out.json, { value: true });
    const status = await h.waitForStatus(inst, 'disconnected');
    assert.equal(status.connected, false);
    assert.equal((await h.admin.user(OWNER)).devices.length, 0, 'the phone no longer lists the device');
    assert.deepEqual(await h.gateway.store.auth.countKeys(inst.instanceId), {}, 'credentials wiped');

    const qr = await h.qrFromPng(inst);
    await h.admin.scanQr(OWNER, qr);
    await h.waitForStatus(inst, 'connected');
    assert.equal((await h.admin.user(OWNER)).devices.length, 1);
  });

  test('deleting the instance unlinks its device', async () => {
    const del = await h.call('DELETE', inst.prefix);
    assert.deepEqual(del.json, { value: true });
    assert.equal((await h.admin.user(OWNER)).devices.length, 0);
  });
});
