// GET …/status-history: an instance's recorded status changes with their reasons, newest first,
// behind the same checks as every instance route.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway } from '../helpers/gateway.js';

let g: TestGateway;
before(async () => {
  g = await startGateway();
});
after(() => g.close());

test('a new instance has one change, "created", with its time', async () => {
  const inst = await g.createInstance('h');
  const first = await g.request('GET', `${inst.prefix}/status-history`);
  assert.equal(first.status, 200, first.text);
  const list = first.body as { status: string; reason: string | null; at: number }[];
  assert.equal(list.length, 1, first.text);
  assert.equal(list[0]!.status, 'disconnected', first.text);
  assert.equal(list[0]!.reason, 'created', first.text);
  assert.equal(typeof list[0]!.at, 'number', 'at is ms since the epoch');
});

test('limit is 1-100; another account gets 404, a wrong instance token 401', async () => {
  const inst = await g.createInstance('h2');
  expectError(await g.request('GET', `${inst.prefix}/status-history?limit=0`), 400, 'Invalid request');
  expectError(await g.request('GET', `${inst.prefix}/status-history?limit=101`), 400, 'Invalid request');
  assert.equal((await g.request('GET', `${inst.prefix}/status-history?limit=100`)).status, 200, 'limit 100');
  const other = await g.createAccount('other');
  expectError(await g.request('GET', `${inst.prefix}/status-history`, { token: other.clientToken }), 404, 'Instance not found');
  expectError(await g.request('GET', `/instances/${inst.instanceId}/token/wrong/status-history`), 401, 'Unauthorized', 'Invalid instanceToken');
});
