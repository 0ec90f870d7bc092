// Migration 009 on both dialects: the per-instance account settings (auto-read, call rejection)
// default to off for instances created without them, are written by update and read back, and
// the rejection message can be cleared to NULL.
import assert from 'node:assert/strict';
import { accountRow, instanceRow, storeTest } from '../helpers/store-fixtures.js';

storeTest('account settings: an instance created without them has everything off and no message', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  // As InstancesService creates rows: without the 009 columns, so the database defaults apply.
  const { auto_read_message: _m, auto_read_status: _s, call_reject_auto: _c, call_reject_message: _t, ...row } = instanceRow(a.id);
  await store.instances.create(row);
  const stored = await store.instances.findById(row.id);
  assert.ok(stored, 'the instance was stored');
  assert.deepEqual(
    { m: stored.auto_read_message, s: stored.auto_read_status, c: stored.call_reject_auto, t: stored.call_reject_message },
    { m: 0, s: 0, c: 0, t: null },
  );
});

storeTest('account settings: update writes each column and reads it back; the message clears to NULL', async (store) => {
  const a = accountRow();
  await store.accounts.create(a);
  const row = instanceRow(a.id);
  await store.instances.create(row);
  assert.equal(await store.instances.update(row.id, { auto_read_message: 1, auto_read_status: 1 }), true, 'update found the row');
  assert.equal(await store.instances.update(row.id, { call_reject_auto: 1, call_reject_message: 'Não atendemos ligações 📵' }), true);
  let stored = await store.instances.findById(row.id);
  assert.deepEqual(
    { m: stored?.auto_read_message, s: stored?.auto_read_status, c: stored?.call_reject_auto, t: stored?.call_reject_message },
    { m: 1, s: 1, c: 1, t: 'Não atendemos ligações 📵' },
    'unicode message kept byte for byte',
  );
  await store.instances.update(row.id, { call_reject_auto: 0, call_reject_message: null });
  stored = await store.instances.findById(row.id);
  assert.equal(stored?.call_reject_auto, 0, 'off again');
  assert.equal(stored?.call_reject_message, null, 'message cleared');
  assert.equal(stored?.auto_read_message, 1, 'other settings untouched');
});
