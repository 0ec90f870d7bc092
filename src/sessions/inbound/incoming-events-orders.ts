// Received events and orders as Z-API's webhooks carry them (`event`, `reviewAndPay`,
// `reviewOrder`): the mapping from WhatsApp's messages, without the message's context. Answers to
// events need the event's secret and so the incoming context; they stay in incoming.ts.
import type { proto } from 'baileys';
import type { ReceivedContent } from '../../events/types.js';

type EventContent = NonNullable<ReceivedContent['event']>;
type OrderContent = NonNullable<ReceivedContent['reviewAndPay']>;

export function eventOf(e: proto.Message.IEventMessage): EventContent {
  const loc = e.location;
  return {
    name: e.name ?? '',
    description: e.description ?? '',
    canceled: !!e.isCanceled,
    joinLink: e.joinLink || null,
    scheduleTime: Number(e.startTime ?? 0),
    ...(e.endTime ? { endTime: Number(e.endTime) } : {}),
    location: loc
      ? {
          ...(loc.name ? { name: loc.name } : {}),
          ...(loc.address ? { address: loc.address } : {}),
          ...(typeof loc.degreesLatitude === 'number' ? { latitude: loc.degreesLatitude } : {}),
          ...(typeof loc.degreesLongitude === 'number' ? { longitude: loc.degreesLongitude } : {}),
        }
      : {},
  };
}

/** WhatsApp's amounts: `{value, offset}` integers (150.00 is 15000 over 100). */
interface Amount {
  value?: number;
  offset?: number;
}

interface OrderParams {
  type?: string;
  currency?: string;
  reference_id?: string;
  order_request_id?: string;
  payment_status?: string;
  total_amount?: Amount;
  order?: {
    status?: string;
    subtotal?: Amount;
    tax?: Amount;
    shipping?: Amount;
    discount?: Amount;
    items?: { retailer_id?: string; product_id?: string; name?: string; amount?: Amount; quantity?: number; isCustomItem?: boolean }[];
  };
}

const ORDER_BUTTONS = { review_and_pay: 'reviewAndPay', review_order: 'reviewOrder' } as const;

/** An order message (an interactive message whose one native-flow button carries the order), or null. */
export function orderOf(m: proto.Message.IInteractiveMessage): Partial<Pick<ReceivedContent, 'reviewAndPay' | 'reviewOrder'>> | null {
  const button = m.nativeFlowMessage?.buttons?.[0];
  const key = button?.name ? ORDER_BUTTONS[button.name as keyof typeof ORDER_BUTTONS] : undefined;
  if (!key || !button?.buttonParamsJson) return null;
  let p: OrderParams;
  try {
    p = JSON.parse(button.buttonParamsJson) as OrderParams;
  } catch {
    return null; // not an order we can read: reported as nothing rather than as garbage
  }
  const money = (a: Amount | undefined): number | undefined => (a && typeof a.value === 'number' ? a.value / (a.offset || 1) : undefined);
  const o = p.order ?? {};
  const order: OrderContent = {
    ...(p.type ? { type: p.type } : {}),
    currency: p.currency ?? '',
    referenceId: p.reference_id ?? '',
    orderRequestId: p.order_request_id ?? null,
    orderStatus: o.status ?? 'pending',
    paymentStatus: p.payment_status ?? 'pending',
    total: money(p.total_amount) ?? 0,
    subTotal: money(o.subtotal) ?? 0,
    ...optional('discount', money(o.discount)),
    ...optional('shipping', money(o.shipping)),
    ...optional('tax', money(o.tax)),
    products: (o.items ?? []).map((i) => ({
      name: i.name ?? '',
      quantity: i.quantity ?? 1,
      isCustomItem: i.isCustomItem ?? !i.product_id,
      productId: i.product_id ?? i.retailer_id ?? '',
      value: money(i.amount) ?? 0,
    })),
  };
  return { [key]: order };
}

function optional<K extends string>(k: K, v: number | undefined): { [P in K]?: number } {
  return v === undefined ? {} : ({ [k]: v } as { [P in K]?: number });
}
