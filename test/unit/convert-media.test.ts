// The media pipeline's own rules: the real type comes from the bytes, images are bounded in
// pixels and scaled before re-encoding, and even with the pixel limit raised a decompression
// bomb is decoded in bounded memory (sequential read, resize first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { sniff } from '../../src/convert/sniff.js';
import { prepareImage, prepareSticker, readImageHeader } from '../../src/convert/image.js';
import { waveformOf } from '../../src/convert/av.js';
import { DEFAULT_MEDIA_LIMITS } from '../../src/convert/limits.js';
import { Semaphore } from '../../src/convert/semaphore.js';
import { decodeDataUri } from '../../src/convert/data-uri.js';
import { SendFailure } from '../../src/domain/send-failure.js';
import { bombPng } from '../helpers/bomb-png.js';

test('sniff: magic bytes decide, labels do not', async () => {
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).png().toBuffer();
  const jpeg = await sharp(png).jpeg().toBuffer();
  const webp = await sharp(png).webp().toBuffer();
  const gif = await sharp(png).gif().toBuffer();
  assert.deepEqual([png, jpeg, webp, gif].map((b) => sniff(b).mimetype), ['image/png', 'image/jpeg', 'image/webp', 'image/gif']);
  assert.equal(sniff(Buffer.from('%PDF-1.7')).family, 'other');
  assert.equal(sniff(Buffer.from('<html>')).family, 'other');
  assert.equal(sniff(Buffer.from('ID3\x04\x00')).mimetype, 'audio/mpeg');
  assert.equal(sniff(Buffer.from('OggS\x00\x02' + '\x00'.repeat(22) + 'OpusHead')).mimetype, 'audio/ogg');
  assert.equal(sniff(Buffer.from('\x00\x00\x00\x18ftypisom')).mimetype, 'video/mp4');
  assert.equal(sniff(Buffer.from('\x00\x00\x00\x18ftypM4A ')).family, 'audio');
  assert.equal(decodeDataUri('data:image/webp;base64,' + png.toString('base64'))?.equals(png), true);
  assert.equal(decodeDataUri('https://x/y.png'), null);
});

test('images: kept when small, scaled to the bound when large, refused over the pixel limit from the header', async () => {
  const slots = new Semaphore(2);
  const small = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#f00' } }).jpeg().toBuffer();
  const kept = await prepareImage(small, DEFAULT_MEDIA_LIMITS, slots);
  assert.ok(kept.data.equals(small));
  assert.deepEqual([kept.width, kept.height, kept.mimetype], [300, 200, 'image/jpeg']);
  assert.ok(kept.thumbnail.length > 0);
  const webp = await sharp({ create: { width: 2400, height: 1200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0.5 } } }).webp().toBuffer();
  const scaled = await prepareImage(webp, DEFAULT_MEDIA_LIMITS, slots);
  assert.deepEqual([scaled.width, scaled.height, scaled.mimetype], [1600, 800, 'image/png']);
  const bomb = await bombPng(16_000);
  await assert.rejects(readImageHeader(bomb, DEFAULT_MEDIA_LIMITS), (e: unknown) => e instanceof SendFailure && e.code === 'MEDIA_TOO_LARGE' && e.permanent);
  await assert.rejects(prepareImage(Buffer.from('not an image'), DEFAULT_MEDIA_LIMITS, slots), (e: unknown) => e instanceof SendFailure && e.code === 'MEDIA_INVALID');
});

test('with the pixel limit raised, four 16000×16000 bombs at once decode in < 256 MB (resized before re-encoding)', async () => {
  const bomb = await bombPng(16_000);
  const limits = { ...DEFAULT_MEDIA_LIMITS, maxPixels: 300_000_000 };
  const slots = new Semaphore(2);
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const [a, b, c, d] = await Promise.all([prepareImage(bomb, limits, slots), prepareSticker(bomb, limits, slots), prepareImage(bomb, limits, slots), prepareSticker(bomb, limits, slots)]);
    assert.deepEqual([a.width, a.height, c.width], [1600, 1600, 1600]);
    assert.deepEqual((await sharp(b).metadata()).width, 512);
    assert.ok(d.length > 0);
  } finally {
    clearInterval(sampler);
  }
  assert.ok(peak - base < 256 * 1024 * 1024, `RSS grew by ${Math.round((peak - base) / 1048576)} MB`);
});

test('waveform: 64 bars scaled to 0–100', () => {
  const pcm = Buffer.alloc(64 * 100 * 2);
  for (let i = 0; i < 64 * 100; i++) pcm.writeInt16LE(Math.floor(i / 100) * 100, i * 2);
  const w = waveformOf(pcm);
  assert.equal(w.length, 64);
  assert.equal(w[0], 0);
  assert.equal(w[63], 100);
  assert.ok(w[32]! > 40 && w[32]! < 60);
});

test('ffmpeg runs under limits: killed when it takes too long, refused when over its memory', async (t) => {
  const { runTool, ToolError } = await import('../../src/convert/ffmpeg.js');
  // An endless input: only the time limit ends this run, so a rejection marked timedOut is the kill.
  const endless = ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=440', '-f', 'null', '-'];
  const started = performance.now();
  await assert.rejects(runTool('ffmpeg', endless, { ...DEFAULT_MEDIA_LIMITS, convertTimeoutMs: 300 }), (e: unknown) => e instanceof ToolError && e.timedOut);
  t.diagnostic(`killed ${(performance.now() - started).toFixed(0)} ms after the start (limit 300 ms)`);
  if (process.platform !== 'win32') {
    // 8 MiB of address space is not enough for ffmpeg to even start.
    await assert.rejects(runTool('ffmpeg', ['-version'], { ...DEFAULT_MEDIA_LIMITS, convertMemoryMb: 8 }), (e: unknown) => e instanceof ToolError && !e.timedOut);
  }
  assert.match((await runTool('ffmpeg', ['-version'], DEFAULT_MEDIA_LIMITS)).toString(), /^ffmpeg version/);
});
