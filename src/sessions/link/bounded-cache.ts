// One bounded LRU with expiry, shared by every socket of the process, handed to Baileys as its
// per-socket caches through key-prefixed views: memory stays bounded however many instances run.
import type { CacheStore } from 'baileys';

interface Entry {
  value: unknown;
  expires: number;
}

export class BoundedCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    /** The gateway's clock (expiry is on its time). */
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get<T>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.expires <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    // Re-insert: Map iteration order is insertion order, so the first key is the least recent.
    this.entries.delete(key);
    this.entries.set(key, e);
    return e.value as T;
  }

  set(key: string, value: unknown): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  del(key: string): void {
    this.entries.delete(key);
  }

  /** Drops every key starting with `prefix` (one instance's view). */
  deletePrefix(prefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** A Baileys CacheStore over this cache whose keys live under `scope` only. */
  view(scope: string): CacheStore {
    const prefix = `${scope}\u0000`;
    return {
      get: <T>(key: string): T | undefined => this.get<T>(prefix + key),
      set: <T>(key: string, value: T): void => this.set(prefix + key, value),
      del: (key: string): void => this.del(prefix + key),
      flushAll: (): void => this.deletePrefix(prefix),
    };
  }
}
