// Tag "messages", the send-kinds: link previews, contacts, polls, reactions, forwards, read
// receipts, pins and the interactive buttons (actions, OTP, Pix, carousel). Z-API's paths and
// bodies; every queued send answers {zaapId, messageId, id} like the other send routes.
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox';
import { PIN_SECONDS, type ActionButton, type OutgoingContent, type SharedContact } from '../../domain/outgoing.js';
import { parsePhone } from '../../domain/phone.js';
import { errors } from '../../errors.js';
import type { MessagesService, SendCommon } from '../../services/messages-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, Phone, SendCommonFields, SendResult } from '../schemas/common.js';
import { EXAMPLE_IMAGE } from '../schemas/examples.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

const tags = ['messages'];
// 507: the disk is full, the message was not queued (README: Security and operations).
const sendResponses = { 200: SendResult, ...errorResponses(409, 413, 415, 507) };
const EXAMPLE_PHONE = '5511999999999';
const MessageRef = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const ImageRef = Type.String({
  minLength: 1,
  description: 'An https URL (fetched at send time under the address guard, never by WhatsApp\'s engine) or a base64 data URI.',
});

/** Where lists, buttons and the interactive kinds below are rendered (CONTRACT §6), for the OpenAPI text. */
const RENDERING =
  'Rendering follows the instance\'s list mode (`PUT …/update-list-mode`): `poll` (default) and `text` send a rendering every WhatsApp client shows; ' +
  '`native` sends WhatsApp\'s interactive message, which many clients (WhatsApp Web, desktop, older phones) do not display — experimental.';

/** Only what every send accepts, without `messageId` (these routes use it for the target message). */
const DelayOnly = {
  phone: Phone,
  delayMessage: SendCommonFields.delayMessage,
  delayTyping: SendCommonFields.delayTyping,
};

const ActionButtonSchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Comes back as `buttonsResponseMessage.buttonId` when a REPLY button is chosen (default: its position, from 1).' })),
  type: Type.Union([Type.Literal('CALL'), Type.Literal('URL'), Type.Literal('REPLY')]),
  label: Type.String({ minLength: 1, maxLength: 100 }),
  phone: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'CALL: the number to call (with country code).' })),
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'URL: http(s) address to open.' })),
});

function common(b: { phone: string; delayMessage?: number; delayTyping?: number; messageId?: string; mentioned?: string[]; mentionAll?: boolean }): SendCommon {
  const { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll } = b;
  return { phone, delayMessage, delayTyping, messageId, mentioned, mentionAll };
}

function delayOnly(b: { phone: string; delayMessage?: number; delayTyping?: number }): SendCommon {
  return { phone: b.phone, delayMessage: b.delayMessage, delayTyping: b.delayTyping };
}

function checkImage(value: string, field: string): string {
  if (/^https?:\/\//i.test(value) || /^data:[a-z]+\/[a-z0-9.+-]+;base64,/i.test(value)) return value;
  throw errors.invalidInput(`${field}: must be an https URL or a base64 data URI`);
}

function checkUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.invalidInput(`${field}: must be an absolute http(s) URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw errors.invalidInput(`${field}: must be an absolute http(s) URL`);
  return value;
}

function actionButtons(raw: readonly Static<typeof ActionButtonSchema>[], field: string): ActionButton[] {
  return raw.map((b, i) => {
    const out: ActionButton = { id: b.id ?? String(i + 1), type: b.type, label: b.label };
    if (b.type === 'URL') {
      if (!b.url) throw errors.invalidInput(`${field}[${i}].url: required for a URL button`);
      out.url = checkUrl(b.url, `${field}[${i}].url`);
    }
    if (b.type === 'CALL') {
      if (!b.phone) throw errors.invalidInput(`${field}[${i}].phone: required for a CALL button`);
      out.phone = parsePhone(b.phone, `${field}[${i}].phone`);
    }
    return out;
  });
}

function assertUnique(values: string[], field: string, key: string): void {
  if (new Set(values).size !== values.length) throw errors.invalidInput(`${field}: every ${key} must be unique`);
}

interface SendKindsRoutesOptions {
  messages: MessagesService;
  mediaBodyLimit: number;
}

export function sendKindsRoutes(app: App, { messages, mediaBodyLimit }: SendKindsRoutesOptions): void {
  app.post(
    '/send-link',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-link',
        summary: 'Send a text with a link preview (title, description, optional thumbnail)',
        description:
          'An extended text whose preview shows `title`, `linkDescription` and, when `image` is given, a JPEG thumbnail made from it (fetched by the gateway under the address guard; WhatsApp\'s engine never fetches URLs). ' +
          '`linkUrl` must appear in `message` for WhatsApp to make it clickable; when it does not, it is appended on a new line. ' +
          '`linkType` (default SMALL) sets the preview size: SMALL and MEDIUM carry an inline thumbnail 140 or 300 px wide; ' +
          'LARGE also uploads the image to WhatsApp\'s media host as the preview\'s high-quality picture, which clients show as a large preview.',
        body: Type.Object(
          {
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 65536 }),
            image: Type.Optional(ImageRef),
            linkUrl: Type.String({ minLength: 1, maxLength: 2048 }),
            title: Type.String({ minLength: 1, maxLength: 1000 }),
            linkDescription: Type.String({ maxLength: 4096 }),
            linkType: Type.Optional(Type.Union([Type.Literal('SMALL'), Type.Literal('MEDIUM'), Type.Literal('LARGE')])),
          },
          {
            examples: [
              { phone: EXAMPLE_PHONE, message: 'Our new site: https://z-api.io', image: EXAMPLE_IMAGE, linkUrl: 'https://z-api.io', title: 'Z-API', linkDescription: 'WhatsApp integration' },
            ],
          },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const linkUrl = checkUrl(b.linkUrl, 'linkUrl');
      const content: OutgoingContent = {
        type: 'link',
        message: b.message.includes(linkUrl) ? b.message : `${b.message}\n${linkUrl}`,
        linkUrl,
        title: b.title,
        linkDescription: b.linkDescription,
        linkType: b.linkType ?? 'SMALL',
      };
      if (b.image) content.image = checkImage(b.image, 'image');
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-contact',
    {
      schema: {
        tags,
        operationId: 'messages_send-contact',
        summary: 'Send a contact card',
        description: 'A contact message holding a vCard 3.0 with the number marked as a WhatsApp account (`waid=`), so the recipient can message or save it.',
        body: Type.Object(
          {
            ...SendCommonFields,
            contactName: Type.String({ minLength: 1, maxLength: 256 }),
            contactPhone: Type.String({ minLength: 1, maxLength: 32, description: 'Number with country code.' }),
            contactBusinessDescription: Type.Optional(Type.String({ maxLength: 1000 })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, contactName: 'Z-API Contact', contactPhone: '554498398733' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const contact: SharedContact = { name: b.contactName, phones: [parsePhone(b.contactPhone, 'contactPhone')] };
      if (b.contactBusinessDescription) contact.businessDescription = b.contactBusinessDescription;
      return messages.send(instanceOf(request), common(b), { type: 'contacts', contacts: [contact] });
    },
  );

  app.post(
    '/send-contacts',
    {
      schema: {
        tags,
        operationId: 'messages_send-contacts',
        summary: 'Send several contact cards in one message',
        description: 'One vCard 3.0 per contact, every number marked as a WhatsApp account (`waid=`).',
        body: Type.Object(
          {
            ...SendCommonFields,
            contacts: Type.Array(
              Type.Object({
                name: Type.String({ minLength: 1, maxLength: 256 }),
                phones: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, maxItems: 10 }),
                businessDescription: Type.Optional(Type.String({ maxLength: 1000 })),
              }),
              { minItems: 1, maxItems: 50 },
            ),
          },
          {
            examples: [
              { phone: EXAMPLE_PHONE, contacts: [{ name: 'Ana', phones: ['5544999999999', '5544888888888'] }, { name: 'Acme', businessDescription: 'A company', phones: ['5544977777777'] }] },
            ],
          },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const contacts = b.contacts.map((x, i) => {
        const c: SharedContact = { name: x.name, phones: x.phones.map((p, j) => parsePhone(p, `contacts[${i}].phones[${j}]`)) };
        if (x.businessDescription) c.businessDescription = x.businessDescription;
        return c;
      });
      return messages.send(instanceOf(request), common(b), { type: 'contacts', contacts });
    },
  );

  app.post(
    '/send-poll',
    {
      schema: {
        tags,
        operationId: 'messages_send-poll',
        summary: 'Send a poll (to a group or a person)',
        description:
          'A WhatsApp poll. `pollMaxOptions` is how many options one person may choose (1 = single choice; absent or 0 = any number). ' +
          'Votes come back on the received webhook as a ReceivedCallback with `pollVote: {pollMessageId, options: [{name}]}` (every option the voter has chosen now). ' +
          'WhatsApp shows polls in groups and in 1:1 chats.',
        body: Type.Object(
          {
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 255 }),
            poll: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }), { minItems: 2, maxItems: 12 }),
            pollMaxOptions: Type.Optional(Type.Integer({ minimum: 0, maximum: 12 })),
          },
          { examples: [{ phone: '120363019502650977-group', message: 'What is the best WhatsApp API?', pollMaxOptions: 1, poll: [{ name: 'Z-API' }, { name: 'Others' }] }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const options = b.poll.map((o) => o.name);
      assertUnique(options, 'poll', 'name');
      const max = b.pollMaxOptions ?? 0;
      if (max > options.length) throw errors.invalidInput(`pollMaxOptions: must be at most the number of options (${options.length})`);
      return messages.send(instanceOf(request), common(b), { type: 'poll', message: b.message, options, maxOptions: max });
    },
  );

  app.post(
    '/send-reaction',
    {
      schema: {
        tags,
        operationId: 'messages_send-reaction',
        summary: 'React to a message with an emoji',
        description:
          '`messageId` is the message reacted to (sent or received in the chat `phone`). A new reaction replaces the previous one. ' +
          'The reaction names the exact message when the instance knows it (sent or received in the last 14 days); otherwise it is addressed as a message received in that chat.',
        body: Type.Object(
          { ...DelayOnly, reaction: Type.String({ minLength: 1, maxLength: 32 }), messageId: MessageRef('The message to react to.') },
          { examples: [{ phone: EXAMPLE_PHONE, reaction: '❤️', messageId: '3EB0C767D26A1D8E7B5E21' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      return messages.send(instanceOf(request), delayOnly(b), { type: 'reaction', targetId: b.messageId, reaction: b.reaction });
    },
  );

  app.post(
    '/send-remove-reaction',
    {
      schema: {
        tags,
        operationId: 'messages_send-remove-reaction',
        summary: 'Remove this instance\'s reaction from a message',
        description: 'Sends an empty reaction to `messageId` in the chat `phone`, which WhatsApp shows as the reaction removed. Queued like a send.',
        body: Type.Object(
          { ...DelayOnly, messageId: MessageRef('The message whose reaction is removed.') },
          { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      return messages.send(instanceOf(request), delayOnly(b), { type: 'reaction', targetId: b.messageId, reaction: '' });
    },
  );

  app.post(
    '/forward-message',
    {
      schema: {
        tags,
        operationId: 'messages_forward-message',
        summary: 'Forward a message this instance knows to another chat',
        description:
          'Forwards a message sent or received by this instance in the last 14 days (the gateway keeps them for quoting and forwarding), content and media included. ' +
          'The recipient sees "Forwarded" unless the message is the instance\'s own, as WhatsApp does. ' +
          'An id the instance does not know answers 422 `Unable to process request` with the reason.',
        body: Type.Object(
          { ...DelayOnly, messageId: MessageRef('The message to forward.'), messagePhone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat where that message is.' }) },
          { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21', messagePhone: '5511888888888' }] },
        ),
        response: { ...sendResponses, ...errorResponses(409, 413, 415, 422) },
      },
    },
    async (request) => {
      const b = request.body;
      const instance = instanceOf(request);
      const sourcePhone = await messages.assertKnownMessage(instance, b.messageId, b.messagePhone);
      return messages.send(instance, delayOnly(b), { type: 'forward', sourceId: b.messageId, sourcePhone });
    },
  );

  app.post(
    '/read-message',
    {
      schema: {
        tags,
        operationId: 'messages_read-message',
        summary: 'Mark a received message read (answers 204)',
        description:
          'Sends the read receipt (blue ticks) for a received message at once, not through the queue, and answers 204 with no body as Z-API does. ' +
          'Not connected → 409. In a group the receipt names the sender, so the message must be one the instance received in the last 14 days; ' +
          'a message the instance itself sent, or an unknown group message, answers 422 with the reason.',
        body: Type.Object(
          { phone: Phone, messageId: MessageRef('The received message.') },
          { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21' }] },
        ),
        response: { 204: Type.Null({ description: 'Read receipt sent.' }), ...errorResponses(409, 415, 422, 504) },
      },
    },
    async (request, reply) => {
      await messages.readMessage(instanceOf(request), request.body.phone, request.body.messageId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/pin-message',
    {
      schema: {
        tags,
        operationId: 'messages_pin-message',
        summary: 'Pin or unpin a message in a chat',
        description:
          'Queued like a send. `pinMessageDuration` (default `7_days`) applies to `pin` only. The pin names the exact message when the instance knows it (sent or received in the last 14 days); ' +
          'otherwise it is addressed as a message received in that chat. In groups whose settings let only admins pin, the network refuses a non-admin: the refusal arrives as a DeliveryCallback with `error`.',
        body: Type.Object(
          {
            ...DelayOnly,
            messageId: MessageRef('The message to pin or unpin.'),
            messageAction: Type.Union([Type.Literal('pin'), Type.Literal('unpin')]),
            pinMessageDuration: Type.Optional(Type.Union([Type.Literal('24_hours'), Type.Literal('7_days'), Type.Literal('30_days')])),
          },
          { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21', messageAction: 'pin', pinMessageDuration: '7_days' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      return messages.send(instanceOf(request), delayOnly(b), {
        type: 'pin',
        targetId: b.messageId,
        action: b.messageAction,
        durationSeconds: b.messageAction === 'pin' ? PIN_SECONDS[b.pinMessageDuration ?? '7_days'] : 0,
      });
    },
  );

  app.post(
    '/send-button-actions',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-button-actions',
        summary: 'Send a message with action buttons (open a link, call a number, quick reply)',
        description:
          `${RENDERING} In \`poll\` mode the image, title, links, numbers and footer go first (an image with caption, or text) and the REPLY buttons follow as a single-choice poll asking \`message\`; ` +
          'in `text` mode one message lists the links and numbers and numbers the REPLY buttons. Either way, a REPLY chosen comes back as `buttonsResponseMessage` with the button id and `referenceMessageId` = the returned messageId. ' +
          'Without REPLY buttons the whole message is one text (or image with caption).',
        body: Type.Object(
          {
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            title: Type.Optional(Type.String({ maxLength: 1000 })),
            footer: Type.Optional(Type.String({ maxLength: 1000 })),
            image: Type.Optional(ImageRef),
            buttonActions: Type.Array(ActionButtonSchema, { minItems: 1, maxItems: 12 }),
          },
          {
            examples: [
              {
                phone: EXAMPLE_PHONE,
                message: 'a message',
                title: 'a title',
                footer: 'a footer',
                buttonActions: [
                  { id: '1', type: 'CALL', phone: '554498398733', label: 'Contact us' },
                  { id: '2', type: 'URL', url: 'https://z-api.io', label: 'Visit our website' },
                ],
              },
            ],
          },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const buttons = actionButtons(b.buttonActions, 'buttonActions');
      assertUnique(buttons.filter((x) => x.type === 'REPLY').map((x) => x.id), 'buttonActions', 'REPLY id');
      const content: OutgoingContent = { type: 'button-actions', message: b.message, buttons };
      if (b.title) content.title = b.title;
      if (b.footer) content.footer = b.footer;
      if (b.image) content.image = checkImage(b.image, 'image');
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-button-otp',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-button-otp',
        summary: 'Send a code with a copy button',
        description: `${RENDERING} The fallback is the message followed by \`buttonText\` and the code alone on the last line, easy to select and copy.`,
        body: Type.Object(
          {
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            code: Type.String({ minLength: 1, maxLength: 256 }),
            image: Type.Optional(ImageRef),
            buttonText: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: 'Default "Copy code".' })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, message: 'Your verification code', code: '123-456' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const content: OutgoingContent = { type: 'button-otp', message: b.message, code: b.code, buttonText: b.buttonText ?? 'Copy code' };
      if (b.image) content.image = checkImage(b.image, 'image');
      return messages.send(instanceOf(request), common(b), content);
    },
  );

  app.post(
    '/send-button-pix',
    {
      schema: {
        tags,
        operationId: 'messages_send-button-pix',
        summary: 'Send a Pix key with a copy button',
        description: `${RENDERING} The fallback is a text with \`merchantName\`, the key type and the key alone on the last line, easy to copy.`,
        body: Type.Object(
          {
            ...SendCommonFields,
            pixKey: Type.String({ minLength: 1, maxLength: 256 }),
            type: Type.Union([Type.Literal('CPF'), Type.Literal('CNPJ'), Type.Literal('PHONE'), Type.Literal('EMAIL'), Type.Literal('EVP')]),
            merchantName: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Default "Pix".' })),
          },
          { examples: [{ phone: EXAMPLE_PHONE, pixKey: '123e4567-e89b-12d3-a456-426614174000', type: 'EVP', merchantName: 'Acme' }] },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      return messages.send(instanceOf(request), common(b), { type: 'button-pix', pixKey: b.pixKey, keyType: b.type, merchantName: b.merchantName ?? 'Pix' });
    },
  );

  app.post(
    '/send-carousel',
    {
      bodyLimit: mediaBodyLimit,
      schema: {
        tags,
        operationId: 'messages_send-carousel',
        summary: 'Send a carousel of cards (image, text, buttons)',
        description:
          `${RENDERING} The fallback sends each card as an image with its text, links and numbers as caption; REPLY buttons of all cards then follow as one single-choice poll asking \`message\` ` +
          '(labelled `#<card> <label>` when there are several cards), or as numbered text in `text` mode, and come back as `buttonsResponseMessage`. Without REPLY buttons, `message` goes first as text.',
        body: Type.Object(
          {
            ...SendCommonFields,
            message: Type.String({ minLength: 1, maxLength: 4096 }),
            carousel: Type.Array(
              Type.Object({
                text: Type.String({ minLength: 1, maxLength: 1024 }),
                image: ImageRef,
                buttons: Type.Optional(Type.Array(ActionButtonSchema, { maxItems: 3 })),
              }),
              { minItems: 1, maxItems: 10 },
            ),
          },
          {
            examples: [
              {
                phone: EXAMPLE_PHONE,
                message: 'Our plans',
                carousel: [
                  { text: 'Basic', image: EXAMPLE_IMAGE, buttons: [{ id: 'b', label: 'Choose Basic', type: 'REPLY' }] },
                  { text: 'Pro', image: EXAMPLE_IMAGE, buttons: [{ id: 'site', label: 'Details', type: 'URL', url: 'https://z-api.io' }, { id: 'p', label: 'Choose Pro', type: 'REPLY' }] },
                ],
              },
            ],
          },
        ),
        response: sendResponses,
      },
    },
    async (request) => {
      const b = request.body;
      const cards = b.carousel.map((card, i) => ({
        text: card.text,
        image: checkImage(card.image, `carousel[${i}].image`),
        buttons: actionButtons(card.buttons ?? [], `carousel[${i}].buttons`),
      }));
      if (cards.reduce((n, k) => n + k.buttons.filter((x) => x.type === 'REPLY').length, 0) > 12) {
        throw errors.invalidInput('carousel: at most 12 REPLY buttons in all');
      }
      return messages.send(instanceOf(request), common(b), { type: 'carousel', message: b.message, cards });
    },
  );
}
