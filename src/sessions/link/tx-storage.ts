// One AsyncLocalStorage for the key-store transactions of every Baileys socket, instead of one per
// socket. On Node 20 each AsyncLocalStorage that ever ran stays enabled for the life of the process
// and every new promise copies every enabled storage's slot: with one per socket (Baileys'
// addTransactionCapability makes a new one in each makeWASocket), 100 sockets make each promise
// ~30x slower and ~6 KB heavier, 1,000 run the process out of memory, and each reconnect adds one
// more that never goes away.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createRequire, syncBuiltinESMExports } from 'node:module';

/** One run() of a storage: its value is visible only until the callback has finished. */
interface Scope {
  readonly value: unknown;
  open: boolean;
}

const shared = new AsyncLocalStorage<ReadonlyMap<ScopedStorage<unknown>, Scope>>();

/**
 * What Baileys uses of an AsyncLocalStorage (run, getStore), scoped to one socket: a transaction
 * of one socket is never visible to another's, exactly as with separate storages, while Node
 * propagates a single storage slot.
 *
 * Unlike an AsyncLocalStorage, a run's value ends with its callback. Baileys runs each key-store
 * transaction in run() and commits what the callback buffered once it returns; work the callback
 * started without awaiting it (the privacy-token issuance after each sent message) used to go on
 * seeing the finished transaction and buffer its writes there, where nothing committed them: the
 * token was never stored, so every message to a contact issued a new one (an extra query to the
 * network per message). Ended, such work writes directly, like any code outside a transaction.
 */
export class ScopedStorage<T> {
  getStore(): T | undefined {
    const scope = shared.getStore()?.get(this);
    return scope?.open ? (scope.value as T) : undefined;
  }

  run<R, A extends unknown[]>(store: T, callback: (...args: A) => R, ...args: A): R {
    const scope: Scope = { value: store, open: true };
    const close = (): void => {
      scope.open = false;
    };
    const scopes = new Map(shared.getStore());
    scopes.set(this, scope);
    let result: R;
    try {
      result = shared.run(scopes, callback, ...args);
    } catch (err) {
      close();
      throw err;
    }
    if (result instanceof Promise) result.then(close, close);
    else close();
    return result;
  }
}

// The CommonJS face of node:async_hooks: its exports can be swapped, and syncBuiltinESMExports()
// makes the ESM named import Baileys holds (`import { AsyncLocalStorage } from 'async_hooks'`) see it.
const asyncHooks = createRequire(import.meta.url)('node:async_hooks') as { AsyncLocalStorage: unknown };

/**
 * Runs `create` (synchronous: makeWASocket) with `new AsyncLocalStorage()` answering a
 * ScopedStorage; returns its result and the storages it asked for (1 for Baileys 7 rc14, its
 * key-store transactions; the caller notices if an upgrade changes that).
 */
export function withScopedStorage<R>(create: () => R): { result: R; storages: ScopedStorage<unknown>[] } {
  const storages: ScopedStorage<unknown>[] = [];
  const original = asyncHooks.AsyncLocalStorage;
  // A constructor that returns an object makes `new` return that object.
  asyncHooks.AsyncLocalStorage = function ScopedAsyncLocalStorage() {
    const storage = new ScopedStorage();
    storages.push(storage);
    return storage;
  };
  syncBuiltinESMExports();
  try {
    return { result: create(), storages };
  } finally {
    asyncHooks.AsyncLocalStorage = original;
    syncBuiltinESMExports();
  }
}
