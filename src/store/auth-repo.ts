// Engine credentials and signal keys per instance, as opaque serialised text (the engine owns the
// format). Writes from every instance arriving in the same tick share one transaction: a freshly
// restored fleet updates creds and keys constantly, and each commit costs an fsync.
import type { Kysely, Transaction } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { DB } from './schema.js';
import { WriteBatcher } from './write-batcher.js';

interface AuthKeyWrite {
  type: string;
  id: string;
  /** Serialised value, or null to delete the key. */
  value: string | null;
}

type AuthWrite =
  | { kind: 'creds'; instanceId: string; creds: string; at: number }
  | { kind: 'keys'; instanceId: string; writes: readonly AuthKeyWrite[] }
  | { kind: 'wipe'; instanceId: string };

// 4 bound values per row: far below SQLite's and PostgreSQL's parameter limits.
const ROWS_PER_STATEMENT = 200;
const IDS_PER_QUERY = 500;

/** A key the store does not hold (Baileys asks for missing sessions and tokens all the time); stored values are JSON, never empty. */
const ABSENT = '';
/** Bytes of key text kept in memory for all instances together. */
const KEY_CACHE_BYTES = 32 * 1024 * 1024;

export class AuthRepo {
  private readonly batcher: WriteBatcher<AuthWrite, void>;
  /**
   * What auth_keys holds, as committed: a message sent reads ~6 keys (sessions, identities, LID
   * mappings, device lists, privacy tokens) and each read was a query (bench/e2e-send). Filled by
   * reads, updated only after a write commits, so it never shows what the table does not. Only
   * this process writes an instance's keys (one node owns an instance's socket).
   */
  private readonly keyCache: LRUCache<string, string>;
  /** Bumped by wipe(): the wiped instance's cached keys are never read again (and age out). */
  private readonly generations = new Map<string, number>();

  constructor(
    private readonly db: Kysely<DB>,
    keyCacheBytes = KEY_CACHE_BYTES,
  ) {
    this.batcher = new WriteBatcher((items) => this.flush(items));
    this.keyCache = new LRUCache<string, string>({ maxSize: keyCacheBytes, sizeCalculation: (value, key) => value.length + key.length + 64 });
  }

  /**
   * The cache's names for one instance's keys, fixed when a read or write starts: one that spans a
   * wipe() fills the wiped generation, which nothing reads any more.
   */
  private cacheKeys(instanceId: string): (type: string, id: string) => string {
    const prefix = `${instanceId}\u0000${this.generations.get(instanceId) ?? 0}\u0000`;
    return (type, id) => `${prefix}${type}\u0000${id}`;
  }

  async readCreds(instanceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('auth_creds').select('creds').where('instance_id', '=', instanceId).executeTakeFirst();
    return row?.creds;
  }

  /** Resolves after the commit holding this write. */
  writeCreds(instanceId: string, creds: string, at: number): Promise<void> {
    return this.batcher.submit({ kind: 'creds', instanceId, creds, at });
  }

  /** All of `writes` commit together or not at all; re-applying the same writes is harmless. */
  async writeKeys(instanceId: string, writes: readonly AuthKeyWrite[]): Promise<void> {
    if (writes.length === 0) return;
    const keyOf = this.cacheKeys(instanceId);
    await this.batcher.submit({ kind: 'keys', instanceId, writes });
    for (const w of writes) this.keyCache.set(keyOf(w.type, w.id), w.value ?? ABSENT);
  }

  /** Deletes creds and every key; ordered after any write submitted before it. */
  async wipe(instanceId: string): Promise<void> {
    await this.batcher.submit({ kind: 'wipe', instanceId });
    this.generations.set(instanceId, (this.generations.get(instanceId) ?? 0) + 1);
  }

  async readKeys(instanceId: string, type: string, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const missing: string[] = [];
    const keyOf = this.cacheKeys(instanceId);
    for (const id of ids) {
      const cached = this.keyCache.get(keyOf(type, id));
      if (cached === undefined) missing.push(id);
      else if (cached !== ABSENT) out.set(id, cached);
    }
    for (let i = 0; i < missing.length; i += IDS_PER_QUERY) {
      const chunk = missing.slice(i, i + IDS_PER_QUERY);
      const rows = await this.db
        .selectFrom('auth_keys')
        .select(['key_id', 'value'])
        .where('instance_id', '=', instanceId)
        .where('type', '=', type)
        .where('key_id', 'in', chunk)
        .execute();
      const found = new Map(rows.map((r) => [r.key_id, r.value]));
      for (const id of chunk) {
        const value = found.get(id);
        if (value !== undefined) out.set(id, value);
        // A write that committed while this read ran has already put the newer value here.
        const key = keyOf(type, id);
        if (!this.keyCache.has(key)) this.keyCache.set(key, value ?? ABSENT);
      }
    }
    return out;
  }

  async countKeys(instanceId: string): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('auth_keys')
      .select((eb) => ['type', eb.fn.countAll<number>().as('n')])
      .where('instance_id', '=', instanceId)
      .groupBy('type')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  }

  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private async flush(items: readonly AuthWrite[]): Promise<void[]> {
    await this.db.transaction().execute(async (trx) => {
      // A write racing the deletion of its instance must not fail everyone else's writes
      // (the foreign key would reject the whole batch): writes for vanished instances are dropped.
      const ids = [...new Set(items.map((i) => i.instanceId))];
      const alive = new Set<string>();
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const rows = await trx.selectFrom('instances').select('id').where('id', 'in', ids.slice(i, i + IDS_PER_QUERY)).execute();
        for (const r of rows) alive.add(r.id);
      }
      for (const item of items) {
        if (!alive.has(item.instanceId)) continue;
        await applyWrite(trx, item);
      }
    });
    return items.map(() => undefined);
  }
}

async function applyWrite(trx: Transaction<DB>, item: AuthWrite): Promise<void> {
  switch (item.kind) {
    case 'creds':
      await trx
        .insertInto('auth_creds')
        .values({ instance_id: item.instanceId, creds: item.creds, updated_at: item.at })
        .onConflict((oc) => oc.column('instance_id').doUpdateSet({ creds: item.creds, updated_at: item.at }))
        .execute();
      return;
    case 'wipe':
      await trx.deleteFrom('auth_keys').where('instance_id', '=', item.instanceId).execute();
      await trx.deleteFrom('auth_creds').where('instance_id', '=', item.instanceId).execute();
      return;
    case 'keys': {
      // The last write of a key within one call wins, as Baileys expects.
      const last = new Map<string, AuthKeyWrite>();
      for (const w of item.writes) last.set(`${w.type}\u0000${w.id}`, w);
      const upserts: AuthKeyWrite[] = [];
      const deletes = new Map<string, string[]>();
      for (const w of last.values()) {
        if (w.value === null) deletes.set(w.type, [...(deletes.get(w.type) ?? []), w.id]);
        else upserts.push(w);
      }
      for (let i = 0; i < upserts.length; i += ROWS_PER_STATEMENT) {
        await trx
          .insertInto('auth_keys')
          .values(upserts.slice(i, i + ROWS_PER_STATEMENT).map((w) => ({ instance_id: item.instanceId, type: w.type, key_id: w.id, value: w.value ?? '' })))
          .onConflict((oc) => oc.columns(['instance_id', 'type', 'key_id']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
          .execute();
      }
      for (const [type, keyIds] of deletes) {
        for (let i = 0; i < keyIds.length; i += IDS_PER_QUERY) {
          await trx
            .deleteFrom('auth_keys')
            .where('instance_id', '=', item.instanceId)
            .where('type', '=', type)
            .where('key_id', 'in', keyIds.slice(i, i + IDS_PER_QUERY))
            .execute();
        }
      }
      return;
    }
  }
}
