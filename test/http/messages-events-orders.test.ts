// Tag "messages", votes, events and orders over real HTTP (no network): an event is queued with
// its start read in the request's time zone and refused outside groups; a vote, an edit or an
// answer naming a message the instance does not know is 422 and queues nothing; an order needs a
// connected business account (409 offline, before anything is queued).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { GROUP, PHONE } from '../helpers/samples.js';

describe('votes, events and orders routes', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('events');
  });
  after(() => g.close());

  const post = (route: string, body: Record<string, unknown>) => g.request('POST', `${inst.prefix}/${route}`, { body });

  async function queuedCount(): Promise<number> {
    const r = await g.request('GET', `${inst.prefix}/queue/count`);
    return Number(r.json.count);
  }

  async function queuedEvent(zaapId: unknown): Promise<Record<string, unknown>> {
    const r = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    const m = (r.json.messages as { zaapId: string; message: { content: Record<string, unknown> } }[]).find((q) => q.zaapId === zaapId);
    assert.ok(m, 'queued');
    return m.message.content;
  }

  test('send-event: the start is read in timeZone (or the offset given), the whole event queued', async () => {
    const cases: [Record<string, unknown>, number][] = [
      [{ dateTime: '2024-04-29T09:30:53.309Z', timeZone: 'UTC-3' }, Date.UTC(2024, 3, 29, 12, 30, 53) / 1000],
      [{ dateTime: '2024-04-29T09:30:00', timeZone: 'UTC+5:30' }, Date.UTC(2024, 3, 29, 4, 0) / 1000],
      [{ dateTime: '2024-04-29T09:30:00-03:00' }, Date.UTC(2024, 3, 29, 12, 30) / 1000],
      [{ dateTime: '2024-04-29T09:30:00' }, Date.UTC(2024, 3, 29, 9, 30) / 1000],
    ];
    for (const [when, startTime] of cases) {
      const r = await post('send-event', { phone: GROUP, event: { name: 'Dinner', ...when, location: { name: 'Cantina' }, callLinkType: 'voice' } });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(await queuedEvent(r.json.zaapId), { type: 'event', event: { name: 'Dinner', startTime, location: 'Cantina', call: 'voice', canceled: false } }, JSON.stringify(when));
    }
  });

  test('send-event: refused outside groups and with a bad time or zone, nothing queued', async () => {
    const before = await queuedCount();
    expectError(await post('send-event', { phone: PHONE, event: { name: 'x', dateTime: '2024-04-29T09:30:00' } }), 400, 'Invalid request', /only be sent to a group/);
    expectError(await post('send-event', { phone: GROUP, event: { name: 'x', dateTime: 'tomorrow' } }), 400, 'Invalid request', /event\.dateTime/);
    expectError(await post('send-event', { phone: GROUP, event: { name: 'x', dateTime: '2024-04-29T09:30:00', timeZone: 'Brasilia' } }), 400, 'Invalid request', /event\.timeZone/);
    expectError(await post('send-event-response', { phone: PHONE, eventMessageId: '3EB0AA', eventResponse: 'GOING' }), 400, 'Invalid request', /only be sent to a group/);
    assert.equal(await queuedCount(), before);
  });

  test('a vote, an event edit or answer naming an unknown message is 422; repeated options are 400', async () => {
    const before = await queuedCount();
    const unknown = /not known to this instance/;
    expectError(await post('send-poll-vote', { phone: GROUP, pollMessageId: '3EB0C767D26A1D8E7B5E21', pollVote: [{ name: 'Z-API' }] }), 422, 'Unable to process request', unknown);
    expectError(await post('send-edit-event', { phone: GROUP, eventMessageId: '3EB0C767D26A1D8E7B5E21', event: { name: 'x', dateTime: '2024-04-29T09:30:00' } }), 422, 'Unable to process request', unknown);
    expectError(await post('send-event-response', { phone: GROUP, eventMessageId: '3EB0C767D26A1D8E7B5E21', eventResponse: 'GOING' }), 422, 'Unable to process request', unknown);
    expectError(await post('send-poll-vote', { phone: GROUP, pollMessageId: '3EB0C7', pollVote: [{ name: 'a' }, { name: 'a' }] }), 400, 'Invalid request', /pollVote: every name must be unique/);
    assert.equal(await queuedCount(), before);
  });

  test('orders need a connected business account: 409 while not connected, nothing queued', async () => {
    const before = await queuedCount();
    const order = { currency: 'BRL', products: [{ name: 'Coffee', value: 10, quantity: 1, productId: 'custom-item-1' }] };
    expectError(await post('send-order', { phone: PHONE, order }), 409, 'Instance not connected');
    const update = { phone: PHONE, messageId: '3EB0F91BBA791BB0A787FC', referenceId: '4N8FCTW1WM6', orderRequestId: '4N8FCTW22W4', orderStatus: 'shipped', paymentStatus: 'paid', order };
    expectError(await post('order-status-update', update), 409, 'Instance not connected');
    expectError(await post('order-payment-update', update), 409, 'Instance not connected');
    expectError(await post('send-order', { phone: PHONE, order: { ...order, currency: 'real' } }), 400, 'Invalid request');
    assert.equal(await queuedCount(), before);
  });
});
