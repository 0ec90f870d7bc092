// Every send endpoint, end to end: HTTP → queue → sender → Baileys → simnet, where the contact's
// phone decrypts the message and the test checks it field by field; then statuses, answers to
// lists and polls, deletions and refusals as the client sees them (webhooks).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { ReceivedMessage } from '../../simnet/src/index.js';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900002001';
const CARLA = '5511900002002';
const DAN = '5511900002003';

describe('engine sends (gateway + sender + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let media: Server;
  let mediaUrl = '';
  let png: Buffer;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: DAN, pushName: 'Dan' });
    inst = await h.pairNew(OWNER, 'sender');
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 128, b: 255 } } }).png().toBuffer();
    // A plain-HTTP media server on loopback (allow-listed in the harness) for URL sends.
    media = createServer((req, res) => {
      if (req.url === '/pic.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
    mediaUrl = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((r) => (media ? media.close(() => r()) : r()));
    await h?.close();
  });

  async function send(path: string, body: Record<string, unknown>): Promise<string> {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    assert.match(String(r.json.messageId), /^3EB0[0-9A-F]{18}$/);
    // The pacing gap before it is protocol time: jumped, not waited out.
    await h.sendQueued(inst);
    return String(r.json.messageId);
  }

  function receivedBy(phone: string, id: string): Promise<ReceivedMessage> {
    return h.admin.waitForReceived(phone, (m) => m.id === id, 20_000);
  }

  const statuses = (id: string): string[] =>
    h.webhooks.hits
      .filter((w) => w.body.type === 'MessageStatusCallback' && (w.body.ids as string[]).includes(id))
      .map((w) => String(w.body.status));

  test('send-text reaches the contact with the id fixed at enqueue; statuses SENT → RECEIVED → READ only move forward', async () => {
    const id = await send('send-text', { phone: CARLA, message: 'Olá, Carla!' });
    const got = await receivedBy(CARLA, id);
    assert.equal(got.type, 'text');
    assert.equal(got.text, 'Olá, Carla!');
    assert.equal(got.from, OWNER);
    await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id && !('error' in w.body), 15_000, 'DeliveryCallback');
    await h.webhooks.waitFor(() => statuses(id).includes('RECEIVED'), 15_000, 'RECEIVED');
    await h.admin.markRead(CARLA, [id]);
    await h.webhooks.waitFor(() => statuses(id).includes('READ'), 15_000, 'READ');
    // A late delivery receipt after READ must not move the status back. Receipts from one contact
    // are handled in order: once a later one (READ of another message) has reached the webhook,
    // the late one has been handled.
    const probe = await send('send-text', { phone: CARLA, message: 'probe' });
    await receivedBy(CARLA, probe);
    await h.admin.sendReceipt(CARLA, [id], 'delivered');
    await h.admin.markRead(CARLA, [probe]);
    await h.webhooks.waitFor(() => statuses(probe).includes('READ'), 15_000, 'READ of the later message');
    const seen = statuses(id);
    assert.deepEqual(seen.filter((s) => s !== 'SENT'), ['RECEIVED', 'READ'], `statuses ${seen.join(',')}`);
    const order = ['SENT', 'RECEIVED', 'READ', 'PLAYED'];
    for (let i = 1; i < seen.length; i++) assert.ok(order.indexOf(seen[i]!) > order.indexOf(seen[i - 1]!), `monotonic: ${seen.join(',')}`);
    const row = await h.gateway.store.messages.findByMessageId(inst.instanceId, id);
    assert.equal(row?.wa_status, 'READ');
  });

  test('a reply quotes the message, mentions carry the mentioned number, an edit replaces the text', async () => {
    const incoming = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'can you confirm?' });
    await h.webhooks.waitFor((w) => w.body.messageId === incoming.messageId, 15_000, 'incoming');
    const reply = await send('send-text', { phone: CARLA, message: 'Confirmed, @' + DAN, messageId: incoming.messageId, mentioned: [DAN] });
    const got = await receivedBy(CARLA, reply);
    assert.equal(got.quotedId, incoming.messageId);
    assert.deepEqual(got.mentions, [`${DAN}@s.whatsapp.net`]);
    const edit = await send('send-text', { phone: CARLA, message: 'Confirmed (edited)', editMessageId: reply });
    const e = await receivedBy(CARLA, edit);
    assert.equal(e.type, 'edit');
    assert.equal(e.targetId, reply);
    assert.equal(e.text, 'Confirmed (edited)');
  });

  test('send-image by data URI and by URL: the contact decrypts the same bytes with the caption', async () => {
    const byData = await send('send-image', { phone: CARLA, image: `data:image/png;base64,${png.toString('base64')}`, caption: 'inline' });
    const a = await receivedBy(CARLA, byData);
    assert.equal(a.type, 'image');
    assert.equal(a.caption, 'inline');
    assert.equal(a.media?.mimetype, 'image/png');
    assert.equal(a.media?.base64, png.toString('base64'));
    const byUrl = await send('send-image', { phone: CARLA, image: `${mediaUrl}/pic.png`, caption: 'fetched' });
    const b = await receivedBy(CARLA, byUrl);
    assert.equal(b.caption, 'fetched');
    assert.equal(b.media?.base64, png.toString('base64'));
  });

  test('send-image with a URL that fails reports the failure by DeliveryCallback', async () => {
    const id = await send('send-image', { phone: CARLA, image: `${mediaUrl}/missing.png` });
    const d = await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id && 'error' in w.body, 20_000, 'failed delivery');
    assert.match(String(d.body.error), /404/);
  });

  test('send-sticker arrives as a 512×512 WebP sticker', async () => {
    const id = await send('send-sticker', { phone: CARLA, sticker: `data:image/png;base64,${png.toString('base64')}` });
    const got = await receivedBy(CARLA, id);
    assert.equal(got.type, 'sticker');
    const meta = await sharp(Buffer.from(got.media?.base64 ?? '', 'base64')).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 512]);
  });

  test('send-location carries coordinates, name and address', async () => {
    const id = await send('send-location', { phone: CARLA, title: 'Praça da Sé', address: 'São Paulo', latitude: '-23.5503', longitude: '-46.6342' });
    const got = await receivedBy(CARLA, id);
    assert.deepEqual(got.location, { latitude: -23.5503, longitude: -46.6342, name: 'Praça da Sé', address: 'São Paulo' });
  });

  test('send-option-list renders as a poll; the vote comes back with the option id', async () => {
    const id = await send('send-option-list', {
      phone: CARLA,
      message: 'Which plan?',
      optionList: { title: 'Plans', buttonLabel: 'See plans', options: [{ id: 'basic', title: 'Basic' }, { id: 'pro', title: 'Pro', description: 'best' }] },
    });
    const got = await receivedBy(CARLA, id);
    assert.equal(got.type, 'poll');
    // The button label closes the question; a description rides on its option's line.
    assert.deepEqual(got.poll, { name: 'Plans\n\nWhich plan?\n\nSee plans', options: ['Basic', 'Pro — best'], selectableCount: 1 });
    const vote = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'pollVote', pollId: id, options: ['Pro — best'] });
    const answer = await h.webhooks.waitFor((w) => w.body.messageId === vote.messageId, 15_000, 'poll vote');
    assert.deepEqual(answer.body.listResponseMessage, { message: 'Pro', title: 'Pro', selectedRowId: 'pro' });
    assert.equal(answer.body.referenceMessageId, id);
    assert.equal(answer.body.phone, CARLA);
  });

  test('send-button-list with an image header: image first, then the poll; the vote maps to the button id', async () => {
    const id = await send('send-button-list', {
      phone: CARLA,
      message: 'Shall we?',
      buttonList: { image: `data:image/png;base64,${png.toString('base64')}`, buttons: [{ id: 'go', label: 'Go' }, { id: 'wait', label: 'Wait' }] },
    });
    const poll = await receivedBy(CARLA, id);
    assert.deepEqual(poll.poll?.options, ['Go', 'Wait']);
    const all = await h.admin.received(CARLA);
    const idx = all.findIndex((m) => m.id === id);
    assert.equal(all[idx - 1]?.type, 'image', 'the header image arrived just before the poll');
    const vote = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'pollVote', pollId: id, options: ['Wait'] });
    const answer = await h.webhooks.waitFor((w) => w.body.messageId === vote.messageId, 15_000, 'button vote');
    assert.deepEqual(answer.body.buttonsResponseMessage, { buttonId: 'wait', message: 'Wait' });
  });

  test("with list_mode 'text' a list is numbered text and the reply \"2\" maps to the second option", async () => {
    assert.equal((await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'text' })).status, 200);
    try {
      const id = await send('send-option-list', {
        phone: DAN,
        message: 'Pick a day',
        optionList: { title: 'Days', buttonLabel: 'Days', options: [{ id: 'mon', title: 'Monday' }, { id: 'tue', title: 'Tuesday' }] },
      });
      const got = await receivedBy(DAN, id);
      assert.equal(got.type, 'text');
      assert.match(got.text ?? '', /1\. Monday\n2\. Tuesday/);
      const reply = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: '2' });
      const answer = await h.webhooks.waitFor((w) => w.body.messageId === reply.messageId, 15_000, 'numbered reply');
      assert.deepEqual(answer.body.listResponseMessage, { message: 'Tuesday', title: 'Tuesday', selectedRowId: 'tue' });
      assert.equal(answer.body.referenceMessageId, id);
    } finally {
      await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'poll' });
    }
  });

  test('DELETE /messages owner=true revokes our message for everyone', async () => {
    const id = await send('send-text', { phone: CARLA, message: 'oops' });
    await receivedBy(CARLA, id);
    const del = await h.call('DELETE', `${inst.prefix}/messages?messageId=${id}&phone=${CARLA}&owner=true`);
    assert.deepEqual(del.json, { value: true });
    const revoke = await h.admin.waitForReceived(CARLA, (m) => m.type === 'revoke' && m.targetId === id, 15_000);
    assert.equal(revoke.editAttr, '7');
  });

  test('a network refusal (nack 479) fails the message with the reason', async () => {
    await h.admin.injectFault(OWNER, { kind: 'nack', code: 479 });
    const id = await send('send-text', { phone: CARLA, message: 'will be refused' });
    const d = await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id && 'error' in w.body, 20_000, 'refused delivery');
    assert.match(String(d.body.error), /479/);
    const row = await h.gateway.store.messages.findByMessageId(inst.instanceId, id);
    assert.equal(row?.state, 'failed');
    assert.match(row?.error ?? '', /479/);
  });
});
