// Webhook fields Z-API clients read, end to end (gateway + Baileys + simnet, a real HTTP receiver):
// a forwarded text says so; a GIF is `isGif`; a document keeps its caption and page count; a
// sticker its size; a status names the recipient's device it came from (`phoneDevice`); and the
// ConnectedCallback says whether the account is a WhatsApp Business one (`isBusiness`).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511900005001';
const BIZ = '5511900005002';
const CARLA = '5511900005003';

type Payload = Record<string, unknown>;

describe('webhook fields: forwarded, isGif, document caption and pages, sticker size, phoneDevice, isBusiness', () => {
  let h: Harness;
  let inst: Instance;
  let biz: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: BIZ, pushName: 'Shop', business: true });
    inst = await h.pairNew(OWNER, 'fields');
    biz = await h.pairNew(BIZ, 'fields-biz');
  });
  after(async () => {
    await h?.close();
  });

  async function arrival(req: Record<string, unknown>): Promise<Payload> {
    const { messageId } = await h.admin.sendAsContact({ from: CARLA, to: OWNER, ...req } as Parameters<Harness['admin']['sendAsContact']>[0]);
    const hit = await h.webhooks.waitFor((w) => w.path === `/${inst.instanceId}` && w.body.type === 'ReceivedCallback' && w.body.messageId === messageId, 20_000, messageId);
    return hit.body;
  }

  test('a forwarded text arrives with forwarded: true; a plain one with false', async () => {
    const fwd = await arrival({ type: 'text', text: 'passed along', forwarded: true });
    assert.deepEqual([fwd.forwarded, (fwd.text as Payload).message], [true, 'passed along']);
    const plain = await arrival({ type: 'text', text: 'my own words' });
    assert.equal(plain.forwarded, false);
  });

  test('received media: a GIF is isGif, a document keeps caption and pageCount, a sticker its width and height', async () => {
    const gif = await arrival({ type: 'video', videoBase64: randomBytes(3000).toString('base64'), gif: true, width: 320, height: 180 });
    assert.deepEqual([(gif.video as Payload).isGif, (gif.video as Payload).gif], [true, true]);
    const clip = await arrival({ type: 'video', videoBase64: randomBytes(3000).toString('base64') });
    assert.equal((clip.video as Payload).isGif, undefined, 'a plain video is no GIF');

    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(2000)]);
    const doc = await arrival({ type: 'document', documentBase64: pdf.toString('base64'), mimetype: 'application/pdf', fileName: 'deck.pdf', caption: 'the slides', pageCount: 12 });
    const d = doc.document as Payload;
    assert.deepEqual([d.caption, d.pageCount, d.fileName], ['the slides', 12, 'deck.pdf']);

    const webp = await sharp({ create: { width: 96, height: 80, channels: 4, background: { r: 0, g: 90, b: 255, alpha: 0.5 } } }).webp().toBuffer();
    const sticker = await arrival({ type: 'sticker', stickerBase64: webp.toString('base64') });
    const s = sticker.sticker as Payload;
    assert.deepEqual([s.width, s.height], [96, 80], 'the sticker\'s own size');
  });

  test('MessageStatusCallback names the recipient\'s device: 0 for the phone, n for its linked device n', async () => {
    await h.admin.setReceiptPolicy(CARLA, { delivered: 'manual', read: 'manual' });
    const r = await h.call('POST', `${inst.prefix}/send-text`, { phone: CARLA, message: 'status check' });
    assert.equal(r.status, 200, r.body.toString());
    const id = String(r.json.messageId);
    // The sender's pacing gap is protocol time: jumped.
    await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === id, 20_000));
    const status = (s: string) =>
      h.webhooks.waitFor((w) => w.body.type === 'MessageStatusCallback' && w.body.status === s && (w.body.ids as string[]).includes(id), 15_000, `${s} of ${id}`);
    const sent = await status('SENT');
    assert.equal(sent.body.phoneDevice, 0, 'the server\'s ack');
    await h.admin.sendReceipt(CARLA, [id], 'delivered');
    assert.equal((await status('RECEIVED')).body.phoneDevice, 0, 'the phone');
    await h.admin.sendReceipt(CARLA, [id], 'read', 3);
    const read = await status('READ');
    assert.deepEqual([read.body.phoneDevice, read.body.phone], [3, CARLA], 'read on Carla\'s linked device 3');
  });

  test('ConnectedCallback says isBusiness: false for a personal account, true for a business one', async () => {
    for (const [i, expected] of [
      [inst, false],
      [biz, true],
    ] as const) {
      const before = h.webhooks.hits.filter((w) => w.path === `/${i.instanceId}` && w.body.type === 'ConnectedCallback').length;
      const r = await h.call('GET', `${i.prefix}/restart`);
      assert.equal(r.status, 200, r.body.toString());
      await h.webhooks.waitFor(() => h.webhooks.hits.filter((w) => w.path === `/${i.instanceId}` && w.body.type === 'ConnectedCallback').length > before, 30_000, 'ConnectedCallback');
      const connected = h.webhooks.hits.filter((w) => w.path === `/${i.instanceId}` && w.body.type === 'ConnectedCallback').at(-1)!;
      assert.equal(connected.body.isBusiness, expected);
    }
  });
});
