// A data URI queued by reference reaches the contact byte for byte through the real engine, and
// its stored file is removed once the message is sent: the sender reads the file at
// send time, and nothing stays on disk after the queue has moved on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511900003001';
const CARLA = '5511900003002';

function storedCount(dataDir: string): number {
  const root = join(dataDir, 'outgoing-media');
  if (!existsSync(root)) return 0;
  return readdirSync(root)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .reduce((n, d) => n + readdirSync(join(root, d)).length, 0);
}

describe('outgoing media by reference, end to end', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    inst = await h.pairNew(OWNER, 'sender');
  });
  after(() => h?.close());

  test('the contact gets the bytes of a queued data URI, and the file goes once it is sent', async () => {
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 10, b: 10 } } }).png().toBuffer();
    const doc = randomBytes(200 * 1024);
    const ids: string[] = [];
    for (const [path, body] of [
      ['send-image', { phone: CARLA, image: `data:image/png;base64,${png.toString('base64')}`, caption: 'ref' }],
      ['send-document/bin', { phone: CARLA, document: `data:application/octet-stream;base64,${doc.toString('base64')}`, fileName: 'x.bin' }],
    ] as const) {
      const r = await h.call('POST', `${inst.prefix}/${path}`, body);
      assert.equal(r.status, 200, r.body.toString());
      ids.push(String(r.json.messageId));
    }
    assert.ok(storedCount(h.dataDir) >= 1, 'stored while queued (or already being sent)');
    // The sender's pacing gaps are protocol time: jumped.
    const image = await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === ids[0], 20_000));
    assert.equal(image.media?.base64, png.toString('base64'), 'the image byte for byte');
    const file = await skipWaits(h.clock, h.admin.waitForReceived(CARLA, (m) => m.id === ids[1], 20_000));
    assert.equal(file.media?.base64, doc.toString('base64'), 'the document byte for byte');
    await until('no stored file left once both are sent', async () => storedCount(h.dataDir), (n) => n === 0);
  });
});
