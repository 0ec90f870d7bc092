// `scheduledAt` on the send operations over real HTTP: accepted at once with the usual answer,
// listed in the queue with its time, cancellable, accepted while disconnected; bad times are 400.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { PHONE } from '../helpers/samples.js';

interface Item {
  zaapId: string;
  messageId: string;
  scheduledAt: number | null;
}

describe('scheduled sends', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('sched');
  });
  after(() => g.close());

  const list = async (): Promise<Item[]> => ((await g.request('GET', `${inst.prefix}/queue`)).body as { messages: Item[] }).messages;

  test('ISO 8601 with an offset and epoch ms are accepted and listed with their time', async () => {
    const at = Date.now() + 3_600_000;
    const iso = new Date(at).toISOString().replace('Z', '+00:00');
    const a = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'iso', scheduledAt: iso } });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.ok(a.json.zaapId && a.json.messageId && a.json.id === a.json.messageId, 'the usual answer');
    const minus3 = new Date(at - 3 * 3_600_000).toISOString().slice(0, 19) + '-03:00';
    const b = await g.request('POST', `${inst.prefix}/send-reaction`, { body: { phone: PHONE, reaction: '👍', messageId: '3EB0AAAA', scheduledAt: minus3 } });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const c = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'ms', scheduledAt: at + 1 } });
    assert.equal(c.status, 200);
    const d = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'now' } });
    const items = await list();
    const byId = new Map(items.map((i) => [i.zaapId, i.scheduledAt]));
    assert.equal(byId.get(String(a.json.zaapId)), at);
    assert.equal(byId.get(String(b.json.zaapId)), Math.floor(at / 1000) * 1000, 'the offset is honoured');
    assert.equal(byId.get(String(c.json.zaapId)), at + 1);
    assert.equal(byId.get(String(d.json.zaapId)), null);
    // Cancelled like any queued message.
    assert.equal((await g.request('DELETE', `${inst.prefix}/queue/${String(c.json.zaapId)}`)).status, 200);
    assert.ok(!(await list()).some((i) => i.zaapId === c.json.zaapId));
  });

  test('a time in the past (beyond 5 s), more than a year ahead, or without an offset is a 400', async () => {
    const now = Date.now();
    for (const scheduledAt of [now - 60_000, new Date(now - 60_000).toISOString(), now + 400 * 86_400_000, '2030-01-01T09:00:00', 'tomorrow', '2030-13-45T09:00:00Z']) {
      const r = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'x', scheduledAt } });
      expectError(r, 400, 'Invalid request', /^scheduledAt: /);
    }
    // Within the skew: accepted (it leaves at once).
    assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'x', scheduledAt: now - 1_000 } })).status, 200);
  });

  test('a scheduled send is accepted while disconnected even with disableEnqueueWhenDisconnected', async () => {
    const strict = await g.createInstance('strict');
    await g.request('PUT', `${strict.prefix}/update-queue-settings`, { body: { disableEnqueueWhenDisconnected: true } });
    expectError(await g.request('POST', `${strict.prefix}/send-text`, { body: { phone: PHONE, message: 'x' } }), 409, 'Instance not connected');
    const r = await g.request('POST', `${strict.prefix}/send-text`, { body: { phone: PHONE, message: 'x', scheduledAt: Date.now() + 60_000 } });
    assert.equal(r.status, 200);
  });
});
