// AuthRepo's keys on both dialects, through its in-memory copy of auth_keys: a read answers what
// the table holds as committed, whether the key was read before, written, deleted or wiped.
import assert from 'node:assert/strict';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';

const read = async (store: Parameters<Parameters<typeof storeTest>[1]>[0], instanceId: string, ids: string[]) =>
  Object.fromEntries(await store.auth.readKeys(instanceId, 'session', ids));

storeTest('auth keys: a key read as missing is found once written, and missing again once deleted', async (store) => {
  const { instanceId } = await seedInstance(store);
  assert.deepEqual(await read(store, instanceId, ['a', 'b']), {});
  await store.auth.writeKeys(instanceId, [{ type: 'session', id: 'a', value: '{"v":1}' }]);
  assert.deepEqual(await read(store, instanceId, ['a', 'b']), { a: '{"v":1}' });
  await store.auth.writeKeys(instanceId, [
    { type: 'session', id: 'a', value: '{"v":2}' },
    { type: 'session', id: 'b', value: '{"v":3}' },
  ]);
  assert.deepEqual(await read(store, instanceId, ['a', 'b']), { a: '{"v":2}', b: '{"v":3}' });
  await store.auth.writeKeys(instanceId, [{ type: 'session', id: 'a', value: null }]);
  assert.deepEqual(await read(store, instanceId, ['a', 'b']), { b: '{"v":3}' });
  // Another key type with the same id is another key.
  assert.deepEqual(Object.fromEntries(await store.auth.readKeys(instanceId, 'pre-key', ['b'])), {});
});

storeTest('auth keys: after a wipe nothing read before is answered, and new writes are', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.auth.writeKeys(instanceId, [{ type: 'session', id: 'a', value: '{"v":1}' }]);
  assert.deepEqual(await read(store, instanceId, ['a']), { a: '{"v":1}' });
  await store.auth.wipe(instanceId);
  assert.deepEqual(await read(store, instanceId, ['a']), {});
  assert.deepEqual(await store.auth.countKeys(instanceId), {});
  await store.auth.writeKeys(instanceId, [{ type: 'session', id: 'a', value: '{"v":2}' }]);
  assert.deepEqual(await read(store, instanceId, ['a']), { a: '{"v":2}' });
});

storeTest("auth keys: one instance never reads another's", async (store) => {
  const one = await seedInstance(store);
  const two = await seedInstance(store);
  await store.auth.writeKeys(one.instanceId, [{ type: 'session', id: 'x', value: '{"of":1}' }]);
  assert.deepEqual(await read(store, two.instanceId, ['x']), {});
  await store.auth.writeKeys(two.instanceId, [{ type: 'session', id: 'x', value: '{"of":2}' }]);
  assert.deepEqual(await read(store, one.instanceId, ['x']), { x: '{"of":1}' });
  assert.deepEqual(await read(store, two.instanceId, ['x']), { x: '{"of":2}' });
});
