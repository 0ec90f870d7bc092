// Tag "messages": the asynchronous send operations and message deletion.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../errors.js';
import type { OutgoingContent } from '../../domain/outgoing.js';
import { parseDegrees, type MessagesService, type SendCommon } from '../../services/messages-service.js';
import type { SessionsPort } from '../../sessions/port.js';
import { parseTarget, formatTarget } from '../../domain/phone.js';
import { instanceOf } from '../auth.js';
import { errorResponses, SendCommonFields, SendResult, ValueTrue } from '../schemas/common.js';

const tags = ['messages'];
const MediaRef = Type.String({
  minLength: 1,
  description: 'An https URL (fetched at send time under the address guard) or a base64 data URI (up to 16 MiB).',
});
const sendResponses = { 200: SendResult, ...errorResponses(409, 413, 415) };

function common(body: SendCommon): SendCommon {
  const { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll } = body;
  return { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll };
}

function checkMediaRef(value: string, field: string): string {
  if (/^https?:\/\//i.test(value) || /^data:[a-z]+\/[a-z0-9.+-]+;base64,/i.test(value)) return value;
  throw errors.invalidInput(`${field}: must be an https URL or a base64 data URI`);
}

export interface MessageRoutesOptions {
  messages: MessagesService;
  sessions: SessionsPort;
  mediaBodyLimit: number;
}

export function messageRoutes({ messages, sessions, mediaBodyLimit }: MessageRoutesOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/send-text',
      {
        schema: {
          tags,
          operationId: 'messages_send-text',
          summary: 'Send text, a reply (messageId), mentions, or edit a sent message (editMessageId)',
          body: Type.Object({
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 65536 }),
            editMessageId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          }),
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
          body: Type.Object({
            ...SendCommonFields,
            image: MediaRef,
            caption: Type.Optional(Type.String({ maxLength: 4096 })),
            viewOnce: Type.Optional(Type.Boolean()),
          }),
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
          body: Type.Object({ ...SendCommonFields, sticker: MediaRef }),
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
          body: Type.Object({
            ...SendCommonFields,
            title: Type.Optional(Type.String({ maxLength: 1000 })),
            address: Type.Optional(Type.String({ maxLength: 1000 })),
            latitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -90..90' }),
            longitude: Type.Union([Type.String({ maxLength: 32 }), Type.Number()], { description: 'Decimal degrees, -180..180' }),
          }),
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
            messageId: Type.String({ minLength: 1, maxLength: 128 }),
            phone: Type.String({ minLength: 1, maxLength: 64 }),
            owner: Type.Union([Type.Literal('true'), Type.Literal('false')]),
          }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        const q = request.query;
        const target = parseTarget(q.phone);
        const instance = instanceOf(request);
        if (!sessions.isConnected(instance.id)) throw errors.notConnected();
        await sessions.deleteMessage(instance.id, { phone: formatTarget(target), messageId: q.messageId, owner: q.owner === 'true' });
        return { value: true };
      },
    );
  };
}

function assertUnique(values: string[], field: string, key: string): void {
  if (new Set(values).size !== values.length) throw errors.invalidInput(`${field}: every ${key} must be unique`);
}
