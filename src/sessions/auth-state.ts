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
}

export async function loadAuthState(storage: AuthStorage, instanceId: string, now: () => number): Promise<StoredAuthState> {
  const stored = await storage.readCreds(instanceId);
  const creds: AuthenticationCreds = stored ? deserialize<AuthenticationCreds>(stored) : initAuthCreds();
  const keys: AuthenticationState['keys'] = {
    async get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const found = await storage.readKeys(instanceId, type, ids);
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
      const writes: { type: string; id: string; value: string | null }[] = [];
      for (const [type, byId] of Object.entries(data)) {
        if (!byId) continue;
        for (const [id, value] of Object.entries(byId)) {
          writes.push({ type, id, value: value === null || value === undefined ? null : serialize(value) });
        }
      }
      await storage.writeKeys(instanceId, writes);
    },
  };
  return {
    state: { creds, keys },
    restored: stored !== undefined,
    saveCreds: () => storage.writeCreds(instanceId, serialize(creds), now()),
  };
}
