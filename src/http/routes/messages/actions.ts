// Tag "messages": what is done to a message already sent or received — react, forward, read, pin,
// delete. Reactions, forwards and pins are queued like sends; read and delete act at once.
import { Type } from '@fastify/type-provider-typebox';
import { PIN_SECONDS } from '../../../domain/outgoing.js';
import { instanceOf } from '../../auth.js';
import { errorResponses, SendResult, ValueTrue } from '../../schemas/common.js';
import { DeleteMessage, ForwardMessage, PinMessage, ReadMessage, SendReaction, SendRemoveReaction } from '../../schemas/message-actions.js';
import { sendResponses } from '../../schemas/messages.js';
import { delayOnly, tags, type App, type SendRoutesOptions } from './send-helpers.js';

export function messageActionRoutes(app: App, { messages }: SendRoutesOptions): void {
  app.post('/send-reaction', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-reaction', ...SendReaction, response: sendResponses } }, async (request) => {
    const b = request.body;
    return messages.send(instanceOf(request), delayOnly(b, request), { type: 'reaction', targetId: b.messageId, reaction: b.reaction });
  });

  app.post('/send-remove-reaction', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-remove-reaction', ...SendRemoveReaction, response: sendResponses } }, async (request) => {
    const b = request.body;
    return messages.send(instanceOf(request), delayOnly(b, request), { type: 'reaction', targetId: b.messageId, reaction: '' });
  });

  app.post(
    '/forward-message',
    { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_forward-message', ...ForwardMessage, response: { ...sendResponses, ...errorResponses(409, 413, 415, 422) } } },
    async (request) => {
      const b = request.body;
      const instance = instanceOf(request);
      const sourcePhone = await messages.assertKnownMessage(instance, b.messageId, b.messagePhone);
      return messages.send(instance, delayOnly(b, request), { type: 'forward', sourceId: b.messageId, sourcePhone });
    },
  );

  app.post(
    '/read-message',
    {
      schema: {
        tags,
        'x-zapgate-scope': 'send',
        operationId: 'messages_read-message',
        ...ReadMessage,
        response: { 204: Type.Null({ description: 'Read receipt sent.' }), ...errorResponses(409, 415, 422, 504) },
      },
    },
    async (request, reply) => {
      await messages.readMessage(instanceOf(request), request.body.phone, request.body.messageId);
      return reply.code(204).send(null);
    },
  );

  app.post('/pin-message', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_pin-message', ...PinMessage, response: sendResponses } }, async (request) => {
    const b = request.body;
    return messages.send(instanceOf(request), delayOnly(b, request), {
      type: 'pin',
      targetId: b.messageId,
      action: b.messageAction,
      durationSeconds: b.messageAction === 'pin' ? PIN_SECONDS[b.pinMessageDuration ?? '7_days'] : 0,
    });
  });

  app.post(
    '/send-call',
    {
      schema: {
        tags,
        'x-zapgate-scope': 'send',
        operationId: 'messages_send-call',
        summary: 'Place a call (Z-API; not available: 422)',
        description:
          'Z-API rings `phone` for `callDuration` seconds. A linked device running zapgate\'s engine (Baileys 7) cannot place a call: it has no call offer to send. So the body is checked (400 for a bad phone or duration) and the answer is always 422 `Unable to process request` with code `NOT_SUPPORTED` and the reason; nothing is queued or sent. The 200 below is Z-API\'s shape, never given here (docs/contract.md §11).',
        body: Type.Object(
          {
            phone: Type.String({ minLength: 1, maxLength: 32, description: 'Number with country code.' }),
            callDuration: Type.Optional(Type.Integer({ minimum: 1, maximum: 15, description: 'Seconds (Z-API: default 5, at most 15).' })),
            callAudioUrl: Type.Optional(Type.String({ maxLength: 2048 })),
          },
          { examples: [{ phone: '5511999999999', callDuration: 5 }] },
        ),
        response: { 200: SendResult, ...errorResponses(422) },
      },
    },
    async (request) => messages.sendCall(request.body.phone),
  );

  app.delete('/messages', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_delete', ...DeleteMessage, response: { 200: ValueTrue, ...errorResponses(409, 422, 504) } } }, async (request) => {
    const q = request.query;
    await messages.deleteMessage(instanceOf(request), q.phone, q.messageId, q.owner === 'true');
    return { value: true };
  });
}
