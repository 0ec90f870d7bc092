// Status (stories) end to end (HTTP → sender → Baileys → simnet): a post reaches the phones of the
// contacts the instance has talked with, as a post in status@broadcast, and nobody else's; images
// carry their caption; a reply to a contact's post is a message quoting it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';
import sharp from 'sharp';

const OWNER = '5511999990501';
const ANA = '5511988880502';
const BRUNO = '5511988880503';
const STRANGER = '5511988880504';

describe('status posts (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness();
    for (const [phone, name] of [[OWNER, 'Owner'], [ANA, 'Ana'], [BRUNO, 'Bruno'], [STRANGER, 'Stranger']] as const) {
      await h.admin.createUser({ phone, pushName: name });
    }
    inst = await h.pairNew(OWNER, 'status');
    await h.call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${h.webhooks.url}/${inst.instanceId}` });
    // Ana and Bruno write first: they become the instance's contacts, the status audience.
    for (const phone of [ANA, BRUNO]) {
      const m = await h.admin.sendAsContact({ from: phone, to: OWNER, type: 'text', text: `hi from ${phone}` });
      await h.webhooks.waitFor((w) => w.body.messageId === m.messageId, 15_000, `message from ${phone}`);
    }
  });
  after(async () => {
    await h?.close();
  });

  async function statusPostsOf(phone: string, id: string, timeoutMs = 15_000) {
    // Status posts and replies are queued behind a pacing gap (protocol time): jumped, not waited out.
    await h.sendQueued(inst);
    return h.admin.waitForReceived(phone, (m) => m.id === id, timeoutMs);
  }

  test('a text status reaches the contacts and not a stranger', async () => {
    const r = await h.call('POST', `${inst.prefix}/send-text-status`, { message: 'Open today until 8pm' });
    assert.equal(r.status, 200, r.body.toString());
    const id = String(r.json.messageId);
    assert.ok(r.json.zaapId, 'queued with a zaapId');
    for (const phone of [ANA, BRUNO]) {
      const seen = await statusPostsOf(phone, id);
      assert.equal(seen.groupId, 'status@broadcast', `${phone} sees it as a status post`);
      assert.equal(seen.from, OWNER);
      assert.equal(seen.text, 'Open today until 8pm');
    }
    const delivered = await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id, 15_000, 'its DeliveryCallback');
    assert.equal(delivered.body.error, undefined, 'delivered without error');
    assert.equal((await h.admin.received(STRANGER)).some((m) => m.id === id), false, 'a number the instance never talked with does not see it');
  });

  test('an image status carries its caption', async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 40, b: 90 } } }).png().toBuffer();
    const r = await h.call('POST', `${inst.prefix}/send-image-status`, { image: `data:image/png;base64,${png.toString('base64')}`, caption: 'This week only' });
    assert.equal(r.status, 200, r.body.toString());
    const seen = await statusPostsOf(ANA, String(r.json.messageId));
    assert.equal(seen.groupId, 'status@broadcast');
    assert.equal(seen.type, 'image');
    assert.equal(seen.caption, 'This week only');
  });

  test("a reply to a contact's status is a message to them quoting the post", async () => {
    const statusMessageId = '3EB0A1B2C3D4E5F6A7B8C9';
    const r = await h.call('POST', `${inst.prefix}/reply-status-text`, { phone: BRUNO, message: 'Love it!', statusMessageId });
    assert.equal(r.status, 200, r.body.toString());
    const seen = await statusPostsOf(BRUNO, String(r.json.messageId));
    assert.equal(seen.groupId, undefined, 'a 1:1 message, not a post');
    assert.equal(seen.text, 'Love it!');
    assert.equal(seen.quotedId, statusMessageId, 'it quotes the status post');
  });

  test('bad input is a 400 and queues nothing', async () => {
    const empty = await h.call('POST', `${inst.prefix}/send-text-status`, { message: '' });
    assert.equal(empty.status, 400);
    const noId = await h.call('POST', `${inst.prefix}/reply-status-text`, { phone: BRUNO, message: 'x' });
    assert.equal(noId.status, 400);
    assert.match(String(noId.json.message), /statusMessageId/);
    const badImage = await h.call('POST', `${inst.prefix}/send-image-status`, { image: 'ftp://x/y.png' });
    assert.equal(badImage.status, 400);
  });
});
