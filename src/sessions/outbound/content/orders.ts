// Orders (send-order, order-status-update, order-payment-update): WhatsApp Business's order
// messages, interactive messages whose one native-flow button carries the order as JSON. An order
// with its payment request is `review_and_pay` (the same message again carries a payment update);
// a status update is `review_order`. Amounts go as WhatsApp writes them: integers over an offset
// of 100 (docs/contract.md §6).
import type { proto } from 'baileys';
import { orderTotals, type OrderDetails, type OrderPayment } from '../../../domain/events-orders.js';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import type { ContentInput, SendPart } from './parts.js';

type OrderContent = Extract<OutgoingContent, { type: 'order' | 'order-update' }>;

const PIX_KEY_TYPE = { cpf: 'CPF', cnpj: 'CNPJ', phone: 'PHONE', email: 'EMAIL', randomKey: 'EVP' } as const;

const amount = (v: number) => ({ value: Math.round(v * 100), offset: 100 });

export async function orderParts(c: OrderContent, { messageId, derived, tools }: ContentInput): Promise<SendPart[]> {
  if (c.type === 'order') {
    const params = {
      // Derived from the message id: a resend after a crash names the same order.
      reference_id: derived('order-reference').slice(4, 15),
      type: 'physical-goods',
      ...orderFields(c.order, 'pending', derived),
      payment_settings: paymentSettings(c.payment),
      native_payment_methods: [],
      share_payment_status: false,
    };
    return [{ messageId, raw: orderMessage('review_and_pay', params, '') }];
  }
  const base = { reference_id: c.referenceId, order_request_id: c.orderRequestId, ...orderFields(c.order, c.orderStatus, derived), payment_status: c.paymentStatus };
  const known = await tools.known(c.orderMessageId);
  // Shown under the order it updates (the original's key when it is remembered).
  const context: proto.IContextInfo = {
    stanzaId: c.orderMessageId,
    ...(known?.key.fromMe && tools.me ? { participant: tools.me.pn } : known?.key.participant ? { participant: known.key.participant } : {}),
    ...(known?.message ? { quotedMessage: known.message } : {}),
  };
  const name = c.kind === 'status' ? 'review_order' : 'review_and_pay';
  const params = c.kind === 'status' ? base : { ...base, type: 'physical-goods', payment_settings: [], native_payment_methods: [] };
  return [{ messageId, raw: orderMessage(name, params, c.message ?? '', context) }];
}

function orderFields(o: OrderDetails, status: string, derived: (part: string) => string): Record<string, unknown> {
  const { subtotal, total } = orderTotals(o);
  return {
    currency: o.currency,
    total_amount: amount(total),
    order: {
      status,
      order_type: 'ORDER',
      subtotal: amount(subtotal),
      ...(o.tax !== undefined ? { tax: amount(o.tax) } : {}),
      ...(o.shipping !== undefined ? { shipping: amount(o.shipping) } : {}),
      ...(o.discount !== undefined ? { discount: amount(o.discount) } : {}),
      items: o.items.map((i, n) => {
        const custom = i.isCustomItem ?? (!i.productId || i.productId.startsWith('custom-item-'));
        // A custom item gets a stable id of its own, as WhatsApp names them (custom-item-…).
        const id = i.productId ?? `custom-item-${derived(`item-${n}`).slice(4)}`;
        return { retailer_id: id, ...(custom ? {} : { product_id: id }), name: i.name, amount: amount(i.value), quantity: i.quantity, isCustomItem: custom };
      }),
    },
  };
}

function paymentSettings(p: OrderPayment | undefined): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  if (p?.pix) out.push({ type: 'pix_static_code', pix_static_code: { merchant_name: p.pix.name, key: p.pix.key, key_type: PIX_KEY_TYPE[p.pix.keyType] } });
  if (p?.card !== undefined) out.push({ type: 'cards', cards: { enabled: p.card } });
  return out;
}

function orderMessage(button: string, params: Record<string, unknown>, body: string, contextInfo?: proto.IContextInfo): proto.IMessage {
  return {
    interactiveMessage: {
      body: { text: body },
      nativeFlowMessage: { buttons: [{ name: button, buttonParamsJson: JSON.stringify(params) }], messageParamsJson: '', messageVersion: 1 },
      ...(contextInfo ? { contextInfo } : {}),
    },
  };
}
