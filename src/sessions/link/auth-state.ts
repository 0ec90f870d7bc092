// Baileys' auth state ({creds, keys}) over the store: creds saved on every update, the ten key
// types read and written through one atomic, idempotent call per Baileys transaction.
import {
  BufferJSON,
  initAuthCreds,
  proto,
  type AuthenticationCreds,
  type AuthenticationState,
  type SignalDataSet,
  type SignalDataTypeMap,
} from 'baileys';

/** What the engine needs of the store (implemented by src/store/auth-repo.ts). */
export interface AuthStorage {
  readCreds(instanceId: string): Promise<string | undefined>;
  writeCreds(instanceId: string, creds: string, at: number): Promise<void>;
  readKeys(instanceId: string, type: string, ids: readonly string[]): Promise<Map<string, string>>;
  writeKeys(instanceId: string, writes: readonly { type: string; id: string; value: string | null }[]): Promise<void>;
  wipe(instanceId: string): Promise<void>;
}

/** Every key type Baileys 7 (rc14) stores; a write of any other type is a bug worth noticing. */
export const KEY_TYPES = [
  'pre-key',
  'session',
  'sender-key',
  'sender-key-memory',
  'app-state-sync-key',
  'app-state-sync-version',
  'lid-mapping',
  'device-list',
  'tctoken',
  'identity-key',
] as const satisfies readonly (keyof SignalDataTypeMap)[];

export function serialize(value: unknown): string {
  return JSON.stringify(value, BufferJSON.replacer);
}

export function deserialize<T>(text: string): T {
  return JSON.parse(text, BufferJSON.reviver) as T;
}

export interface StoredAuthState {
  state: AuthenticationState;
  /** True when the credentials came from the store (the device was registered before). */
  restored: boolean;
  /** Persists the current creds; resolves after the commit. */
  saveCreds(): Promise<void>;
  /** Commits the key writes deferred so far (see KeyWriteDeferral); later ones wait for the next call. */
  flushDeferredKeys(): Promise<void>;
  /**
   * Writes a Baileys transaction's buffered mutations now, before the transaction commits them
   * (see send-write-ahead.ts). When the transaction later commits the same object, entries whose
   * value was already written this way are not written again.
   */
  writeAhead(mutations: SignalDataSet): Promise<void>;
}

/**
 * Tells the key store when writes must wait: while the device holds back its outgoing frames (a
 * received message not yet recorded), Signal state is kept in memory and committed just before the
 * frames go. Then the network never acts on state that is not on disk, and state on disk is never
 * ahead of what was recorded: a crash leaves keys that can decrypt again what the network will
 * deliver again.
 */
export interface KeyWriteDeferral {
  active(): boolean;
}

type KeyWrite = { type: string; id: string; value: string | null };

export async function loadAuthState(storage: AuthStorage, instanceId: string, now: () => number, deferral?: KeyWriteDeferral): Promise<StoredAuthState> {
  const stored = await storage.readCreds(instanceId);
  const creds: AuthenticationCreds = stored ? deserialize<AuthenticationCreds>(stored) : initAuthCreds();
  // Every key write not yet committed, deferred or in flight, by type and id: reads see these before
  // the store. Baileys runs a send and a decryption with the same contact in transactions with
  // different locks, each reading the contact's session record; a read that went to the store
  // while the other's write was still committing got the record from before it, and its own commit
  // then erased the other's ratchet step (test/e2e/two-way-kill9.test.ts: most sends undecryptable
  // by the contact after a few seconds of two-way traffic, without any kill).
  const unsettled = new Map<string, { write: KeyWrite; seq: number }>();
  let seq = 0;
  // Deferred writes (see KeyWriteDeferral) waiting for flushDeferredKeys(), by type and id.
  let deferred = new Map<string, { write: KeyWrite; seq: number }>();
  const slot = (type: string, id: string) => `${type}\u0000${id}`;
  // What writeAhead() wrote of a transaction's mutations, by type and id: its commit skips those.
  const writtenAhead = new WeakMap<SignalDataSet, Map<string, string | null>>();
  const toWrites = (data: SignalDataSet): KeyWrite[] => {
    const writes: KeyWrite[] = [];
    for (const [type, byId] of Object.entries(data)) {
      if (!byId) continue;
      for (const [id, value] of Object.entries(byId)) {
        writes.push({ type, id, value: value === null || value === undefined ? null : serialize(value) });
      }
    }
    return writes;
  };
  /** Forgets the entries the store now holds, unless a later write of the same key replaced them. */
  const settle = (entries: Iterable<{ write: KeyWrite; seq: number }>) => {
    for (const e of entries) {
      const key = slot(e.write.type, e.write.id);
      if (unsettled.get(key)?.seq === e.seq) unsettled.delete(key);
    }
  };
  const write = async (writes: KeyWrite[]): Promise<void> => {
    if (writes.length === 0) return;
    const entries = writes.map((w) => ({ write: w, seq: ++seq }));
    for (const e of entries) unsettled.set(slot(e.write.type, e.write.id), e);
    if (deferral?.active()) {
      for (const e of entries) deferred.set(slot(e.write.type, e.write.id), e);
      return;
    }
    // A failed write stays unsettled: reads keep seeing what Baileys believes, the link is dropped.
    await storage.writeKeys(instanceId, writes);
    settle(entries);
  };
  const keys: AuthenticationState['keys'] = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const stored = unsettled.size === 0 ? ids : ids.filter((id) => !unsettled.has(slot(type, id)));
      const found = stored.length > 0 ? await storage.readKeys(instanceId, type, stored) : new Map<string, string>();
      // After the read: a write that started while it ran is newer than what the store answered.
      if (unsettled.size > 0) {
        for (const id of ids) {
          const e = unsettled.get(slot(type, id));
          if (!e) continue;
          if (e.write.value === null) found.delete(id);
          else found.set(id, e.write.value);
        }
      }
      const out: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const [id, text] of found) {
        let value: unknown = deserialize(text);
        if (type === 'app-state-sync-key' && value) {
          value = proto.Message.AppStateSyncKeyData.fromObject(value as Record<string, unknown>);
        }
        out[id] = value as SignalDataTypeMap[T];
      }
      return out;
    },
    async set(data: SignalDataSet) {
      let writes = toWrites(data);
      const ahead = writtenAhead.get(data);
      if (ahead) writes = writes.filter((w) => ahead.get(`${w.type}\u0000${w.id}`) !== w.value);
      await write(writes);
    },
  };
  return {
    state: { creds, keys },
    restored: stored !== undefined,
    saveCreds: () => storage.writeCreds(instanceId, serialize(creds), now()),
    async writeAhead(mutations: SignalDataSet) {
      const writes = toWrites(mutations);
      const ahead = writtenAhead.get(mutations) ?? new Map<string, string | null>();
      const fresh = writes.filter((w) => ahead.get(`${w.type}\u0000${w.id}`) !== w.value);
      await write(fresh);
      for (const w of fresh) ahead.set(`${w.type}\u0000${w.id}`, w.value);
      writtenAhead.set(mutations, ahead);
    },
    async flushDeferredKeys() {
      if (deferred.size === 0) return;
      const batch = deferred;
      deferred = new Map();
      try {
        await storage.writeKeys(instanceId, [...batch.values()].map((e) => e.write));
      } catch (err) {
        // Not on disk: keep them for the next flush (newer deferred values win); the caller drops the link.
        for (const [key, e] of batch) if (!deferred.has(key)) deferred.set(key, e);
        throw err;
      }
      settle(batch.values());
    },
  };
}
