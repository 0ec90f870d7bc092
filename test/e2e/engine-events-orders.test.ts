// Votes, group events and orders end to end, one pairing: HTTP → queue → sender → Baileys →
// simnet, where the contacts' phones decrypt each message and the test checks what they read: a
// vote for the right options (decrypted with the poll's secret), an event with its name, time,
// place and call link, its edit, an answer to a contact's event (decrypted with that event's
// secret), and orders with their items, totals and payment settings; and the other way, what the
// webhooks report: a member's event, a member's answer to ours, our orders (notify-sent-by-me).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedMessage } from '../../simnet/src/index.js';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

interface Amount {
  value: number;
  offset: number;
}

/** The order a `review_and_pay` / `review_order` button carries. */
interface OrderParams {
  currency: string;
  total_amount: Amount;
  reference_id: string;
  order_request_id?: string;
  payment_status?: string;
  payment_settings?: unknown[];
  order: {
    status: string;
    subtotal: Amount;
    tax?: Amount;
    shipping?: Amount;
    discount?: Amount;
    items: { name: string; quantity: number; amount: Amount; isCustomItem: boolean; product_id?: string; retailer_id: string }[];
  };
}

const OWNER = '5511900004001';
const CARLA = '5511900004002';
const DAN = '5511900004003';

describe('engine votes, events and orders (gateway + sender + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let groupJid = '';
  let group = '';

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: DAN, pushName: 'Dan' });
    // Orders are sent by business accounts only.
    await h.admin.createUser({ phone: OWNER, pushName: 'Shop', business: true });
    inst = await h.pairNew(OWNER, 'events');
    const created = await h.admin.createGroup({ creator: CARLA, subject: 'Team', participants: [OWNER, DAN] });
    groupJid = created.jid;
    group = `${created.jid.split('@')[0]}-group`;
  });
  after(async () => {
    await h?.close();
  });

  async function send(path: string, body: Record<string, unknown>): Promise<string> {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    assert.deepEqual(Object.keys(r.json).sort(), ['id', 'messageId', 'zaapId']);
    // The pacing gap before it is protocol time: jumped, not waited out.
    await h.sendQueued(inst);
    return String(r.json.messageId);
  }

  function receivedBy(phone: string, id: string): Promise<ReceivedMessage> {
    return h.admin.waitForReceived(phone, (m) => m.id === id, 20_000);
  }

  /** A contact's message in the group, once the gateway has it: a text sent after it has reached the webhook (the chat keeps its order). */
  async function carlaInGroup(req: Record<string, unknown>): Promise<string> {
    const sent = await h.admin.sendAsContact({ from: CARLA, to: groupJid, ...req } as Parameters<Harness['admin']['sendAsContact']>[0]);
    const marker = await h.admin.sendAsContact({ from: CARLA, to: groupJid, type: 'text', text: `after ${sent.messageId}` });
    await h.webhooks.waitFor((w) => w.body.messageId === marker.messageId, 15_000, 'marker');
    return sent.messageId;
  }

  /** The instance remembers what it receives asynchronously to the webhook: a send naming it may be refused for a moment. */
  async function sendNaming(path: string, body: Record<string, unknown>): Promise<string> {
    const r = await until(`${path} to be accepted`, () => h.call('POST', `${inst.prefix}/${path}`, body), (x) => x.status !== 422);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    await h.sendQueued(inst);
    return String(r.json.messageId);
  }

  test('send-poll-vote: the poll\'s creator reads a vote for exactly the options chosen; an unknown poll is 422', async () => {
    const poll = await carlaInGroup({ type: 'poll', name: 'Lunch?', options: ['pizza', 'sushi', 'salad'] });
    const id = await sendNaming('send-poll-vote', { phone: group, pollMessageId: poll, pollVote: [{ name: 'sushi' }, { name: 'salad' }] });
    const vote = await receivedBy(CARLA, id);
    assert.equal(vote.type, 'pollVote');
    assert.equal(vote.targetId, poll);
    assert.deepEqual(vote.vote, { options: ['sushi', 'salad'] }, 'decrypted with the poll\'s secret');
    // Another member who holds the poll reads the same vote.
    assert.deepEqual((await receivedBy(DAN, id)).vote, { options: ['sushi', 'salad'] });

    const again = await send('send-poll-vote', { phone: group, pollMessageId: poll, pollVote: [{ name: 'pizza' }] });
    assert.deepEqual((await receivedBy(CARLA, again)).vote, { options: ['pizza'] }, 'a new vote replaces the choice');

    const unknown = await h.call('POST', `${inst.prefix}/send-poll-vote`, { phone: group, pollMessageId: '3EB0000000000000000000', pollVote: [{ name: 'pizza' }] });
    assert.equal(unknown.status, 422, unknown.body.toString());
    assert.match(String(unknown.json.message), /not known to this instance/);
  });

  test('send-event: members read the name, start (in the given zone), place and a video call link; the edit replaces it', async () => {
    const id = await send('send-event', {
      phone: group,
      event: {
        name: 'Team dinner',
        description: 'Bring a friend',
        dateTime: '2024-04-29T19:30:00.000Z',
        timeZone: 'UTC-3',
        location: { name: 'Cantina' },
        callLinkType: 'video',
        canceled: false,
      },
    });
    const ev = await receivedBy(CARLA, id);
    assert.equal(ev.type, 'event');
    const { joinLink, ...rest } = ev.event ?? { joinLink: undefined };
    assert.deepEqual(rest, {
      name: 'Team dinner',
      description: 'Bring a friend',
      // 19:30 at UTC-3 is 22:30 UTC.
      startTime: Date.UTC(2024, 3, 29, 22, 30) / 1000,
      location: 'Cantina',
      canceled: false,
    });
    assert.match(joinLink ?? '', /^https:\/\/call\.whatsapp\.com\/video\/\S+$/, 'a call link made by the network');

    const edit = await sendNaming('send-edit-event', {
      phone: group,
      eventMessageId: id,
      event: { name: 'Team dinner (moved)', dateTime: '2024-04-30T20:00:00', timeZone: 'UTC-3', canceled: true },
    });
    const changed = await receivedBy(DAN, edit);
    assert.equal(changed.type, 'eventEdit');
    assert.equal(changed.targetId, id);
    assert.deepEqual(changed.event, { name: 'Team dinner (moved)', startTime: Date.UTC(2024, 3, 30, 23, 0) / 1000, canceled: true }, 'decrypted with the event\'s secret');
  });

  test('send-event-response: the creator reads "going" on its event; events go to groups only', async () => {
    const event = await carlaInGroup({ type: 'event', name: 'Picnic', startTime: 1_900_000_000, location: 'Park' });
    const id = await sendNaming('send-event-response', { phone: group, eventMessageId: event, eventResponse: 'GOING' });
    const answer = await receivedBy(CARLA, id);
    assert.equal(answer.type, 'eventResponse');
    assert.equal(answer.targetId, event);
    assert.equal(answer.eventResponse, 'GOING');
    const no = await send('send-event-response', { phone: group, eventMessageId: event, eventResponse: 'NOT_GOING' });
    assert.equal((await receivedBy(CARLA, no)).eventResponse, 'NOT_GOING');

    const oneToOne = await h.call('POST', `${inst.prefix}/send-event`, { phone: CARLA, event: { name: 'x', dateTime: '2024-04-29T09:30:00' } });
    assert.equal(oneToOne.status, 400);
    assert.match(String(oneToOne.json.message), /only be sent to a group/);
  });

  test('send-order, order-status-update, order-payment-update: the customer reads items, totals, payment and status', async () => {
    const id = await send('send-order', {
      phone: CARLA,
      order: {
        currency: 'BRL',
        discount: 10,
        tax: 10,
        shipping: 5,
        products: [
          { productId: '23940797548900636', name: 'Coffee beans', value: 10.5, quantity: 2 },
          { name: 'Gift wrap', value: 150, quantity: 1 },
        ],
      },
      paymentSettings: { pix: { key: '12345678900', keyType: 'cpf', name: 'Loja' }, card: { enabled: true } },
    });
    const order = await receivedBy(CARLA, id);
    assert.equal(order.type, 'interactive');
    const button = order.interactive?.buttons[0];
    assert.equal(button?.name, 'review_and_pay');
    const p = button?.params as unknown as OrderParams;
    assert.equal(p.currency, 'BRL');
    // (2 × 10.50 + 150) + 10 tax + 5 shipping − 10 discount = 176.00
    assert.deepEqual(p.total_amount, { value: 17600, offset: 100 });
    assert.deepEqual(p.order.subtotal, { value: 17100, offset: 100 });
    assert.deepEqual([p.order.tax, p.order.shipping, p.order.discount].map((a) => a?.value), [1000, 500, 1000]);
    assert.deepEqual(
      p.order.items.map((i) => [i.name, i.quantity, i.amount.value, i.isCustomItem]),
      [
        ['Coffee beans', 2, 1050, false],
        ['Gift wrap', 1, 15000, true],
      ],
    );
    assert.equal(p.order.items[0]?.product_id, '23940797548900636');
    assert.match(p.order.items[1]?.retailer_id ?? '', /^custom-item-/);
    assert.equal(p.order.status, 'pending');
    assert.deepEqual(p.payment_settings, [
      { type: 'pix_static_code', pix_static_code: { merchant_name: 'Loja', key: '12345678900', key_type: 'CPF' } },
      { type: 'cards', cards: { enabled: true } },
    ]);
    assert.match(p.reference_id, /^[0-9A-F]{11}$/);

    const update = {
      phone: CARLA,
      messageId: id,
      message: 'On its way',
      referenceId: p.reference_id,
      orderRequestId: '4N8FCTW22W4',
      orderStatus: 'shipped',
      paymentStatus: 'pending',
      order: { currency: 'BRL', products: [{ productId: '23940797548900636', name: 'Coffee beans', value: 10.5, quantity: 2 }] },
    };
    const status = await receivedBy(CARLA, await send('order-status-update', update));
    assert.equal(status.interactive?.buttons[0]?.name, 'review_order');
    assert.equal(status.text, 'On its way');
    assert.equal(status.quotedId, id, 'shown under the order it updates');
    const sp = status.interactive?.buttons[0]?.params as unknown as OrderParams;
    assert.deepEqual([sp.reference_id, sp.order_request_id, sp.order.status, sp.payment_status], [p.reference_id, '4N8FCTW22W4', 'shipped', 'pending']);
    assert.deepEqual(sp.total_amount, { value: 2100, offset: 100 });

    const paid = await receivedBy(CARLA, await send('order-payment-update', { ...update, message: 'Paid, thanks', paymentStatus: 'paid' }));
    assert.equal(paid.interactive?.buttons[0]?.name, 'review_and_pay');
    const pp = paid.interactive?.buttons[0]?.params as unknown as OrderParams;
    assert.deepEqual([pp.reference_id, pp.payment_status, pp.order.status], [p.reference_id, 'paid', 'shipped']);
  });

  test('received as Z-API reports them: a member\'s event, an answer to ours (decrypted with its secret), our orders with notify-sent-by-me', async () => {
    const picnic = await carlaInGroup({ type: 'event', name: 'Beach day', startTime: 1_900_000_000, description: 'Sun', location: 'Praia' });
    const ev = await h.webhooks.waitFor((w) => w.body.messageId === picnic, 15_000, 'the member\'s event');
    assert.deepEqual(ev.body.event, { name: 'Beach day', description: 'Sun', canceled: false, joinLink: null, scheduleTime: 1_900_000_000, location: { name: 'Praia' } });
    assert.equal(ev.body.participantPhone, CARLA);

    const ours = await send('send-event', { phone: group, event: { name: 'Retro', dateTime: '2024-05-02T10:00:00Z' } });
    await receivedBy(DAN, ours);
    const answer = await h.admin.sendAsContact({ from: DAN, to: groupJid, type: 'eventResponse', eventId: ours, response: 'MAYBE' });
    const hit = await h.webhooks.waitFor((w) => w.body.messageId === answer.messageId, 15_000, 'the answer to our event');
    const r = hit.body.eventResponse as { response: string; responseFrom: string; referencedMessage: { messageId: string; fromMe: boolean; phone: string } };
    assert.equal(r.response, 'MAYBE');
    assert.equal(r.responseFrom, DAN);
    assert.deepEqual([r.referencedMessage.messageId, r.referencedMessage.phone], [ours, group]);
    assert.equal(hit.body.referenceMessageId, ours);

    const on = await h.call('PUT', `${inst.prefix}/update-notify-sent-by-me`, { notifySentByMe: true });
    assert.equal(on.status, 200, on.body.toString());
    const order = await send('send-order', { phone: CARLA, order: { currency: 'BRL', shipping: 5, products: [{ name: 'Mug', value: 20, quantity: 2 }] } });
    const echo = await h.webhooks.waitFor((w) => w.body.messageId === order && w.body.fromMe === true, 15_000, 'our order, as sent by me');
    const pay = echo.body.reviewAndPay as { referenceId: string; currency: string; total: number; subTotal: number; shipping: number; orderStatus: string; products: { name: string; quantity: number; value: number; isCustomItem: boolean; productId: string }[] };
    assert.match(pay.referenceId, /^[0-9A-F]{11}$/, 'the reference an update needs reaches the client');
    assert.deepEqual([pay.currency, pay.total, pay.subTotal, pay.shipping, pay.orderStatus], ['BRL', 45, 40, 5, 'pending']);
    assert.deepEqual(pay.products.map((p) => [p.name, p.quantity, p.value, p.isCustomItem]), [['Mug', 2, 20, true]]);
    assert.match(pay.products[0]!.productId, /^custom-item-/, 'the id an update names the item by');
    const update = await send('order-status-update', { phone: CARLA, messageId: order, message: 'Shipped', referenceId: pay.referenceId, orderRequestId: '4N8FCTW22W5', orderStatus: 'shipped', paymentStatus: 'pending', order: { currency: 'BRL', products: [{ productId: pay.products[0]!.productId, name: 'Mug', value: 20, quantity: 2 }] } });
    const status = await h.webhooks.waitFor((w) => w.body.messageId === update && w.body.fromMe === true, 15_000, 'our status update, as sent by me');
    assert.deepEqual([(status.body.reviewOrder as { referenceId: string }).referenceId, (status.body.reviewOrder as { orderStatus: string }).orderStatus], [pay.referenceId, 'shipped']);
  });
});
