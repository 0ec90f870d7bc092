// The history-sync settings over real HTTP with a scripted engine: off, 7 days and no webhook by
// default; set before pairing and read back (GET …/history-sync); omitted fields keep their values;
// bad input is a 400 naming the field with nothing changed; documented with a working example.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { scriptedSessions } from '../helpers/scripted-sessions.js';

describe('history-sync settings', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway({ sessions: scriptedSessions() });
    inst = await g.createInstance('history');
  });
  after(async () => {
    await g.close();
  });

  const read = async () => (await g.request('GET', `${inst.prefix}/history-sync`)).json;
  const put = (body: unknown) => g.request('PUT', `${inst.prefix}/update-history-sync`, { body });

  test('off by default, with a 7-day window and no webhook', async () => {
    assert.deepEqual(await read(), { enabled: false, days: 7, webhook: false });
  });

  test('set on a fresh instance, read back; omitted fields keep their values; stored on the instance', async () => {
    const r = await put({ enabled: true, days: 30 });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { value: true, enabled: true, days: 30, webhook: false });
    assert.deepEqual(await read(), { enabled: true, days: 30, webhook: false });
    assert.deepEqual((await put({ enabled: true, webhook: true })).json, { value: true, enabled: true, days: 30, webhook: true }, 'days kept');
    assert.deepEqual((await put({ enabled: false })).json, { value: true, enabled: false, days: 30, webhook: true }, 'days and webhook kept');
    const row = await g.gateway.store.instances.findById(inst.instanceId);
    assert.deepEqual({ i: row?.history_import, d: row?.history_days, w: row?.history_webhook }, { i: 0, d: 30, w: 1 });
  });

  test('bad input: 400 naming the field, nothing changed', async () => {
    const before = await read();
    for (const [body, field] of [
      [{ enabled: true, days: 0 }, /days/],
      [{ enabled: true, days: 366 }, /days/],
      [{ enabled: true, days: 1.5 }, /days/],
      [{ enabled: 'yes' }, /enabled/],
      [{ days: 3 }, /enabled/],
      [{ enabled: true, webhook: 'on' }, /webhook/],
    ] as const) {
      expectError(await put(body), 400, 'Invalid request', field);
    }
    assert.deepEqual(await read(), before, 'unchanged');
  });

  test('documented in /openapi.json with a description and an example that works', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { description?: string; requestBody?: { content: Record<string, { example?: unknown; schema: { examples?: unknown[] } }> } }>>;
    };
    const base = '/instances/{instanceId}/token/{instanceToken}';
    const update = doc.paths[`${base}/update-history-sync`]?.put;
    assert.match(update?.description ?? '', /fromHistory/, 'update: description');
    assert.match(doc.paths[`${base}/history-sync`]?.get?.description ?? '', /pairing/, 'get: description');
    const media = update?.requestBody?.content['application/json'];
    const example = media?.example ?? media?.schema.examples?.[0];
    assert.ok(example, 'a body example');
    const other = await g.createInstance('example');
    const r = await g.request('PUT', `${other.prefix}/update-history-sync`, { body: example });
    assert.equal(r.status, 200, r.text);
  });
});
