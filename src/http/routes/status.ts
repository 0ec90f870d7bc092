// Tag "status": posts to the account's status (stories) and replies to contacts' posts. Posts are
// queued like any send (zaapId, DeliveryCallback) and shown to the numbers the instance has talked
// with (up to 1,000, newest first): the network keeps no contact list for a linked device.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OutgoingContent } from '../../domain/outgoing.js';
import type { MessagesService } from '../../services/messages-service.js';
import { instanceOf } from '../auth.js';
import { Phone } from '../schemas/common.js';
import { EXAMPLE_IMAGE, EXAMPLE_VIDEO } from '../schemas/examples.js';
import { MediaRef, sendResponses } from '../schemas/messages.js';
import { checkMediaRef } from './messages/send-helpers.js';

const tags = ['status'];
const Caption = Type.Optional(Type.String({ maxLength: 4096 }));
const StatusMessageId = Type.String({ minLength: 1, maxLength: 128, description: "The id of the contact's status post (from its webhook)." });
const POSTED = 'Shown for 24 h to the contacts the instance has talked with (up to 1,000, newest first). Queued like any send: the answer is the queue id and the WhatsApp id.';

export function statusRoutes(messages: MessagesService, mediaBodyLimit: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/send-text-status',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_send-text-status',
          summary: 'Post a text to your status',
          description: POSTED,
          body: Type.Object({ message: Type.String({ minLength: 1, maxLength: 700 }) }, { examples: [{ message: 'Open today until 8pm' }] }),
          response: sendResponses,
        },
      },
      async (request) => messages.sendStatus(instanceOf(request), { type: 'text', message: request.body.message }),
    );

    app.post(
      '/send-image-status',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_send-image-status',
          summary: 'Post an image to your status',
          description: POSTED,
          body: Type.Object({ image: MediaRef, caption: Caption }, { examples: [{ image: EXAMPLE_IMAGE, caption: 'This week only' }] }),
          response: sendResponses,
        },
      },
      async (request) => {
        const content: OutgoingContent = { type: 'image', image: checkMediaRef(request.body.image, 'image') };
        if (request.body.caption !== undefined) content.caption = request.body.caption;
        return messages.sendStatus(instanceOf(request), content);
      },
    );

    app.post(
      '/send-video-status',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_send-video-status',
          summary: 'Post a video to your status',
          description: `${POSTED} Converted to an MP4 every client plays, as send-video does.`,
          body: Type.Object({ video: MediaRef, caption: Caption }, { examples: [{ video: EXAMPLE_VIDEO, caption: 'Our new store' }] }),
          response: sendResponses,
        },
      },
      async (request) => {
        const content: OutgoingContent = { type: 'video', video: checkMediaRef(request.body.video, 'video') };
        if (request.body.caption !== undefined) content.caption = request.body.caption;
        return messages.sendStatus(instanceOf(request), content);
      },
    );

    const REPLY = "A message to the contact that quotes their status post: their phone shows it under the post.";
    app.post(
      '/reply-status-text',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_reply-status-text',
          summary: "Reply to a contact's status with text",
          description: REPLY,
          body: Type.Object(
            { phone: Phone, message: Type.String({ minLength: 1, maxLength: 65536 }), statusMessageId: StatusMessageId },
            { examples: [{ phone: '5511999999999', message: 'Love it!', statusMessageId: '3EB0C431D5E1A2B3C4D5E6' }] },
          ),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        return messages.replyToStatus(instanceOf(request), b.phone, b.statusMessageId, { type: 'text', message: b.message });
      },
    );

    app.post(
      '/reply-status-gif',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_reply-status-gif',
          summary: "Reply to a contact's status with a GIF",
          description: `${REPLY} The GIF is sent as send-gif sends it (an MP4 shown looping).`,
          body: Type.Object(
            { phone: Phone, gif: MediaRef, caption: Caption, statusMessageId: StatusMessageId },
            { examples: [{ phone: '5511999999999', gif: EXAMPLE_VIDEO, statusMessageId: '3EB0C431D5E1A2B3C4D5E6' }] },
          ),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        const content: OutgoingContent = { type: 'gif', gif: checkMediaRef(b.gif, 'gif') };
        if (b.caption !== undefined) content.caption = b.caption;
        return messages.replyToStatus(instanceOf(request), b.phone, b.statusMessageId, content);
      },
    );

    app.post(
      '/reply-status-sticker',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'status_reply-status-sticker',
          summary: "Reply to a contact's status with a sticker",
          description: `${REPLY} The sticker is sent as send-sticker sends it.`,
          body: Type.Object(
            { phone: Phone, sticker: MediaRef, statusMessageId: StatusMessageId },
            { examples: [{ phone: '5511999999999', sticker: EXAMPLE_IMAGE, statusMessageId: '3EB0C431D5E1A2B3C4D5E6' }] },
          ),
          response: sendResponses,
        },
      },
      async (request) => {
        const b = request.body;
        return messages.replyToStatus(instanceOf(request), b.phone, b.statusMessageId, { type: 'sticker', sticker: checkMediaRef(b.sticker, 'sticker') });
      },
    );
  };
}
