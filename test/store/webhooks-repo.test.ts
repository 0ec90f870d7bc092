// WebhooksRepo on both dialects: set per kind, replace, clear, list, disable.
import assert from 'node:assert/strict';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';
import { WEBHOOK_KINDS } from '../../src/events/types.js';

const URL_A = 'https://hooks.example.com/a';
const URL_B = 'https://hooks.example.com/b';

function byKind(list: { kind: string; url: string; disabledReason: string | null }[]): Record<string, [string, string | null]> {
  return Object.fromEntries(list.map((w) => [w.kind, [w.url, w.disabledReason]]));
}

storeTest('webhooks: set stores one URL per kind and replaces it on the next set', async (store) => {
  const { instanceId } = await seedInstance(store);
  assert.deepEqual(await store.webhooks.list(instanceId), []);
  await store.webhooks.set(instanceId, ['received'], URL_A, 1);
  await store.webhooks.set(instanceId, ['delivery', 'connected'], URL_B, 2);
  assert.deepEqual(byKind(await store.webhooks.list(instanceId)), {
    received: [URL_A, null],
    delivery: [URL_B, null],
    connected: [URL_B, null],
  });
  await store.webhooks.set(instanceId, ['received'], URL_B, 3);
  assert.equal(byKind(await store.webhooks.list(instanceId)).received?.[0], URL_B);
  assert.equal((await store.webhooks.list(instanceId)).length, 3);
});

storeTest('webhooks: an empty URL clears those kinds only', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.webhooks.set(instanceId, WEBHOOK_KINDS, URL_A, 1);
  await store.webhooks.set(instanceId, ['received', 'delivery'], '', 2);
  assert.deepEqual(Object.keys(byKind(await store.webhooks.list(instanceId))).sort(), ['chat_presence', 'connected', 'disconnected', 'message_status']);
  await store.webhooks.set(instanceId, WEBHOOK_KINDS, '', 3);
  assert.deepEqual(await store.webhooks.list(instanceId), []);
});

storeTest('webhooks: per instance', async (store) => {
  const { instanceId: a } = await seedInstance(store);
  const { instanceId: b } = await seedInstance(store);
  await store.webhooks.set(a, ['received'], URL_A, 1);
  assert.deepEqual(await store.webhooks.list(b), []);
  await store.webhooks.set(b, ['received'], '', 1);
  assert.equal((await store.webhooks.list(a)).length, 1);
});

storeTest('webhooks: disable records the reason; setting the URL again re-enables', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.webhooks.set(instanceId, ['received', 'delivery'], URL_A, 1);
  await store.webhooks.disable(instanceId, 'received', 'receiver answered 410 Gone');
  assert.deepEqual(byKind(await store.webhooks.list(instanceId)), {
    received: [URL_A, 'receiver answered 410 Gone'],
    delivery: [URL_A, null],
  });
  await store.webhooks.set(instanceId, ['received'], URL_A, 2);
  assert.equal(byKind(await store.webhooks.list(instanceId)).received?.[1], null);
});

storeTest('webhooks: a set for an unknown instance is refused and stores nothing', async (store) => {
  await assert.rejects(store.webhooks.set('missing', ['received'], URL_A, 1));
  assert.deepEqual(await store.webhooks.list('missing'), []);
});
