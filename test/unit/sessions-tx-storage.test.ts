// The one AsyncLocalStorage shared by every socket's key-store transactions: Baileys still gets a
// storage per socket (its `new AsyncLocalStorage()`), each socket sees only its own transaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { ScopedStorage, withScopedStorage } from '../../src/sessions/link/tx-storage.js';

test('`new AsyncLocalStorage()` answers a scoped storage only while a socket is being made', () => {
  const { result, storages } = withScopedStorage(() => [new AsyncLocalStorage(), new AsyncLocalStorage()]);
  assert.equal(storages.length, 2);
  assert.deepEqual(storages, result, 'the storages handed out are the ones reported');
  assert.ok(result.every((s) => s instanceof ScopedStorage), 'each is a scoped storage');
  assert.notEqual(result[0], result[1]);
  assert.ok(!(new AsyncLocalStorage() instanceof ScopedStorage), 'the real class is back afterwards');
});

test('a failing factory still restores the real AsyncLocalStorage', () => {
  assert.throws(() => withScopedStorage(() => { throw new Error('boom'); }), /boom/);
  assert.ok(!(new AsyncLocalStorage() instanceof ScopedStorage), 'the real class is back after a failure');
});

test("one socket's transaction is invisible to another's, across awaits and nesting", async () => {
  const a = new ScopedStorage<string>();
  const b = new ScopedStorage<string>();
  assert.equal(a.getStore(), undefined);
  await a.run('tx-a', async () => {
    await tick();
    assert.equal(a.getStore(), 'tx-a');
    assert.equal(b.getStore(), undefined, 'b is not in a transaction because a is');
    await b.run('tx-b', async () => {
      await tick();
      assert.equal(b.getStore(), 'tx-b');
      assert.equal(a.getStore(), 'tx-a');
    });
    assert.equal(b.getStore(), undefined);
    assert.equal(a.getStore(), 'tx-a');
  });
  assert.equal(a.getStore(), undefined);
  // Concurrent transactions of two sockets keep their own stores.
  const seen = await Promise.all([
    a.run('a1', async () => { await tick(); return [a.getStore(), b.getStore()]; }),
    b.run('b1', async () => { await tick(); return [a.getStore(), b.getStore()]; }),
  ]);
  assert.deepEqual(seen, [['a1', undefined], [undefined, 'b1']]);
});

test('work a transaction started but did not await sees no transaction once it has ended', async () => {
  // Baileys issues a privacy token after each message without awaiting it, from inside the send's
  // key-store transaction; its writes must not land in that finished transaction's buffer.
  const s = new ScopedStorage<string>();
  let late: Promise<string | undefined> | undefined;
  let inside: string | undefined;
  await s.run('tx', async () => {
    inside = s.getStore();
    late = tick().then(() => tick()).then(() => s.getStore());
  });
  assert.equal(inside, 'tx');
  assert.equal(await late, undefined);
  // A synchronous callback ends with its return, and a throwing one with its throw.
  let afterSync: Promise<string | undefined> | undefined;
  s.run('sync', () => {
    afterSync = tick().then(() => s.getStore());
  });
  assert.equal(await afterSync, undefined);
  assert.throws(() => s.run('boom', () => { throw new Error('boom'); }), /boom/);
  assert.equal(s.getStore(), undefined);
});
