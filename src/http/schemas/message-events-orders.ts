// Tag "messages": votes, group events and orders — send-poll-vote, send-event, send-edit-event,
// send-event-response, send-order, order-status-update, order-payment-update: what each
// documents and accepts, with Z-API's own bodies as examples.
import { Type } from '@sinclair/typebox';
import { DelayOnly, MessageRef } from './messages.js';

const GROUP = '120363019502650977-group';
const NOT_KNOWN =
  'The message must be one this instance sent or received in the last 14 days (its secret is kept with it): an unknown id answers 422 with the reason.';

export const SendPollVote = {
  summary: 'Vote on a poll',
  description:
    'Votes on a poll this instance received (or sent), in the chat `phone`: `pollVote` lists every option chosen now, by name (a new vote replaces the previous one; an empty list withdraws it). ' +
    `${NOT_KNOWN} Names that are not options of the poll, or more of them than the poll allows, make the message fail (DeliveryCallback with \`error\`). ` +
    'Z-API documents votes for groups; WhatsApp also takes them in 1:1 chats, and so does the gateway.',
  body: Type.Object(
    {
      ...DelayOnly,
      pollMessageId: MessageRef('The poll voted on.'),
      pollVote: Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }), { maxItems: 12, description: 'The options chosen, by name.' }),
    },
    { examples: [{ phone: GROUP, pollMessageId: '3999984263738042930CD6ECDE9VDWSA', pollVote: [{ name: 'Z-API' }] }] },
  ),
};

const EventBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 256 }),
  dateTime: Type.String({
    minLength: 1,
    maxLength: 40,
    description: 'Start, as a clock reading (e.g. `2024-04-29T09:30:53.309Z`). With `timeZone` it is read in that zone (a `Z` or offset in it is ignored); without, an offset in it counts and none means UTC.',
  }),
  description: Type.Optional(Type.String({ maxLength: 2048 })),
  timeZone: Type.Optional(Type.String({ minLength: 3, maxLength: 10, description: 'The zone `dateTime` is read in: `UTC-3`, `UTC+5:30`, `UTC`.' })),
  location: Type.Optional(Type.Object({ name: Type.Optional(Type.String({ maxLength: 256, description: 'Place name.' })) })),
  callLinkType: Type.Optional(Type.Union([Type.Literal('voice'), Type.Literal('video')], { description: 'Adds a WhatsApp call link (made by the network) to the event.' })),
  canceled: Type.Optional(Type.Boolean({ description: 'The event is canceled (default false).' })),
});

const EVENT_EXAMPLE = {
  name: 'Event name',
  description: 'Event description',
  dateTime: '2024-04-29T09:30:53.309Z',
  timeZone: 'UTC-3',
  location: { name: 'Place name' },
  callLinkType: 'voice',
  canceled: false,
};

export const SendEvent = {
  summary: 'Send an event to a group',
  description:
    'A WhatsApp event (name, start, description, place, call link) that members answer with going / not going; their answers arrive on the received webhook. ' +
    'Groups only (`<digits>-group`), as Z-API; another `phone` answers 400.',
  body: Type.Object({ ...DelayOnly, event: EventBody }, { examples: [{ phone: GROUP, event: EVENT_EXAMPLE }] }),
};

export const SendEditEvent = {
  summary: 'Edit an event this instance sent',
  description:
    'Replaces the event `eventMessageId` with `event`: send every field again, changed or not (what is left out is removed). Only the event\'s creator can edit it; ' +
    `the call link made for the original is kept while \`callLinkType\` is set. ${NOT_KNOWN} Groups only.`,
  body: Type.Object(
    { ...DelayOnly, eventMessageId: MessageRef('The event to edit.'), event: EventBody },
    { examples: [{ phone: GROUP, eventMessageId: '3EB058359730B7C2895C55', event: { ...EVENT_EXAMPLE, name: 'New event name' } }] },
  ),
};

export const SendEventResponse = {
  summary: 'Answer an event (going / not going)',
  description: `Answers the event \`eventMessageId\` received in the group \`phone\`; an event this instance created cannot be answered (the message fails). ${NOT_KNOWN} Groups only.`,
  body: Type.Object(
    { ...DelayOnly, eventMessageId: MessageRef('The event answered.'), eventResponse: Type.Union([Type.Literal('GOING'), Type.Literal('NOT_GOING')]) },
    { examples: [{ phone: GROUP, eventMessageId: 'D2D612289D9E8F62307D72409A8D9DC3', eventResponse: 'GOING' }] },
  ),
};

const Money = (description: string) => Type.Number({ minimum: 0, maximum: 1e9, description });

const OrderProduct = (productIdRequired: boolean) =>
  Type.Object({
    name: Type.String({ minLength: 1, maxLength: 256 }),
    value: Money('Price of one, in the currency\'s units (10.5 = 10,50).'),
    quantity: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    productId: productIdRequired
      ? Type.String({ minLength: 1, maxLength: 128, description: 'A catalog product id, or the `custom-item-…` id of a custom item.' })
      : Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'A catalog product id; absent: a custom item.' })),
    isCustomItem: Type.Optional(Type.Boolean()),
  });

const OrderBody = (productIdRequired: boolean) =>
  Type.Object({
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. BRL.' }),
    products: Type.Array(OrderProduct(productIdRequired), { minItems: 1, maxItems: 100 }),
    discount: Type.Optional(Money('Taken off the total.')),
    tax: Type.Optional(Money('Added to the total.')),
    shipping: Type.Optional(Money('Added to the total.')),
  });

const ORDER_NOTE =
  'Sent as WhatsApp Business\'s order message (an interactive message whose button carries the order; amounts as integers over an offset of 100); ' +
  'the total is the products\' sum plus tax and shipping, minus the discount. WhatsApp Business accounts only: a personal one answers 403 `WhatsApp Business account required`, and whether the account is a business is known only while connected (409 otherwise).';

export const SendOrder = {
  summary: 'Send an order with its payment request',
  description: `${ORDER_NOTE} Products without \`productId\` are custom items. \`paymentSettings\` offers Pix (a static key) and cards.`,
  body: Type.Object(
    {
      ...DelayOnly,
      order: OrderBody(false),
      paymentSettings: Type.Optional(
        Type.Object({
          pix: Type.Optional(
            Type.Object({
              key: Type.String({ minLength: 1, maxLength: 128 }),
              keyType: Type.Union(['cpf', 'cnpj', 'phone', 'email', 'randomKey'].map((k) => Type.Literal(k))),
              name: Type.String({ minLength: 1, maxLength: 128, description: 'Name shown with the key.' }),
            }),
          ),
          card: Type.Optional(Type.Object({ enabled: Type.Boolean() })),
        }),
      ),
    },
    {
      examples: [
        {
          phone: '554499999999',
          order: { currency: 'BRL', discount: 10, tax: 10, shipping: 5, products: [{ productId: '23940797548900636', name: 'Product name', value: 10, quantity: 2 }] },
          paymentSettings: { pix: { key: 'PIX Key', keyType: 'cpf', name: 'Key name' }, card: { enabled: true } },
        },
      ],
    },
  ),
};

const ORDER_STATUS = Type.Union(['pending', 'processing', 'shipped', 'completed', 'canceled'].map((k) => Type.Literal(k)));
const PAYMENT_STATUS = Type.Union([Type.Literal('pending'), Type.Literal('paid')]);

const UpdateBody = Type.Object({
  ...DelayOnly,
  messageId: MessageRef('The order message updated (shown quoted).'),
  message: Type.Optional(Type.String({ maxLength: 4096, description: 'Text shown with the update.' })),
  referenceId: Type.String({ minLength: 1, maxLength: 64, description: 'The order\'s reference id (from the webhook of the order).' }),
  orderRequestId: Type.String({ minLength: 1, maxLength: 64, description: 'The order request\'s id (from the webhook of the order).' }),
  orderStatus: ORDER_STATUS,
  paymentStatus: PAYMENT_STATUS,
  order: OrderBody(true),
});

const UPDATE_EXAMPLE = {
  phone: '554499999999',
  messageId: '3EB0F91BBA791BB0A787FC',
  message: 'Order update text message',
  referenceId: '4N8FCTW1WM6',
  orderRequestId: '4N8FCTW22W4',
  orderStatus: 'processing',
  paymentStatus: 'pending',
  order: {
    currency: 'BRL',
    discount: 10,
    tax: 10,
    shipping: 5,
    products: [
      { value: 150, quantity: 2, name: 'order 1', isCustomItem: true, productId: 'custom-item-4N8FCTW23N7' },
      { productId: '23940797548900636', value: 150, quantity: 2, name: 'order 2', isCustomItem: false },
    ],
  },
};

export const OrderStatusUpdate = {
  summary: 'Update an order\'s status',
  description: `Tells the customer the order \`messageId\` is now \`orderStatus\` (WhatsApp's "review order" message), with the whole order again. ${ORDER_NOTE}`,
  body: Type.Object(UpdateBody.properties, { examples: [UPDATE_EXAMPLE] }),
};

export const OrderPaymentUpdate = {
  summary: 'Update an order\'s payment',
  description: `Sends the order \`messageId\` again with its payment now \`paymentStatus\` (WhatsApp's "review and pay" message), with the whole order again. ${ORDER_NOTE}`,
  body: Type.Object(UpdateBody.properties, { examples: [{ ...UPDATE_EXAMPLE, paymentStatus: 'paid' }] }),
};
