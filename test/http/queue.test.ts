// Tag "message queue" over real HTTP: listing and paging (GET and POST), count, removal of one or
// all, the disconnected-queue cap (429) and disableEnqueueWhenDisconnected (409).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { PHONE } from '../helpers/samples.js';

interface Page {
  messages: { zaapId: string; messageId: string }[];
  pagingState: string | null;
}

describe('queue listing and removal', () => {
  let g: TestGateway;
  let inst: TestInstance;
  const sent: { zaapId: string; messageId: string }[] = [];

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('q');
    for (let i = 0; i < 7; i++) {
      const r = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: `m${i}` } });
      assert.equal(r.status, 200);
      sent.push({ zaapId: String(r.json.zaapId), messageId: String(r.json.messageId) });
    }
  });
  after(() => g.close());

  test('GET /queue pages oldest first with an opaque pagingState', async () => {
    const seen: Page['messages'] = [];
    let state: string | null = null;
    let pages = 0;
    do {
      const qs: string = `?pageSize=3${state ? `&pagingState=${encodeURIComponent(state)}` : ''}`;
      const r = await g.request('GET', `${inst.prefix}/queue${qs}`);
      assert.equal(r.status, 200);
      const page = r.body as Page;
      assert.ok(page.messages.length <= 3);
      seen.push(...page.messages);
      state = page.pagingState;
      pages++;
    } while (state !== null && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual(seen.map((m) => [m.zaapId, m.messageId]), sent.map((m) => [m.zaapId, m.messageId]));
  });

  test("each item carries Z-API's field names beside zapgate's", async () => {
    const r = await g.request('GET', `${inst.prefix}/queue?pageSize=1`);
    const [item] = (r.body as { messages: Record<string, unknown>[] }).messages;
    assert.ok(item, 'one item');
    assert.equal(item._id, sent[0]!.zaapId);
    assert.equal(item.ZaapId, sent[0]!.zaapId);
    assert.equal(item.MessageId, sent[0]!.messageId);
    assert.equal(item.InstanceId, inst.instanceId);
    assert.equal(item.Phone, PHONE);
    assert.equal(item.Message, 'm0', 'the text');
    assert.equal(item.DelayMessage, -1, 'no delay asked: -1 as Z-API');
    assert.equal(item.DelayTyping, 0);
    assert.equal(item.IsTrial, false);
    assert.equal(typeof item.Created, 'number');
  });

  test('POST /queue pages the same way; body optional', async () => {
    const first = await g.request('POST', `${inst.prefix}/queue`, { body: { pageSize: 5 } });
    assert.equal(first.status, 200);
    const p1 = first.body as Page;
    assert.equal(p1.messages.length, 5);
    assert.ok(p1.pagingState);
    const second = await g.request('POST', `${inst.prefix}/queue`, { body: { pageSize: 5, pagingState: p1.pagingState } });
    const p2 = second.body as Page;
    assert.equal(p2.messages.length, 2);
    assert.equal(p2.pagingState, null);
    assert.equal((p1 as Page & { hasMore: boolean }).hasMore, true, 'hasMore while a page follows');
    assert.equal((p2 as Page & { hasMore: boolean }).hasMore, false, 'and not on the last page');
    assert.deepEqual([...p1.messages, ...p2.messages].map((m) => m.zaapId), sent.map((m) => m.zaapId));
    const noBody = await g.request('POST', `${inst.prefix}/queue`);
    assert.equal(noBody.status, 200, noBody.text);
    assert.equal((noBody.body as Page).messages.length, 7);
  });

  test('paging parameters are validated', async () => {
    for (const pageSize of ['0', '1001', 'abc', '-1']) {
      expectError(await g.request('GET', `${inst.prefix}/queue?pageSize=${pageSize}`), 400, 'Invalid request', /^pageSize: /);
    }
    for (const pageSize of [0, 1001, 'ten', 2.5]) {
      expectError(await g.request('POST', `${inst.prefix}/queue`, { body: { pageSize } }), 400, 'Invalid request', /^pageSize: /);
    }
    expectError(await g.request('POST', `${inst.prefix}/queue`, { body: { pagingState: 12 } }), 400, 'Invalid request', /^pagingState: /);
  });

  test('GET /queue/count', async () => {
    const r = await g.request('GET', `${inst.prefix}/queue/count`);
    assert.deepEqual(r.body, { count: 7 });
  });

  test('DELETE /queue/{zaapId} removes exactly that message; unknown → 404', async () => {
    const victim = sent[3];
    assert.ok(victim);
    const r = await g.request('DELETE', `${inst.prefix}/queue/${victim.zaapId}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { value: true });
    const page = (await g.request('GET', `${inst.prefix}/queue`)).body as Page;
    assert.deepEqual(page.messages.map((m) => m.zaapId), sent.filter((m) => m !== victim).map((m) => m.zaapId));
    expectError(await g.request('DELETE', `${inst.prefix}/queue/${victim.zaapId}`), 404, 'Message not found in queue');
    expectError(await g.request('DELETE', `${inst.prefix}/queue/NOPE`), 404, 'Message not found in queue');
  });

  test("DELETE /queue/{zaapId} cannot remove another instance's message", async () => {
    const other = await g.createInstance('other');
    const victim = sent[0];
    assert.ok(victim);
    expectError(await g.request('DELETE', `${other.prefix}/queue/${victim.zaapId}`), 404, 'Message not found in queue');
    assert.equal((await g.request('GET', `${inst.prefix}/queue/count`)).json.count, 6);
  });

  test('DELETE /queue empties it', async () => {
    const r = await g.request('DELETE', `${inst.prefix}/queue`);
    assert.deepEqual(r.body, { value: true });
    assert.deepEqual((await g.request('GET', `${inst.prefix}/queue/count`)).body, { count: 0 });
    assert.deepEqual((await g.request('GET', `${inst.prefix}/queue`)).body, { messages: [], pagingState: null, hasMore: false });
  });
});

describe('queue settings and cap', () => {
  let g: TestGateway;

  before(async () => {
    g = await startGateway({ env: { ZAPGATE_QUEUE_MAX_DISCONNECTED: '3' } });
  });
  after(() => g.close());

  test('a disconnected instance holds at most ZAPGATE_QUEUE_MAX_DISCONNECTED messages → 429 + Retry-After', async () => {
    const inst = await g.createInstance('capped');
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: `c${i}` } })),
    );
    const ok = results.filter((r) => r.status === 200);
    const full = results.filter((r) => r.status === 429);
    assert.equal(ok.length, 3, results.map((r) => r.status).join(','));
    assert.equal(full.length, 3);
    for (const r of full) {
      expectError(r, 429, 'Too many requests');
      assert.match(String(r.headers['retry-after']), /^[1-9][0-9]*$/);
    }
    assert.deepEqual((await g.request('GET', `${inst.prefix}/queue/count`)).body, { count: 3 });
    // Freeing one slot lets exactly one more in.
    await g.request('DELETE', `${inst.prefix}/queue/${String(ok[0]?.json.zaapId)}`);
    assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'again' } })).status, 200);
    assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'over' } })).status, 429);
    // The cap is per instance.
    const other = await g.createInstance('other');
    assert.equal((await g.request('POST', `${other.prefix}/send-text`, { body: { phone: PHONE, message: 'x' } })).status, 200);
  });

  test('disableEnqueueWhenDisconnected:true → sends answer 409 and nothing is queued; false restores', async () => {
    const inst = await g.createInstance('strict');
    const on = await g.request('PUT', `${inst.prefix}/update-queue-settings`, { body: { disableEnqueueWhenDisconnected: true } });
    assert.deepEqual(on.body, { value: true });
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'x' } }), 409, 'Instance not connected');
    expectError(
      await g.request('POST', `${inst.prefix}/send-image`, { body: { phone: PHONE, image: 'https://hooks.example.com/a.png' } }),
      409,
      'Instance not connected',
    );
    assert.deepEqual((await g.request('GET', `${inst.prefix}/queue/count`)).body, { count: 0 });
    await g.request('PUT', `${inst.prefix}/update-queue-settings`, { body: { disableEnqueueWhenDisconnected: false } });
    assert.equal((await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: PHONE, message: 'x' } })).status, 200);
    expectError(await g.request('PUT', `${inst.prefix}/update-queue-settings`, { body: {} }), 400, 'Invalid request', /^disableEnqueueWhenDisconnected: /);
  });
});
