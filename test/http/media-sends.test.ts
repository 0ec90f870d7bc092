// Media sends over real HTTP: a data URI is judged by its bytes, not its label, before it is
// queued (400 when it is not what the endpoint needs, or an image over the pixel limit); every
// media route documents a working example in /openapi.json.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { bombPng } from '../helpers/bomb-png.js';
import { PHONE } from '../helpers/samples.js';

const uri = (label: string, data: Buffer): string => `data:${label};base64,${data.toString('base64')}`;

describe('media sends', () => {
  let g: TestGateway;
  let inst: TestInstance;
  let png: Buffer;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('media');
    png = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#08f' } }).png().toBuffer();
  });
  after(() => g.close());

  const post = (route: string, body: Record<string, unknown>) => g.request('POST', `${inst.prefix}/${route}`, { body });

  test('a data URI that is not an image is refused up front, whatever its label says', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n');
    expectError(await post('send-image', { phone: PHONE, image: uri('image/png', pdf) }), 400, 'Invalid request', /^image: the payload is not an image/);
    expectError(await post('send-sticker', { phone: PHONE, sticker: uri('image/webp', pdf) }), 400, 'Invalid request', /^sticker: the payload is not an image/);
    expectError(
      await post('send-button-list', { phone: PHONE, message: 'ok?', buttonList: { buttons: [{ label: 'Yes' }], image: uri('image/gif', pdf) } }),
      400,
      'Invalid request',
      /^buttonList\.image: /,
    );
    // A truncated image: the magic bytes alone do not make an image.
    expectError(await post('send-image', { phone: PHONE, image: uri('image/png', png.subarray(0, 12)) }), 400, 'Invalid request', /^image: not a readable/);
    // The right bytes under a wrong label are fine: the label is ignored.
    assert.equal((await post('send-image', { phone: PHONE, image: uri('image/webp', png) })).status, 200);
  });

  test('audio and video endpoints refuse data URIs that are neither', async () => {
    expectError(await post('send-audio', { phone: PHONE, audio: uri('audio/mpeg', png) }), 400, 'Invalid request', /^audio: the data URI is not audio \(image\/png\)/);
    expectError(await post('send-video', { phone: PHONE, video: uri('video/mp4', png) }), 400, 'Invalid request', /^video: the data URI is not a video/);
    expectError(await post('send-ptv', { phone: PHONE, video: uri('video/mp4', Buffer.from('hello')) }), 400, 'Invalid request', /^video: .*unknown data/);
    expectError(await post('send-gif', { phone: PHONE, gif: uri('video/mp4', png) }), 400, 'Invalid request', /^gif: /);
    expectError(await post('send-ptv', { phone: PHONE }), 400, 'Invalid request', /^video: required/);
    // Documents are any bytes.
    const doc = await post('send-document/txt', { phone: PHONE, document: uri('text/plain', Buffer.from('hello')), fileName: 'hello.txt' });
    assert.equal(doc.status, 200, doc.text);
    expectError(await post('send-document/p.df', { phone: PHONE, document: uri('text/plain', Buffer.from('x')) }), 400, 'Invalid request', /^extension: /);
  });

  test('an image over the pixel limit is refused from its header, before any pixel is decoded', async () => {
    const bomb = await bombPng(16_000);
    assert.ok(bomb.length < 1024 * 1024, `bomb is ${bomb.length} bytes`);
    const rss = process.memoryUsage().rss;
    for (const label of ['image/png', 'image/webp', 'image/gif']) {
      expectError(await post('send-image', { phone: PHONE, image: uri(label, bomb) }), 400, 'Invalid request', /^image: 16000×16000 pixels is more than the limit/);
    }
    expectError(await post('send-sticker', { phone: PHONE, sticker: uri('image/png', bomb) }), 400, 'Invalid request', /^sticker: 16000×16000 pixels/);
    assert.ok(process.memoryUsage().rss - rss < 128 * 1024 * 1024, 'nothing was decoded');
  });

  test('the queue lists a data URI as the reference of its stored file, not its bytes', async () => {
    const bytes = Buffer.alloc(100 * 1024, 1);
    const big = uri('application/pdf', bytes);
    const r = await post('send-document/pdf', { phone: PHONE, document: big, fileName: 'big.pdf' });
    assert.equal(r.status, 200, r.text);
    const q = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    const listed = (q.json.messages as { zaapId: string; message: { content: { document: string; fileName: string } } }[]).find((m) => m.zaapId === r.json.zaapId);
    assert.ok(listed);
    assert.equal(listed.message.content.fileName, 'big.pdf');
    assert.equal(listed.message.content.document, `zapgate-media:${createHash('sha256').update(bytes).digest('hex')}:${bytes.length}`);
  });

  test('every media route has a description and an example in /openapi.json, and the example is accepted', async () => {
    const doc = (await g.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { description?: string; requestBody?: { content: Record<string, { example?: unknown; schema: { examples?: unknown[] } }> } }>>;
    };
    for (const route of ['send-audio', 'send-video', 'send-ptv', 'send-gif', 'send-document/{extension}']) {
      const path = Object.keys(doc.paths).find((p) => p.endsWith(`/${route}`));
      assert.ok(path, `${route} is documented`);
      const op = doc.paths[path]!.post!;
      assert.ok((op.description ?? '').length > 20, `${route} has a description`);
      const media = op.requestBody?.content['application/json'];
      const example = (media?.example ?? media?.schema.examples?.[0]) as Record<string, unknown> | undefined;
      assert.ok(example, `${route} has an example`);
      const r = await post(route.replace('{extension}', 'pdf'), example);
      assert.equal(r.status, 200, `${route} example: ${r.text}`);
    }
  });
});
