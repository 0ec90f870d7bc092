// Tag "messages", the operations on a message already sent or received: reactions, forwards, read
// receipts, pins and deletion — what each documents and accepts.
import { Type } from '@sinclair/typebox';
import { Phone } from './common.js';
import { EXAMPLE_PHONE } from './examples.js';
import { DelayOnly, MessageRef } from './messages.js';

export const SendReaction = {
  summary: 'React to a message with an emoji',
  description:
    '`messageId` is the message reacted to (sent or received in the chat `phone`). A new reaction replaces the previous one. ' +
    'The reaction names the exact message when the instance knows it (sent or received in the last 14 days); otherwise it is addressed as a message received in that chat.',
  body: Type.Object(
    { ...DelayOnly, reaction: Type.String({ minLength: 1, maxLength: 32 }), messageId: MessageRef('The message to react to.') },
    { examples: [{ phone: EXAMPLE_PHONE, reaction: '❤️', messageId: '3EB0C767D26A1D8E7B5E21' }] },
  ),
};

export const SendRemoveReaction = {
  summary: 'Remove this instance\'s reaction from a message',
  description: 'Sends an empty reaction to `messageId` in the chat `phone`, which WhatsApp shows as the reaction removed. Queued like a send.',
  body: Type.Object(
    { ...DelayOnly, messageId: MessageRef('The message whose reaction is removed.') },
    { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21' }] },
  ),
};

export const ForwardMessage = {
  summary: 'Forward a message this instance knows to another chat',
  description:
    'Forwards a message sent or received by this instance in the last 14 days (the gateway keeps them for quoting and forwarding), content and media included. ' +
    'The recipient sees "Forwarded" unless the message is the instance\'s own, as WhatsApp does. ' +
    'An id the instance does not know answers 422 `Unable to process request` with the reason.',
  body: Type.Object(
    { ...DelayOnly, messageId: MessageRef('The message to forward.'), messagePhone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat where that message is.' }) },
    { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21', messagePhone: '5511888888888' }] },
  ),
};

export const ReadMessage = {
  summary: 'Mark a received message read (answers 204)',
  description:
    'Sends the read receipt (blue ticks) for a received message at once, not through the queue, and answers 204 with no body as Z-API does. ' +
    'Not connected → 409. In a group the receipt names the sender, so the message must be one the instance received in the last 14 days; ' +
    'a message the instance itself sent, or an unknown group message, answers 422 with the reason.',
  body: Type.Object(
    { phone: Phone, messageId: MessageRef('The received message.') },
    { examples: [{ phone: EXAMPLE_PHONE, messageId: '3EB0C767D26A1D8E7B5E21' }] },
  ),
};

export const PinMessage = {
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
};

export const DeleteMessage = {
  summary: 'Delete a message',
  description:
    '`owner=true`: revoke your own message for everyone. `owner=false`: in a group, revoke another participant\'s message as admin; in a 1:1 chat, delete it for you. A message still waiting in the queue is taken out of it instead and never sent (no connection needed): its DeliveryCallback says `errorCode: "CANCELLED"`. One the instance is sending right now is waited for (up to 20 s), then revoked; 409 `Message is being sent` if it is still going.',
  querystring: Type.Object({
    messageId: Type.String({ minLength: 1, maxLength: 128, description: 'The message id (a send answered it as `messageId`).', examples: ['3EB0A7C2F5D1E8B94C6A'] }),
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat: a number or `<digits>-group`.', examples: [EXAMPLE_PHONE] }),
    owner: Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true` when this instance sent the message.', examples: ['true'] }),
  }),
};
