// One AsyncLocalStorage for the key-store transactions of every Baileys socket, instead of one per
// socket. On Node 20 each AsyncLocalStorage that ever ran stays enabled for the life of the process
// and every new promise copies every enabled storage's slot: with one per socket (Baileys'
// addTransactionCapability makes a new one in each makeWASocket), 100 sockets make each promise
// ~30x slower and ~6 KB heavier, 1,000 run the process out of memory, and each reconnect adds one
// more that never goes away.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire, syncBuiltinESMExports } from 'node:module';

const shared = new AsyncLocalStorage<ReadonlyMap<ScopedStorage<unknown>, unknown>>();

/**
 * What Baileys uses of an AsyncLocalStorage (run, getStore), scoped to one socket: a transaction
 * of one socket is never visible to another's, exactly as with separate storages, while Node
 * propagates a single storage slot.
 */
export class ScopedStorage<T> {
  getStore(): T | undefined {
    return shared.getStore()?.get(this) as T | undefined;
  }

  run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R {
    const scopes = new Map(shared.getStore());
    scopes.set(this, store);
    return shared.run(scopes, callback, ...args);
  }
}

// The CommonJS face of node:async_hooks: its exports can be swapped, and syncBuiltinESMExports()
// makes the ESM named import Baileys holds (`import { AsyncLocalStorage } from 'async_hooks'`) see it.
const asyncHooks = createRequire(import.meta.url)('node:async_hooks') as { AsyncLocalStorage: unknown };

/**
 * Runs `create` (synchronous: makeWASocket) with `new AsyncLocalStorage()` answering a
 * ScopedStorage; returns its result and how many storages it asked for (1 for Baileys 7 rc14; the
 * caller notices if an upgrade changes that).
 */
export function withScopedStorage<R>(create: () => R): { result: R; storages: number } {
  let storages = 0;
  const original = asyncHooks.AsyncLocalStorage;
  // A constructor that returns an object makes `new` return that object.
  asyncHooks.AsyncLocalStorage = function ScopedAsyncLocalStorage() {
    storages++;
    return new ScopedStorage();
  };
  syncBuiltinESMExports();
  try {
    return { result: create(), storages };
  } finally {
    asyncHooks.AsyncLocalStorage = original;
    syncBuiltinESMExports();
  }
}
