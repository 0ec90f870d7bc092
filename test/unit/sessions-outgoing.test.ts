// Queued messages → what Baileys sends: content per type, ids fixed at enqueue, stickers as
// 512×512 WebP, lists per delivery mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { buildParts, derivedMessageId, type OutgoingContext } from '../../src/sessions/outbound/outgoing.js';
import { mediaPipeline } from '../../src/sessions/outbound/media.js';
import { SendFailure } from '../../src/domain/send-failure.js';
import { createAddressGuard } from '../../src/net/address-guard.js';
import type { OutgoingMessage } from '../../src/domain/outgoing.js';

const guard = createAddressGuard({ allowHosts: [], allowHttp: false, resolve: async () => [] });

async function pngDataUri(w: number, h: number): Promise<string> {
  const png = await sharp({ create: { width: w, height: h, channels: 4, background: { r: 200, g: 10, b: 10, alpha: 1 } } }).png().toBuffer();
  return `data:image/png;base64,${png.toString('base64')}`;
}

function ctx(listMode: OutgoingContext['listMode'] = 'poll'): OutgoingContext {
  return { media: mediaPipeline(guard), listMode, quoted: async () => undefined, jid: '5511988887777@s.whatsapp.net', now: () => Date.now() };
}

const ID = '3EB0AAAAAAAAAAAAAAAAAA';

test('text carries mentions as jids, never fetches a link preview, and keeps the enqueued id', async () => {
  const m: OutgoingMessage = { content: { type: 'text', message: 'hi @5511977776666 https://example.com' }, mentioned: ['5511977776666'] };
  const [part, ...rest] = await buildParts(m, ID, ctx());
  assert.equal(rest.length, 0);
  assert.equal(part!.messageId, ID);
  assert.deepEqual(part && 'content' in part ? part.content : null, {
    text: 'hi @5511977776666 https://example.com',
    mentions: ['5511977776666@s.whatsapp.net'],
    linkPreview: null,
  });
});

test('an edit targets our own message in the same chat', async () => {
  const [part] = await buildParts({ content: { type: 'text', message: 'fixed', editMessageId: 'OLD' } }, ID, ctx());
  assert.deepEqual(part && 'content' in part ? (part.content as { edit?: unknown }).edit : null, {
    remoteJid: '5511988887777@s.whatsapp.net', fromMe: true, id: 'OLD',
  });
});

test('any image becomes a 512×512 WebP sticker', async () => {
  const [part] = await buildParts({ content: { type: 'sticker', sticker: await pngDataUri(300, 120) } }, ID, ctx());
  const sticker = (part && 'content' in part ? (part.content as { sticker: Buffer }).sticker : null)!;
  const meta = await sharp(sticker).metadata();
  assert.deepEqual([meta.format, meta.width, meta.height], ['webp', 512, 512]);
});

test('an option list is a single-choice poll by default, numbered text in text mode', async () => {
  const content = { type: 'option-list' as const, message: 'Pick one', title: 'Menu', buttonLabel: 'Open', options: [
    { id: 'p', title: 'Pizza', description: '' }, { id: 's', title: 'Sushi', description: 'raw' } ] };
  const [poll] = await buildParts({ content }, ID, ctx('poll'));
  const p = (poll && 'raw' in poll ? poll.raw.pollCreationMessageV3 : null)!;
  // The description rides on the option's line, the button label under the question.
  assert.deepEqual({ name: p.name, values: p.options?.map((o) => o.optionName), n: p.selectableOptionsCount }, {
    name: 'Menu\n\nPick one\n\nOpen', values: ['Pizza', 'Sushi — raw'], n: 1,
  });
  assert.ok(poll && 'raw' in poll && poll.poll && poll.raw.messageContextInfo?.messageSecret?.length === 32);
  assert.equal(poll?.meta?.options[1]?.id, 's');
  const [text] = await buildParts({ content }, ID, ctx('text'));
  assert.match((text && 'content' in text ? (text.content as { text: string }).text : ''), /\*Open\*\n1\. Pizza\n2\. Sushi — raw\n\n_Reply with the number of your choice\._$/);
  const [worded] = await buildParts({ content }, ID, { ...ctx('text'), replyHint: 'Responda com o número.' });
  assert.match((worded && 'content' in worded ? (worded.content as { text: string }).text : ''), /_Responda com o número\._$/);
  const [native] = await buildParts({ content }, ID, ctx('native'));
  assert.ok(native && 'raw' in native && native.raw.listMessage?.sections?.[0]?.rows?.[1]?.rowId === 's');
});

test('a button list with an image header sends the image first under an id derived from the enqueued one', async () => {
  const content = { type: 'button-list' as const, message: 'Continue?', buttons: [{ id: 'y', label: 'Yes' }, { id: 'n', label: 'No' }], image: await pngDataUri(10, 10) };
  const parts = await buildParts({ content }, ID, ctx());
  assert.deepEqual(parts.map((p) => p.messageId), [derivedMessageId(ID, 'header'), ID]);
  assert.equal(derivedMessageId(ID, 'header'), derivedMessageId(ID, 'header'), 'a resend repeats the same id');
  assert.match(derivedMessageId(ID, 'header'), /^3EB0[0-9A-F]{18}$/);
});

test('a bad media reference fails the message with the reason', async () => {
  await assert.rejects(buildParts({ content: { type: 'image', image: 'https://10.0.0.1/x.png' } }, ID, ctx()), (e: unknown) => {
    assert.ok(e instanceof SendFailure);
    assert.equal(e.permanent, true);
    assert.equal(e.code, 'MEDIA_DOWNLOAD_FAILED');
    assert.match(e.reason, /^image: download refused/);
    return true;
  });
});
