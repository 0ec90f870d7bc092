// Every media endpoint end to end: HTTP → queue → conversion → Baileys (encrypt, upload) → simnet,
// where the contact downloads and decrypts the media; the bytes are then judged by ffprobe/sharp.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import type { ReceivedMessage } from '../../simnet/src/index.js';
import { makeTestMedia, probeBytes, type TestMedia } from '../helpers/media-tools.js';
import { startHarness, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900003001';
const CARLA = '5511900003002';

describe('engine media sends (conversion + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let media: TestMedia;
  let server: Server;
  let base = '';
  let png: Buffer;

  before(async () => {
    [h, media] = await Promise.all([startHarness(), makeTestMedia()]);
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    inst = await h.pairNew(OWNER, 'media');
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 0, g: 128, b: 255 } } }).png().toBuffer();
    // The URL's content-type lies on purpose: only the bytes count.
    server = createServer((req, res) => {
      if (req.url === '/tone') res.writeHead(200, { 'content-type': 'text/html' }).end(media.mp3);
      else if (req.url === '/pic') res.writeHead(200, { 'content-type': 'image/webp' }).end(png);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    media?.close();
    await h?.close();
  });

  async function send(path: string, body: Record<string, unknown>): Promise<string> {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    // Queued behind a pacing gap (protocol time): jumped, not waited out.
    await h.sendQueued(inst);
    return String(r.json.messageId);
  }

  async function received(id: string): Promise<ReceivedMessage> {
    const got = await h.admin.waitForReceived(CARLA, (m) => m.id === id, 30_000);
    assert.equal(got.media?.error, undefined, `decrypt: ${got.media?.error}`);
    await h.webhooks.waitFor((w) => w.body.type === 'DeliveryCallback' && w.body.messageId === id && !('error' in w.body), 15_000, 'DeliveryCallback');
    return got;
  }

  const bytesOf = (m: ReceivedMessage): Buffer => Buffer.from(m.media?.base64 ?? '', 'base64');
  const dataUri = (label: string, b: Buffer): string => `data:${label};base64,${b.toString('base64')}`;

  test('send-document: the contact gets the same bytes, with the extension\'s mimetype and the file name', async () => {
    const doc = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000)]);
    const id = await send('send-document/pdf', { phone: CARLA, document: dataUri('application/octet-stream', doc), fileName: 'report.pdf', caption: 'Q3' });
    const got = await received(id);
    assert.equal(got.type, 'document');
    assert.equal(got.media?.mimetype, 'application/pdf');
    assert.equal(got.media?.fileName, 'report.pdf');
    assert.ok(bytesOf(got).equals(doc), 'byte-identical');
  });

  test('send-image keeps a small image as it is (dimensions and bytes); a large one is scaled to 1600 on its long side', async () => {
    const small = await send('send-image', { phone: CARLA, image: `${base}/pic` });
    const a = await received(small);
    assert.equal(a.type, 'image');
    assert.equal(a.media?.mimetype, 'image/png');
    assert.deepEqual([a.media?.width, a.media?.height], [40, 30]);
    assert.ok(bytesOf(a).equals(png));
    const bigJpeg = await sharp({ create: { width: 3200, height: 1000, channels: 3, background: '#c33' } }).jpeg().toBuffer();
    const big = await send('send-image', { phone: CARLA, image: dataUri('image/gif', bigJpeg) });
    const b = await received(big);
    const meta = await sharp(bytesOf(b)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 1600, 500]);
    assert.deepEqual([b.media?.width, b.media?.height], [1600, 500]);
  });

  test('send-audio: an Ogg/Opus mono voice note with its length (within 5 %) and waveform', async () => {
    const id = await send('send-audio', { phone: CARLA, audio: `${base}/tone` });
    const got = await received(id);
    assert.equal(got.type, 'audio');
    assert.equal(got.media?.ptt, true);
    assert.match(got.media?.mimetype ?? '', /^audio\/ogg; codecs=opus$/);
    assert.equal(got.media?.seconds, 2);
    assert.equal(got.media?.waveform?.length, 64);
    const p = await probeBytes(bytesOf(got));
    assert.equal(p.format, 'ogg');
    const a = p.streams.find((s) => s.codec_type === 'audio');
    assert.equal(a?.codec_name, 'opus');
    assert.equal(a?.channels, 1);
    assert.ok(Math.abs(p.duration - 2) / 2 < 0.05, `duration ${p.duration}`);
  });

  test('send-video: a playable MP4 (H.264/AAC), from an MP4 and from a WebM', async () => {
    for (const [label, src, size] of [['video/mp4', media.mp4, [320, 240]], ['video/webm', media.webm, [160, 120]]] as const) {
      const id = await send('send-video', { phone: CARLA, video: dataUri(label, src), caption: label });
      const got = await received(id);
      assert.equal(got.type, 'video');
      assert.equal(got.caption, label);
      assert.equal(got.media?.mimetype, 'video/mp4');
      const p = await probeBytes(bytesOf(got));
      assert.match(p.format, /mp4/);
      const v = p.streams.find((s) => s.codec_type === 'video');
      assert.equal(v?.codec_name, 'h264');
      assert.deepEqual([v?.width, v?.height], size);
      if (label === 'video/mp4') assert.equal(p.streams.find((s) => s.codec_type === 'audio')?.codec_name, 'aac');
      assert.ok(p.duration > 0.8 && p.duration < 1.3, `duration ${p.duration}`);
    }
  });

  test('send-ptv arrives as a round (square) video note; send-gif as a silent looping MP4', async () => {
    const ptv = await received(await send('send-ptv', { phone: CARLA, video: dataUri('video/mp4', media.mp4) }));
    assert.equal(ptv.type, 'video');
    assert.equal(ptv.media?.ptv, true);
    const pv = (await probeBytes(bytesOf(ptv))).streams.find((s) => s.codec_type === 'video');
    assert.equal(pv?.codec_name, 'h264');
    assert.equal(pv?.width, pv?.height);

    const gif = await received(await send('send-gif', { phone: CARLA, gif: dataUri('video/mp4', media.mp4), caption: 'loop' }));
    assert.equal(gif.type, 'video');
    assert.equal(gif.media?.gifPlayback, true);
    const pg = await probeBytes(bytesOf(gif));
    assert.match(pg.format, /mp4/);
    assert.equal(pg.streams.filter((s) => s.codec_type === 'audio').length, 0, 'no sound');
  });

  test('send-sticker (512×512 WebP) and a button list\'s image header go through the same pipeline', async () => {
    const sticker = await received(await send('send-sticker', { phone: CARLA, sticker: `${base}/pic` }));
    const meta = await sharp(bytesOf(sticker)).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 512]);
    const id = await send('send-button-list', { phone: CARLA, message: 'Ok?', buttonList: { image: `${base}/pic`, buttons: [{ id: 'y', label: 'Yes' }] } });
    await h.admin.waitForReceived(CARLA, (m) => m.id === id, 30_000);
    const all = await h.admin.received(CARLA);
    const idx = all.findIndex((m) => m.id === id);
    assert.equal(all[idx - 1]?.type, 'image');
    assert.ok(bytesOf(all[idx - 1]!).equals(png));
  });
});
