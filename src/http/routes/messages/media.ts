// Tag "messages": the media sends — image, sticker, audio, video, ptv, gif, document/{extension}.
// Z-API's paths and bodies. Media is checked up front when it is a data URI (400 when it is not
// what the endpoint needs), else fetched, sniffed and converted at send time (a failure arrives as
// a DeliveryCallback with `error` and `errorCode`).
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { errors } from '../../../errors.js';
import { instanceOf } from '../../auth.js';
import { SendAudio, SendDocument, SendGif, SendImage, SendPtv, sendResponses, SendSticker, SendVideo } from '../../schemas/messages.js';
import { checkMediaRef, common, tags, type App, type SendRoutesOptions } from './send-helpers.js';

export function mediaSendRoutes(app: App, { messages, mediaBodyLimit }: SendRoutesOptions): void {
  const bodyLimit = mediaBodyLimit;

  app.post('/send-image', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-image', ...SendImage, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'image', image: checkMediaRef(b.image, 'image') };
    if (b.caption !== undefined) content.caption = b.caption;
    if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-sticker', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-sticker', ...SendSticker, response: sendResponses } }, async (request) =>
    messages.send(instanceOf(request), common(request.body, request), { type: 'sticker', sticker: checkMediaRef(request.body.sticker, 'sticker') }),
  );

  app.post('/send-audio', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-audio', ...SendAudio, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'audio', audio: checkMediaRef(b.audio, 'audio') };
    if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
    if (b.waveform !== undefined) content.waveform = b.waveform;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-video', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-video', ...SendVideo, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'video', video: checkMediaRef(b.video, 'video') };
    if (b.caption !== undefined) content.caption = b.caption;
    if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-ptv', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-ptv', ...SendPtv, response: sendResponses } }, async (request) => {
    const b = request.body;
    const ref = b.video ?? b.ptv;
    if (ref === undefined) throw errors.invalidInput('video: required');
    return messages.send(instanceOf(request), common(b, request), { type: 'ptv', video: checkMediaRef(ref, b.video ? 'video' : 'ptv') });
  });

  app.post('/send-gif', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-gif', ...SendGif, response: sendResponses } }, async (request) => {
    const b = request.body;
    const content: OutgoingContent = { type: 'gif', gif: checkMediaRef(b.gif, 'gif') };
    if (b.caption !== undefined) content.caption = b.caption;
    return messages.send(instanceOf(request), common(b, request), content);
  });

  app.post('/send-document/:extension', { bodyLimit, schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-document', ...SendDocument, response: sendResponses } }, async (request) => {
    const b = request.body;
    const extension = request.params.extension.toLowerCase();
    const content: OutgoingContent = { type: 'document', document: checkMediaRef(b.document, 'document'), extension };
    if (b.fileName !== undefined) content.fileName = b.fileName;
    if (b.caption !== undefined) content.caption = b.caption;
    return messages.send(instanceOf(request), common(b, request), content);
  });
}
