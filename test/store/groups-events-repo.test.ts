// GroupsRepo (pending group creations) and EventsRepo (the outbox's event log) on both dialects.
import assert from 'node:assert/strict';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';
import type { PendingGroupRow } from '../../src/store/schema.js';

function pending(instanceId: string, id: string, overrides: Partial<PendingGroupRow> = {}): PendingGroupRow {
  return {
    id,
    instance_id: instanceId,
    status: 'pending',
    group_id: null,
    invite_link: null,
    phones_not_added: null,
    error: null,
    request: JSON.stringify({ groupName: 'g', phones: ['5511999990000'], autoInvite: false }),
    created_at: 10,
    updated_at: 10,
    ...overrides,
  };
}

storeTest('groups: create and find are scoped to the instance', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  const row = pending(instanceId, 'pending-a');
  await store.groups.create(row);
  assert.deepEqual(await store.groups.find(instanceId, 'pending-a'), row);
  assert.equal(await store.groups.find(other, 'pending-a'), undefined);
  assert.equal(await store.groups.find(instanceId, 'pending-b'), undefined);
  await assert.rejects(store.groups.create(pending(instanceId, 'pending-a')), 'ids are unique');
});

storeTest('groups: update records the outcome; listByStatus sees it, oldest first', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.groups.create(pending(instanceId, 'pending-2', { created_at: 20 }));
  await store.groups.create(pending(instanceId, 'pending-1', { created_at: 10 }));
  await store.groups.create(pending(instanceId, 'pending-3', { created_at: 30 }));
  assert.deepEqual((await store.groups.listByStatus('pending')).map((r) => r.id), ['pending-1', 'pending-2', 'pending-3']);
  await store.groups.update('pending-2', {
    status: 'created',
    group_id: '120363000000000001-group',
    invite_link: 'https://chat.whatsapp.com/X',
    phones_not_added: '[]',
    updated_at: 40,
  });
  await store.groups.update('pending-3', { status: 'failed', error: 'not allowed', updated_at: 41 });
  assert.deepEqual((await store.groups.listByStatus('pending')).map((r) => r.id), ['pending-1']);
  assert.deepEqual((await store.groups.listByStatus('created')).map((r) => r.id), ['pending-2']);
  const created = await store.groups.find(instanceId, 'pending-2');
  assert.equal(created?.group_id, '120363000000000001-group');
  assert.equal(created?.created_at, 20);
  assert.equal(created?.updated_at, 40);
  assert.equal((await store.groups.find(instanceId, 'pending-3'))?.error, 'not allowed');
});

storeTest('events: append keeps order and payloads; listForInstance pages by seq', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: other } = await seedInstance(store);
  await store.events.append([]);
  await store.events.append([
    { id: 'e1', instanceId, kind: 'ReceivedCallback', payload: { text: { message: 'olá' }, n: 1 }, createdAt: 1 },
    { id: 'e2', instanceId: other, kind: 'ReceivedCallback', payload: { n: 2 }, createdAt: 2 },
    { id: 'e3', instanceId, kind: 'MessageStatusCallback', payload: { ids: ['3EB0'], n: 3 }, createdAt: 3 },
  ]);
  await store.events.append([{ id: 'e4', instanceId, kind: 'DeliveryCallback', payload: null, createdAt: 4 }]);
  const all = await store.events.listForInstance(instanceId);
  assert.deepEqual(all.map((e) => e.id), ['e1', 'e3', 'e4']);
  assert.deepEqual(JSON.parse(all[0]?.payload ?? ''), { text: { message: 'olá' }, n: 1 });
  assert.equal(all[2]?.payload, 'null');
  assert.ok((all[0]?.seq ?? 0) < (all[1]?.seq ?? 0) && (all[1]?.seq ?? 0) < (all[2]?.seq ?? 0));
  assert.equal(typeof all[0]?.seq, 'number');
  const page = await store.events.listForInstance(instanceId, all[0]?.seq ?? 0, 1);
  assert.deepEqual(page.map((e) => e.id), ['e3']);
  assert.deepEqual((await store.events.listForInstance(other)).map((e) => e.id), ['e2']);
});

storeTest('events: a duplicate id rejects the whole append', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.events.append([{ id: 'dup', instanceId, kind: 'k', payload: {}, createdAt: 1 }]);
  await assert.rejects(
    store.events.append([
      { id: 'fresh', instanceId, kind: 'k', payload: {}, createdAt: 2 },
      { id: 'dup', instanceId, kind: 'k', payload: {}, createdAt: 3 },
    ]),
  );
  assert.deepEqual((await store.events.listForInstance(instanceId)).map((e) => e.id), ['dup']);
});
