// What a queued vote, event or order holds (send-poll-vote, send-event, send-edit-event,
// send-event-response, send-order, order-status-update, order-payment-update): the request
// normalised, with amounts kept as the client's numbers (docs/contract.md §6).
import { errors } from '../errors.js';

/** A group event as WhatsApp's event message carries it. */
export interface EventDetails {
  name: string;
  description?: string;
  /** Unix seconds: Z-API's `dateTime` read in its `timeZone`. */
  startTime: number;
  /** The place's name (WhatsApp shows it under the event). */
  location?: string;
  /** A WhatsApp call link made by the network for the event. */
  call?: 'voice' | 'video';
  canceled: boolean;
}

export interface OrderItem {
  name: string;
  /** Price of one, in the currency's units (e.g. 10.5 = R$ 10,50). */
  value: number;
  quantity: number;
  /** A catalog product; absent: a custom item. */
  productId?: string;
  isCustomItem?: boolean;
}

export interface OrderDetails {
  currency: string;
  items: OrderItem[];
  discount?: number;
  tax?: number;
  shipping?: number;
}

export interface OrderPayment {
  pix?: { key: string; keyType: 'cpf' | 'cnpj' | 'phone' | 'email' | 'randomKey'; name: string };
  card?: boolean;
}

export type OrderStatus = 'pending' | 'processing' | 'shipped' | 'completed' | 'canceled';
export type PaymentStatus = 'pending' | 'paid';

export type EventsOrdersContent =
  /** A vote on a poll this instance received or sent: every option now chosen (empty: withdrawn). */
  | { type: 'poll-vote'; pollMessageId: string; options: string[] }
  | { type: 'event'; event: EventDetails }
  /** The whole event again, replacing the one sent as `eventMessageId`. */
  | { type: 'event-edit'; eventMessageId: string; event: EventDetails }
  | { type: 'event-response'; eventMessageId: string; response: 'GOING' | 'NOT_GOING' }
  /** An order with its payment request (WhatsApp's "review and pay"); its reference id is derived from the message id. */
  | { type: 'order'; order: OrderDetails; payment?: OrderPayment }
  /**
   * An update of an order sent before: `status` is WhatsApp's "review order" (order-status-update),
   * `payment` the order's payment request again (order-payment-update).
   */
  | {
      type: 'order-update';
      kind: 'status' | 'payment';
      orderMessageId: string;
      referenceId: string;
      orderRequestId: string;
      orderStatus: OrderStatus;
      paymentStatus: PaymentStatus;
      order: OrderDetails;
      message?: string;
    };

/** Characters a human would type for the content (anti-ban "typing…" time). */
export function eventsOrdersTypedLength(c: EventsOrdersContent): number {
  switch (c.type) {
    case 'event':
    case 'event-edit':
      return c.event.name.length + (c.event.description?.length ?? 0);
    case 'order-update':
      return c.message?.length ?? 0;
    default:
      return 0;
  }
}

/** The order's totals as WhatsApp shows them: the items' sum, then tax and shipping added and the discount taken off. */
export function orderTotals(o: OrderDetails): { subtotal: number; total: number } {
  const subtotal = o.items.reduce((n, i) => n + i.value * i.quantity, 0);
  return { subtotal, total: subtotal + (o.tax ?? 0) + (o.shipping ?? 0) - (o.discount ?? 0) };
}

/**
 * Z-API's event time: `dateTime` is a clock reading; with `timeZone` (`UTC-3`, `UTC+5:30`, `UTC`)
 * it is read in that zone, any `Z` or offset in it ignored; without one, an offset in it counts
 * and none means UTC (docs/contract.md §6). Answers Unix seconds.
 */
export function eventStartTime(dateTime: string, timeZone?: string): number {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})?$/i.exec(dateTime.trim());
  if (!m) throw errors.invalidInput('event.dateTime: must be a date and time like 2024-04-29T09:30:00');
  let offsetMinutes = 0;
  if (timeZone !== undefined) {
    const z = /^(?:UTC|GMT)(?:([+-])(\d{1,2})(?::?(\d{2}))?)?$/i.exec(timeZone.trim());
    if (!z) throw errors.invalidInput('event.timeZone: must be like UTC-3 or UTC+5:30');
    offsetMinutes = z[1] ? (z[1] === '-' ? -1 : 1) * (Number(z[2]) * 60 + Number(z[3] ?? 0)) : 0;
  } else if (m[3] && m[3].toUpperCase() !== 'Z') {
    const sign = m[3].startsWith('-') ? -1 : 1;
    const digits = m[3].slice(1).replace(':', '');
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  }
  const wall = Date.parse(`${m[1]}T${m[2]}Z`);
  if (Number.isNaN(wall)) throw errors.invalidInput('event.dateTime: not a valid date');
  return Math.floor((wall - offsetMinutes * 60_000) / 1000);
}
