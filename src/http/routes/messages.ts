// Tag "messages": the asynchronous send operations and message deletion.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import type { OutgoingContent } from '../../domain/outgoing.js';
import { parseDegrees, type MessagesService, type SendCommon } from '../../services/messages-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, SendCommonFields, SendResult, ValueTrue } from '../schemas/common.js';
import { EXAMPLE_AUDIO, EXAMPLE_IMAGE, EXAMPLE_PDF, EXAMPLE_VIDEO } from '../schemas/examples.js';
import { sendKindsRoutes } from './messages-kinds.js';

const tags = ['messages'];
const EXAMPLE_PHONE = '5511999999999';
export const MediaRef = Type.String({
  minLength: 1,
  description: 'An https URL (fetched at send time under the address guard) or a base64 data URI (up to 16 MiB).',
});
// 507: the disk is full, the message was not queued (README: Security and operations).
export const sendResponses = { 200: SendResult, ...errorResponses(409, 413, 415, 507) };

function common(body: SendCommon): SendCommon {
  const { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll, groupMentioned } = body;
  return { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll, groupMentioned };
}

export function checkMediaRef(value: string, field: string): string {
  // A data URI's label may carry parameters (`data:audio/ogg;codecs=opus;base64,…`); it is only a label.
  if (/^https?:\/\//i.test(value) || /^data:[a-z]+\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*;base64,/i.test(value)) return value;
  throw errors.invalidInput(`${field}: must be an https URL or a base64 data URI`);
}

interface MessageRoutesOptions {
  messages: MessagesService;
  mediaBodyLimit: number;
}

export function messageRoutes({ messages, mediaBodyLimit }: MessageRoutesOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    mediaSendRoutes(app, messages, mediaBodyLimit);
    app.post(
      '/send-text',
      {
        schema: {
          tags,
          operationId: 'messages_send-text',
          summary: 'Send text, a reply (messageId), mentions, or edit a sent message (editMessageId)',
          description:
            'Queued durably: the 200 means the message is on disk, and it leaves in order once the instance is connected (a DeliveryCallback reports it). ' +
            '`phone` is a number with country code, a group (`<digits>-group`) or a `@lid`. `messageId` quotes a message of the last 14 days; `mentioned` lists numbers to mention (write `@<number>` in the text); ' +
            '`mentionAll` mentions every participant of a group; `groupMentioned` mentions groups of the same community. `editMessageId` replaces the text of a message this instance sent. Markdown as WhatsApp writes it: *bold*, _italic_, ~strike~, ```mono```.',
          body: Type.Object(
            {
              ...SendCommonFields,
              message: Type.String({ minLength: 1, maxLength: 65536 }),
              editMessageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
              groupMentioned: Type.Optional(
                Type.Array(Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64, description: '`<digits>-group`' }), subject: Type.String({ minLength: 1, maxLength: 100 }) }), {
                  minItems: 1,
                  maxItems: 50,
                  description: 'Groups of the same community to mention (write `@<digits>-group` in the text); to a group only.',
                }),
              ),
            },
            { examples: [{ phone: EXAMPLE_PHONE, message: 'Hello from zapgate' }] },
          ),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const content: OutgoingContent = { type: 'text', message: b.message };
        if (b.editMessageId) content.editMessageId = b.editMessageId;
        return messages.send(instanceOf(request), common(b), content);
      },
    );

    app.post(
      '/send-image',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          operationId: 'messages_send-image',
          summary: 'Send an image by URL or data URI, with an optional caption',
          description:
            'JPEG and PNG within `ZAPGATE_MEDIA_IMAGE_MAX_SIDE` go byte for byte; any other image is decoded once (under the pixel limit), scaled and re-encoded (JPEG, or PNG when it has transparency). ' +
            '`viewOnce` lets the contact open it once. A data URI that is not an image is a 400 at once; a URL that fails arrives as a DeliveryCallback with `error` and `errorCode`.',
          body: Type.Object(
            {
              ...SendCommonFields,
              image: MediaRef,
              caption: Type.Optional(Type.String({ maxLength: 4096 })),
              viewOnce: Type.Optional(Type.Boolean()),
            },
            { examples: [{ phone: EXAMPLE_PHONE, image: EXAMPLE_IMAGE, caption: 'Our new logo' }] },
          ),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const content: OutgoingContent = { type: 'image', image: checkMediaRef(b.image, 'image') };
        if (b.caption !== undefined) content.caption = b.caption;
        if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
        return messages.send(instanceOf(request), common(b), content);
      },
    );

    app.post(
      '/send-sticker',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          operationId: 'messages_send-sticker',
          summary: 'Send a sticker (any image; converted to 512×512 WebP)',
          description: 'Any image (PNG with transparency keeps it) becomes a 512×512 WebP sticker, fitted inside a transparent square.',
          body: Type.Object({ ...SendCommonFields, sticker: MediaRef }, { examples: [{ phone: EXAMPLE_PHONE, sticker: EXAMPLE_IMAGE }] }),
          response: sendResponses,
        },
      },
      async (request) =>
        messages.send(instanceOf(request), common(request.body), {
          type: 'sticker',
          sticker: checkMediaRef(request.body.sticker, 'sticker'),
        }),
    );

    app.post(
      '/send-location',
      {
        schema: {
          tags,
          operationId: 'messages_send-location',
          summary: 'Send a location',
          description: 'A pin on the map, with an optional place name (`title`) and `address`. Latitude and longitude are decimal degrees, as numbers or strings.',
          body: Type.Object({
            ...SendCommonFields,
            title: Type.Optional(Type.String({ maxLength: 1000 })),
            address: Type.Optional(Type.String({ maxLength: 1000 })),
            latitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -90..90' }),
            longitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -180..180' }),
          }, { examples: [{ phone: EXAMPLE_PHONE, title: 'Avenida Paulista', address: 'Av. Paulista, 1578 - Bela Vista, São Paulo - SP', latitude: -23.5614, longitude: -46.6559 }] }),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const content: OutgoingContent = {
          type: 'location',
          latitude: parseDegrees(b.latitude, 'latitude', 90),
          longitude: parseDegrees(b.longitude, 'longitude', 180),
        };
        if (b.title !== undefined) content.title = b.title;
        if (b.address !== undefined) content.address = b.address;
        return messages.send(instanceOf(request), common(b), content);
      },
    );

    app.post(
      '/send-option-list',
      {
        schema: {
          tags,
          operationId: 'messages_send-option-list',
          summary: 'Send a list of options; delivered as a poll by default, answers come back with the option id',
          description:
            'Delivered per the instance\'s list mode (`PUT …/update-list-mode`). `poll` (default): a single-choice poll whose question is the title, the message and the `buttonLabel`, ' +
            'each option `title — description`. `text`: numbered text with the title, message, `buttonLabel` and descriptions, ' +
            'closed by the instance\'s wording (`PUT …/update-list-reply-hint`). `native`: WhatsApp\'s list message (experimental: many clients do not show it). ' +
            'Mentions are kept in every mode. The answer comes back as `listResponseMessage` with the option id and `referenceMessageId`.',
          body: Type.Object({
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            optionList: Type.Object({
              title: Type.String({ minLength: 1, maxLength: 255 }),
              buttonLabel: Type.String({ minLength: 1, maxLength: 60 }),
              options: Type.Array(
                Type.Object({
                  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
                  title: Type.String({ minLength: 1, maxLength: 100 }),
                  description: Type.Optional(Type.String({ maxLength: 300 })),
                }),
                { minItems: 1, maxItems: 12 },
              ),
            }),
          }, {
            examples: [
              {
                phone: EXAMPLE_PHONE,
                message: 'Which day suits you?',
                optionList: {
                  title: 'Delivery day',
                  buttonLabel: 'Choose a day',
                  options: [
                    { id: 'mon', title: 'Monday', description: 'morning' },
                    { id: 'wed', title: 'Wednesday', description: 'afternoon' },
                  ],
                },
              },
            ],
          }),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const options = b.optionList.options.map((o, i) => ({ id: o.id ?? String(i + 1), title: o.title, description: o.description ?? '' }));
        assertUnique(options.map((o) => o.id), 'optionList.options', 'id');
        assertUnique(options.map((o) => o.title), 'optionList.options', 'title');
        return messages.send(instanceOf(request), common(b), {
          type: 'option-list',
          message: b.message,
          title: b.optionList.title,
          buttonLabel: b.optionList.buttonLabel,
          options,
        });
      },
    );

    app.post(
      '/send-button-list',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          operationId: 'messages_send-button-list',
          summary: 'Send quick-answer buttons with an optional image or video header',
          description:
            'Delivered per the instance\'s list mode like send-option-list: a poll (default; the header image or video goes first as its own message), numbered text, or WhatsApp\'s buttons message (experimental). ' +
            'Mentions are kept in every mode. The answer comes back as `buttonsResponseMessage` with the button id.',
          body: Type.Object({
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            buttonList: Type.Object({
              buttons: Type.Array(
                Type.Object({ id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), label: Type.String({ minLength: 1, maxLength: 100 }) }),
                { minItems: 1, maxItems: 12 },
              ),
              image: Type.Optional(MediaRef),
              video: Type.Optional(MediaRef),
            }),
          }, {
            examples: [
              {
                phone: EXAMPLE_PHONE,
                message: 'Did the order arrive?',
                buttonList: { buttons: [{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'Not yet' }] },
              },
            ],
          }),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const buttons = b.buttonList.buttons.map((x, i) => ({ id: x.id ?? String(i + 1), label: x.label }));
        assertUnique(buttons.map((x) => x.id), 'buttonList.buttons', 'id');
        assertUnique(buttons.map((x) => x.label), 'buttonList.buttons', 'label');
        const content: OutgoingContent = { type: 'button-list', message: b.message, buttons };
        if (b.buttonList.image) content.image = checkMediaRef(b.buttonList.image, 'buttonList.image');
        if (b.buttonList.video) content.video = checkMediaRef(b.buttonList.video, 'buttonList.video');
        return messages.send(instanceOf(request), common(b), content);
      },
    );

    // send-kinds: link, contacts, poll, reactions, forward, read, pin, interactive buttons (messages-kinds.ts).
    sendKindsRoutes(app, { messages, mediaBodyLimit });

    app.delete(
      '/messages',
      {
        schema: {
          tags,
          operationId: 'messages_delete',
          summary: 'Delete a message',
          description:
            '`owner=true`: revoke your own message for everyone. `owner=false`: in a group, revoke another participant\'s message as admin; in a 1:1 chat, delete it for you.',
          querystring: Type.Object({
            messageId: Type.String({ minLength: 1, maxLength: 128, description: 'The message id (a send answered it as `messageId`).', examples: ['3EB0A7C2F5D1E8B94C6A'] }),
            phone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat: a number or `<digits>-group`.', examples: [EXAMPLE_PHONE] }),
            owner: Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true` when this instance sent the message.', examples: ['true'] }),
          }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        const q = request.query;
        await messages.deleteMessage(instanceOf(request), q.phone, q.messageId, q.owner === 'true');
        return { value: true };
      },
    );
  };
}

function assertUnique(values: string[], field: string, key: string): void {
  if (new Set(values).size !== values.length) throw errors.invalidInput(`${field}: every ${key} must be unique`);
}

// ─── Media sends: send-audio, send-video, send-ptv, send-gif, send-document/{extension} ─────────
// Z-API's paths and bodies. Media is checked up front when it is a data URI (400 when it is not
// what the endpoint needs), else fetched, sniffed and converted at send time (a failure arrives as
// a DeliveryCallback with `error` and `errorCode`).

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const MEDIA_NOTE =
  ' The payload\'s real type is read from its bytes (a URL\'s content-type and a data URI\'s label are ignored); limits: `ZAPGATE_MEDIA_*`.';

function mediaSendRoutes(app: App, messages: MessagesService, mediaBodyLimit: number): void {
  app.post(
    '/send-audio',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-audio',
        summary: 'Send a voice note',
        description:
          'Any audio (or a video\'s sound) is converted to an Ogg/Opus mono voice note with its length and waveform. `delayTyping` shows "recording audio…" first.' +
          MEDIA_NOTE,
        body: Type.Object(
          {
            ...SendCommonFields,
            audio: MediaRef,
            viewOnce: Type.Optional(Type.Boolean({ description: 'Play once.' })),
            waveform: Type.Optional(Type.Boolean({ description: 'Send the waveform bars (default true).' })),
            async: Type.Optional(Type.Boolean({ description: 'Accepted for Z-API compatibility: every send is asynchronous.' })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, audio: EXAMPLE_AUDIO, waveform: true }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const content: OutgoingContent = { type: 'audio', audio: checkMediaRef(b.audio, 'audio') };
      if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
      if (b.waveform !== undefined) content.waveform = b.waveform;
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-video',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-video',
        summary: 'Send a video',
        description: 'Converted to an MP4 (H.264/AAC) every WhatsApp client plays, scaled down to `ZAPGATE_MEDIA_VIDEO_MAX_SIDE`.' + MEDIA_NOTE,
        body: Type.Object(
          {
            ...SendCommonFields,
            video: MediaRef,
            caption: Type.Optional(Type.String({ maxLength: 4096 })),
            viewOnce: Type.Optional(Type.Boolean({ description: 'Play once.' })),
            async: Type.Optional(Type.Boolean({ description: 'Accepted for Z-API compatibility: every send is asynchronous.' })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, video: EXAMPLE_VIDEO, caption: 'Our new store' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const content: OutgoingContent = { type: 'video', video: checkMediaRef(b.video, 'video') };
      if (b.caption !== undefined) content.caption = b.caption;
      if (b.viewOnce !== undefined) content.viewOnce = b.viewOnce;
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-ptv',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-ptv',
        summary: 'Send a round video note (PTV)',
        description: 'The video is cropped square and converted to MP4. The media goes in `video` (`ptv` is accepted too).' + MEDIA_NOTE,
        body: Type.Object(
          {
            ...SendCommonFields,
            video: Type.Optional(MediaRef),
            ptv: Type.Optional(MediaRef),
          },
          { examples: [{ phone: EXAMPLE_PHONE, video: EXAMPLE_VIDEO }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const ref = b.video ?? b.ptv;
      if (ref === undefined) throw errors.invalidInput('video: required');
      return messages.send(instanceOf(request), common(b), { type: 'ptv', video: checkMediaRef(ref, b.video ? 'video' : 'ptv') });
    },
  );

  app.post(
    '/send-gif',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-gif',
        summary: 'Send a GIF (an MP4 shown looping, without sound)',
        description: 'An MP4 (or a GIF image, converted) sent with gifPlayback.' + MEDIA_NOTE,
        body: Type.Object(
          {
            ...SendCommonFields,
            gif: MediaRef,
            caption: Type.Optional(Type.String({ maxLength: 4096 })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, gif: EXAMPLE_VIDEO, caption: 'Friday!' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const content: OutgoingContent = { type: 'gif', gif: checkMediaRef(b.gif, 'gif') };
      if (b.caption !== undefined) content.caption = b.caption;
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-document/:extension',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-document',
        summary: 'Send a document (any file, byte for byte)',
        description: 'The file is sent unchanged; its mimetype follows `{extension}` (pdf, docx, xlsx, csv, zip, …).' + MEDIA_NOTE,
        params: Type.Object(
          { extension: Type.String({ pattern: '^[A-Za-z0-9]{1,10}$', description: 'File extension without the dot, e.g. `pdf`.', examples: ['pdf'] }) },
          { additionalProperties: true },
        ),
        body: Type.Object(
          {
            ...SendCommonFields,
            document: MediaRef,
            fileName: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Name shown to the contact (default `file.<extension>`).' })),
            caption: Type.Optional(Type.String({ maxLength: 4096 })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, document: EXAMPLE_PDF, fileName: 'invoice-0042.pdf' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const extension = request.params.extension.toLowerCase();
      const content: OutgoingContent = { type: 'document', document: checkMediaRef(b.document, 'document'), extension };
      if (b.fileName !== undefined) content.fileName = b.fileName;
      if (b.caption !== undefined) content.caption = b.caption;
      return messages.send(instanceOf(request), common(b), content);
    },
  );
}
// ─── end of media sends ─────────────────────────────────────────────────────────────────────
