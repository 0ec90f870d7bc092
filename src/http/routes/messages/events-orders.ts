// Tag "messages": votes, group events and orders. Each is queued like any send; a vote, an event's
// edit and an answer to an event name a message the instance must know (its secret encrypts them).
import type { Static } from '@fastify/type-provider-typebox';
import { eventStartTime, type EventDetails, type OrderDetails } from '../../../domain/events-orders.js';
import { parseTarget } from '../../../domain/phone.js';
import { errors } from '../../../errors.js';
import { instanceOf } from '../../auth.js';
import { errorResponses } from '../../schemas/common.js';
import {
  OrderPaymentUpdate,
  OrderStatusUpdate,
  SendEditEvent,
  SendEvent,
  SendEventResponse,
  SendOrder,
  SendPollVote,
} from '../../schemas/message-events-orders.js';
import { sendResponses } from '../../schemas/messages.js';
import { assertUnique, delayOnly, tags, type App, type SendRoutesOptions } from './send-helpers.js';

const knownResponses = { ...sendResponses, ...errorResponses(422) };
/** Orders: 403 on a personal account, 409 when not connected (whether the account is a business is known only then). */
const orderResponses = { ...sendResponses, ...errorResponses(403) };

export function eventOrderRoutes(app: App, { messages, catalog }: SendRoutesOptions): void {
  app.post('/send-poll-vote', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-poll-vote', ...SendPollVote, response: knownResponses } }, async (request) => {
    const b = request.body;
    const options = b.pollVote.map((o) => o.name);
    assertUnique(options, 'pollVote', 'name');
    const instance = instanceOf(request);
    const phone = await messages.assertKnownMessage(instance, b.pollMessageId, b.phone);
    return messages.send(instance, { ...delayOnly(b, request), phone }, { type: 'poll-vote', pollMessageId: b.pollMessageId, options });
  });

  app.post('/send-event', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-event', ...SendEvent, response: sendResponses } }, async (request) => {
    const b = request.body;
    groupOnly(b.phone);
    return messages.send(instanceOf(request), delayOnly(b, request), { type: 'event', event: eventOf(b.event) });
  });

  app.post('/send-edit-event', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-edit-event', ...SendEditEvent, response: knownResponses } }, async (request) => {
    const b = request.body;
    groupOnly(b.phone);
    const event = eventOf(b.event);
    const instance = instanceOf(request);
    const phone = await messages.assertKnownMessage(instance, b.eventMessageId, b.phone);
    return messages.send(instance, { ...delayOnly(b, request), phone }, { type: 'event-edit', eventMessageId: b.eventMessageId, event });
  });

  app.post('/send-event-response', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-event-response', ...SendEventResponse, response: knownResponses } }, async (request) => {
    const b = request.body;
    groupOnly(b.phone);
    const instance = instanceOf(request);
    const phone = await messages.assertKnownMessage(instance, b.eventMessageId, b.phone);
    return messages.send(instance, { ...delayOnly(b, request), phone }, { type: 'event-response', eventMessageId: b.eventMessageId, response: b.eventResponse });
  });

  app.post('/send-order', { schema: { tags, 'x-zapgate-scope': 'send', operationId: 'messages_send-order', ...SendOrder, response: orderResponses } }, async (request) => {
    const b = request.body;
    const pay = b.paymentSettings;
    return catalog.sendOrder(instanceOf(request), delayOnly(b, request), {
      type: 'order',
      order: orderOf(b.order),
      ...(pay?.pix || pay?.card
        ? { payment: { ...(pay.pix ? { pix: { ...pay.pix, keyType: pay.pix.keyType as 'cpf' } } : {}), ...(pay.card ? { card: pay.card.enabled } : {}) } }
        : {}),
    });
  });

  for (const [path, kind, schema] of [
    ['/order-status-update', 'status', OrderStatusUpdate],
    ['/order-payment-update', 'payment', OrderPaymentUpdate],
  ] as const) {
    app.post(path, { schema: { tags, 'x-zapgate-scope': 'send', operationId: `messages_${path.slice(1)}`, ...schema, response: orderResponses } }, async (request) => {
      const b = request.body;
      return catalog.sendOrder(instanceOf(request), delayOnly(b, request), {
        type: 'order-update',
        kind,
        orderMessageId: b.messageId,
        referenceId: b.referenceId,
        orderRequestId: b.orderRequestId,
        orderStatus: b.orderStatus as 'pending',
        paymentStatus: b.paymentStatus,
        order: orderOf(b.order),
        ...(b.message ? { message: b.message } : {}),
      });
    });
  }
}

/** Z-API sends events to groups only. */
function groupOnly(phone: string): void {
  if (parseTarget(phone).kind !== 'group') throw errors.invalidInput('phone: this message type can only be sent to a group (<digits>-group)');
}

function eventOf(e: Static<typeof SendEvent.body>['event']): EventDetails {
  return {
    name: e.name,
    ...(e.description ? { description: e.description } : {}),
    startTime: eventStartTime(e.dateTime, e.timeZone),
    ...(e.location?.name ? { location: e.location.name } : {}),
    ...(e.callLinkType ? { call: e.callLinkType } : {}),
    canceled: e.canceled ?? false,
  };
}

function orderOf(o: Static<typeof SendOrder.body>['order']): OrderDetails {
  return {
    currency: o.currency,
    items: o.products.map((p) => ({
      name: p.name,
      value: p.value,
      quantity: p.quantity,
      ...(p.productId ? { productId: p.productId } : {}),
      ...(p.isCustomItem !== undefined ? { isCustomItem: p.isCustomItem } : {}),
    })),
    ...(o.discount !== undefined ? { discount: o.discount } : {}),
    ...(o.tax !== undefined ? { tax: o.tax } : {}),
    ...(o.shipping !== undefined ? { shipping: o.shipping } : {}),
  };
}
