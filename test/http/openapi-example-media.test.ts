// The media in the OpenAPI examples are real files: each goes through the same conversion a send
// does (image, sticker, voice note, video, round video, GIF) and comes out as WhatsApp wants it,
// so "Try it out" in /docs delivers a message instead of a DeliveryCallback error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareVideo, prepareVoiceNote } from '../../src/convert/av.js';
import { decodeDataUri } from '../../src/convert/data-uri.js';
import { prepareImage, prepareSticker } from '../../src/convert/image.js';
import { DEFAULT_MEDIA_LIMITS } from '../../src/convert/limits.js';
import { Semaphore } from '../../src/convert/semaphore.js';
import { sniff } from '../../src/convert/sniff.js';
import { EXAMPLE_AUDIO, EXAMPLE_IMAGE, EXAMPLE_PDF, EXAMPLE_VIDEO } from '../../src/http/schemas/examples.js';

const slots = new Semaphore(2);

function bytes(uri: string): Buffer {
  const data = decodeDataUri(uri);
  assert.ok(data && data.length > 0, `a base64 data URI: ${uri.slice(0, 40)}`);
  return data;
}

test('the example image is a PNG that converts to an image and a sticker', async () => {
  const image = await prepareImage(bytes(EXAMPLE_IMAGE), DEFAULT_MEDIA_LIMITS, slots);
  assert.ok(image.data.length > 0, 'image prepared');
  const sticker = await prepareSticker(bytes(EXAMPLE_IMAGE), DEFAULT_MEDIA_LIMITS, slots);
  assert.equal(sniff(sticker).mimetype, 'image/webp', 'sticker is WebP');
});

test('the example audio converts to a voice note', async () => {
  const audio = await prepareVoiceNote(bytes(EXAMPLE_AUDIO), DEFAULT_MEDIA_LIMITS, slots);
  assert.ok(audio.seconds > 0, `voice note of ${audio.seconds} s`);
  assert.match(audio.mimetype, /ogg/, 'Ogg/Opus');
});

test('the example video converts to a video, a round video note and a GIF', { timeout: 120_000 }, async () => {
  for (const mode of ['video', 'ptv', 'gif'] as const) {
    const video = await prepareVideo(bytes(EXAMPLE_VIDEO), mode, DEFAULT_MEDIA_LIMITS, slots);
    assert.equal(video.mimetype, 'video/mp4', `${mode}: MP4`);
    assert.ok(video.width > 0 && video.height > 0, `${mode}: ${video.width}×${video.height}`);
  }
});

test('the example document is a PDF', () => {
  const pdf = bytes(EXAMPLE_PDF);
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'PDF header');
  assert.match(pdf.subarray(-6).toString('latin1'), /%%EOF/, 'PDF trailer');
});
