// Migration 011 on both dialects: an instance created without a proxy has none (NULL, disabled);
// the URL (credentials and all, as the engine needs them) and the switch are written and read back
// independently, the URL clears to NULL, and the row's other settings are untouched.
import assert from 'node:assert/strict';
import { accountRow, instanceRow, storeTest } from '../helpers/store-fixtures.js';

storeTest('instance proxy: none by default; URL and switch written, read back and cleared', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  // As InstancesService creates rows: without the 011 columns, so the database defaults apply.
  const row = instanceRow(a.id, { antiban: 1 });
  await store.instances.create(row);
  let stored = await store.instances.findById(row.id);
  assert.deepEqual({ url: stored?.proxy_url, enabled: stored?.proxy_enabled }, { url: null, enabled: 0 }, 'no proxy by default');

  const url = 'socks5://us%40er:p%C3%A4ss%3A%2F@proxy.example.com:1080';
  assert.equal(await store.instances.update(row.id, { proxy_url: url, proxy_enabled: 1 }), true, 'update found the row');
  stored = await store.instances.findById(row.id);
  assert.deepEqual({ url: stored?.proxy_url, enabled: stored?.proxy_enabled }, { url, enabled: 1 }, 'stored byte for byte');

  await store.instances.update(row.id, { proxy_enabled: 0 });
  stored = await store.instances.findById(row.id);
  assert.deepEqual({ url: stored?.proxy_url, enabled: stored?.proxy_enabled }, { url, enabled: 0 }, 'the switch alone changes');

  await store.instances.update(row.id, { proxy_url: null });
  stored = await store.instances.findById(row.id);
  assert.equal(stored?.proxy_url, null, 'the URL clears to NULL');
  assert.equal(stored?.antiban, 1, 'other settings untouched');
});
