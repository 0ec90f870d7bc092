// Idempotency-Key on the send routes (docs/contract.md): a retry with the same key answers the first
// request's ids and queues nothing; another request under the key is 422 IDEMPOTENCY_KEY_REUSED;
// a malformed key is 400; sends without a key are unaffected. /openapi.json documents the header.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const PHONE = '5511900001234';

describe('Idempotency-Key on sends', () => {
  let g: TestGateway;
  let inst: TestInstance;
  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('keys');
  });
  after(async () => {
    await g?.close();
  });

  const queued = async (): Promise<number> => ((await g.request('GET', `${inst.prefix}/queue?pageSize=100`)).body as { messages: unknown[] }).messages.length;
  const send = (path: string, body: unknown, key?: string) => g.request('POST', `${inst.prefix}${path}`, { body, ...(key ? { headers: { 'idempotency-key': key } } : {}) });

  test('the same key answers the same ids and queues once; another request under it is 422; other routes and instances keep their own', async () => {
    const before = await queued();
    const first = await send('/send-text', { phone: PHONE, message: 'hello' }, 'key-1');
    assert.equal(first.status, 200, first.text);
    const again = await send('/send-text', { phone: PHONE, message: 'hello' }, 'key-1');
    assert.deepEqual(again.json, first.json, 'the same zaapId, messageId and id');
    assert.equal(await queued(), before + 1, 'queued once');

    const reused = await send('/send-text', { phone: PHONE, message: 'hello again' }, 'key-1');
    expectError(reused, 422, 'Unprocessable request', /Idempotency-Key/);
    assert.equal(reused.json.code, 'IDEMPOTENCY_KEY_REUSED');
    expectError(await send('/send-location', { phone: PHONE, latitude: '1', longitude: '2' }, 'key-1'), 422, 'Unprocessable request', /Idempotency-Key/);
    assert.equal(await queued(), before + 1, 'nothing more queued');

    // Another instance has keys of its own.
    const other = await g.createInstance('other');
    const elsewhere = await g.request('POST', `${other.prefix}/send-text`, { body: { phone: PHONE, message: 'hello' }, headers: { 'idempotency-key': 'key-1' } });
    assert.equal(elsewhere.status, 200);
    assert.notEqual(elsewhere.json.messageId, first.json.messageId);

    // Without a key, every request is a new message.
    const a = await send('/send-text', { phone: PHONE, message: 'hello' });
    const b = await send('/send-text', { phone: PHONE, message: 'hello' });
    assert.notEqual(a.json.messageId, b.json.messageId);
    assert.equal(await queued(), before + 3);
  });

  test('a malformed key is refused before anything is queued', async () => {
    const before = await queued();
    expectError(await send('/send-text', { phone: PHONE, message: 'x' }, 'has space'), 400, 'Invalid request', /idempotency-key/i);
    expectError(await send('/send-text', { phone: PHONE, message: 'x' }, 'k'.repeat(256)), 400, 'Invalid request', /idempotency-key/i);
    assert.equal(await queued(), before);
  });

  test('/openapi.json documents the header and its 422 on the send routes', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>> };
    const sendText = Object.entries(doc.paths).find(([p]) => p.endsWith('/send-text'))![1].post!;
    assert.ok(sendText.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key'), JSON.stringify(sendText.parameters));
    assert.ok(sendText.responses['422']);
    const deleteMessage = Object.entries(doc.paths).find(([p]) => p.endsWith('/messages'))![1].delete!;
    assert.ok(!deleteMessage.parameters?.some((p) => p.name === 'idempotency-key'), 'not on routes that queue nothing');
  });
});
