// InstancesRepo on both dialects: creation with its first history entry, lookups, updates,
// status changes recorded with their reason, paired listing, deletion with everything it owns.
import assert from 'node:assert/strict';
import { accountRow, instanceRow, messageRow, seedInstance, storeTest } from '../helpers/store-fixtures.js';

storeTest('instances: create stores the row and records the initial status', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  const row = instanceRow(a.id, { status: 'disconnected', status_reason: 'created', status_since: 42 });
  await store.instances.create(row);
  assert.deepEqual(await store.instances.findById(row.id), row);
  assert.deepEqual(await store.instances.history(row.id), [{ status: 'disconnected', reason: 'created', at: 42 }]);
});

storeTest('instances: create for an unknown account is refused and leaves nothing', async (store) => {
  const row = instanceRow('no-such-account');
  await assert.rejects(store.instances.create(row));
  assert.equal(await store.instances.findById(row.id), undefined);
  assert.deepEqual(await store.instances.history(row.id), []);
});

storeTest('instances: listByAccount returns only that account, oldest first', async (store) => {
  const a = accountRow();
  const b = accountRow();
  await store.accounts.create(a);
  await store.accounts.create(b);
  const second = instanceRow(a.id, { created_at: 2 });
  const first = instanceRow(a.id, { created_at: 1 });
  const other = instanceRow(b.id, { created_at: 0 });
  for (const r of [second, first, other]) await store.instances.create(r);
  assert.deepEqual((await store.instances.listByAccount(a.id)).map((r) => r.id), [first.id, second.id]);
  assert.deepEqual((await store.instances.listByAccount(b.id)).map((r) => r.id), [other.id]);
  assert.deepEqual(await store.instances.listByAccount('nobody'), []);
});

storeTest('instances: update patches only the given columns; unknown id → false', async (store) => {
  const { instanceId } = await seedInstance(store);
  const before = await store.instances.findById(instanceId);
  assert.equal(await store.instances.update(instanceId, { name: 'renamed', antiban: 1, list_mode: 'text' }), true);
  const after = await store.instances.findById(instanceId);
  assert.deepEqual(after, { ...before, name: 'renamed', antiban: 1, list_mode: 'text' });
  assert.equal(await store.instances.update('missing', { name: 'x' }), false);
});

storeTest('instances: setStatus moves the state and appends history, newest first', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.instances.setStatus(instanceId, { status: 'pairing', reason: 'qr requested', at: 100 });
  await store.instances.setStatus(instanceId, { status: 'connected', reason: 'paired', at: 200 }, { phone: '5511999990000', paired_at: 200 });
  const row = await store.instances.findById(instanceId);
  assert.equal(row?.status, 'connected');
  assert.equal(row?.status_reason, 'paired');
  assert.equal(row?.status_since, 200);
  assert.equal(row?.phone, '5511999990000');
  assert.equal(row?.paired_at, 200);
  const history = await store.instances.history(instanceId);
  assert.deepEqual(history.map((h) => h.status), ['connected', 'pairing', 'disconnected']);
  assert.deepEqual(await store.instances.history(instanceId, 1), [{ status: 'connected', reason: 'paired', at: 200 }]);
});

storeTest('instances: status changes of many instances in the same tick all land, in order, as one would expect one by one', async (store) => {
  const seeded = await Promise.all(Array.from({ length: 30 }, () => seedInstance(store)));
  const ids = seeded.map((s) => s.instanceId);
  await Promise.all(
    ids.flatMap((id, i) => [
      store.instances.setStatus(id, { status: 'connecting', reason: 'restoring', at: 10 }, { phone: `55${i}` }),
      store.instances.setStatus(id, { status: 'connected', reason: 'open', at: 20 }, { paired_at: 20 }),
    ]),
  );
  for (const [i, id] of ids.entries()) {
    const row = await store.instances.findById(id);
    assert.deepEqual([row?.status, row?.status_reason, row?.status_since, row?.phone, row?.paired_at], ['connected', 'open', 20, `55${i}`, 20]);
    assert.deepEqual((await store.instances.history(id)).map((h) => h.status), ['connected', 'connecting', 'disconnected']);
  }
});

storeTest('instances: a status change for an instance deleted meanwhile is dropped without failing the others', async (store) => {
  const { instanceId: gone } = await seedInstance(store);
  const { instanceId: kept } = await seedInstance(store);
  assert.equal(await store.instances.delete(gone), true);
  await Promise.all([
    store.instances.setStatus(gone, { status: 'connected', reason: 'late', at: 5 }),
    store.instances.setStatus(kept, { status: 'connected', reason: 'open', at: 5 }),
  ]);
  assert.equal(await store.instances.findById(gone), undefined);
  assert.deepEqual(await store.instances.history(gone), []);
  assert.equal((await store.instances.findById(kept))?.status, 'connected');
});

storeTest('instances: listPaired returns paired instances that may reconnect', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  const never = instanceRow(a.id);
  const paired = instanceRow(a.id, { paired_at: 10, status: 'connected' });
  const connecting = instanceRow(a.id, { paired_at: 10, status: 'connecting' });
  const loggedOut = instanceRow(a.id, { paired_at: 10, status: 'logged_out' });
  const banned = instanceRow(a.id, { paired_at: 10, status: 'banned' });
  const replaced = instanceRow(a.id, { paired_at: 10, status: 'replaced' });
  for (const r of [never, paired, connecting, loggedOut, banned, replaced]) await store.instances.create(r);
  assert.deepEqual((await store.instances.listPaired()).map((r) => r.id).sort(), [paired.id, connecting.id].sort());
});

storeTest('instances: delete removes the instance with its history, webhooks, queue and groups', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { instanceId: keep } = await seedInstance(store);
  await store.webhooks.set(instanceId, ['received'], 'https://hooks.example.com/x', 1);
  const m = messageRow(instanceId);
  assert.equal((await store.messages.enqueue({ row: m, cap: 0 })).ok, true);
  await store.groups.create({ id: 'pending-1', instance_id: instanceId, status: 'pending', group_id: null, invite_link: null, phones_not_added: null, error: null, request: '{}', created_at: 1, updated_at: 1 });
  await store.events.append([{ id: 'ev-1', instanceId, kind: 'x', payload: {}, createdAt: 1 }]);
  await store.instances.setStatus(instanceId, { status: 'pairing', reason: null, at: 2 });

  assert.equal(await store.instances.delete(instanceId), true);
  assert.equal(await store.instances.delete(instanceId), false);
  assert.equal(await store.instances.findById(instanceId), undefined);
  assert.deepEqual(await store.instances.history(instanceId), []);
  assert.deepEqual(await store.webhooks.list(instanceId), []);
  assert.equal(await store.messages.findByZaapId(instanceId, m.zaap_id), undefined);
  assert.equal(await store.groups.find(instanceId, 'pending-1'), undefined);
  assert.deepEqual(await store.events.listForInstance(instanceId), []);
  assert.equal((await store.instances.findById(keep))?.id, keep);
});
