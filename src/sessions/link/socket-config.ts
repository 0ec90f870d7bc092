// How every Baileys socket is configured: which network (ZAPGATE_WA_URL / ZAPGATE_WA_ROOT_KEY),
// Baileys' own timers under the time scale, and caches shared by the whole process instead of
// allocated per socket (the memory budget is ~2 MB per connected instance).
import type { Agent as HttpAgent } from 'node:http';
import type { Agent } from 'node:https';
import makeWASocket, { DEFAULT_CONNECTION_CONFIG, proto, type AuthenticationState, type GroupMetadata, type WAMessageKey } from 'baileys';
import type { Dispatcher } from 'undici';
import type { EngineLogger } from './engine-logger.js';
import { BoundedCache } from './bounded-cache.js';
import { withScopedStorage } from './tx-storage.js';
import type { TransactionScope } from './send-write-ahead.js';

export type WASocket = ReturnType<typeof makeWASocket>;

export interface NetworkSettings {
  /** WebSocket URL of the WhatsApp server; WhatsApp's own when unset. */
  waUrl?: string | undefined;
  /** Base64 public key of the certificate root to trust; WhatsApp's own when unset. */
  waRootKey?: string | undefined;
  /** Agent for media uploads (trusting a test network's CA); NODE_EXTRA_CA_CERTS works too. */
  mediaAgent?: Agent | undefined;
  /**
   * The instance's proxy (src/net/proxy.ts), when it has one: the WebSocket and media uploads
   * tunnel through it (it carries mediaAgent's CA for the media host's TLS).
   */
  proxy?: HttpAgent | undefined;
  /**
   * ZAPGATE_TIME_SCALE. Baileys runs its timers on real time, not on the gateway's clock: in a
   * time-lapse run its keep-alive and QR lifetime are compressed by this factor instead.
   */
  timeScale: number;
  /** Baileys' keep-alive interval in real ms, when a test sets one (else its default, under the time scale). */
  keepAliveMs?: number | undefined;
  /** Upper bound of any single network query (config.commandTimeoutMs). */
  queryTimeoutMs: number;
  /** Where Baileys downloads history-sync blobs (history-download.ts); its default fetch when unset. */
  historyDispatcher?: Dispatcher | undefined;
}

/** Caches Baileys would otherwise create per socket, bounded for the whole process. */
export interface SharedCaches {
  /** Retry counters, call offers, placeholder resends, device lists: one LRU, scoped per instance. */
  readonly misc: BoundedCache;
  /** Group metadata for sends into groups, scoped per instance. */
  readonly groups: BoundedCache;
}

export function createSharedCaches(now: () => number): SharedCaches {
  return {
    misc: new BoundedCache(50_000, 60 * 60_000, now),
    groups: new BoundedCache(5_000, 5 * 60_000, now),
  };
}

export interface SocketHooks {
  instanceId: string;
  auth: AuthenticationState;
  logger: EngineLogger;
  getMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>;
  /** The instance opted in to history sync (013-history-sync): accept the phone's RECENT and FULL syncs. */
  syncHistory: boolean;
}

interface CreatedSocket {
  sock: WASocket;
  /** Where the socket's key-store transactions run (see send-write-ahead.ts). */
  keyTransactions: TransactionScope;
}

export function createSocket(net: NetworkSettings, caches: SharedCaches, hooks: SocketHooks): CreatedSocket {
  const config = socketConfig(net, caches, hooks);
  // Made with the process-wide transaction storage: one per socket would pile up for good.
  const { result: sock, storages } = withScopedStorage(() => makeWASocket(config));
  if (storages.length !== 1) {
    warnOnce(hooks.logger, `Baileys asked for ${storages.length} transaction storages per socket (expected 1): check tx-storage.ts against this Baileys version`);
  }
  // With none (a Baileys that changed), nothing is ever seen in a transaction: no write-ahead.
  return { sock, keyTransactions: storages[0] ?? { getStore: () => undefined } };
}

function socketConfig(net: NetworkSettings, caches: SharedCaches, hooks: SocketHooks): Parameters<typeof makeWASocket>[0] {
  const scaled = (ms: number, floor: number): number => Math.max(floor, Math.round(ms * net.timeScale));
  const scope = hooks.instanceId;
  return {
    auth: hooks.auth,
    ...(net.waUrl ? { waWebSocketUrl: net.waUrl } : {}),
    logger: hooks.logger,
    browser: ['Zapgate', 'Chrome', '1.0.0'],
    markOnlineOnConnect: false,
    // The phone decides how far back RECENT reaches (about three months on WhatsApp); a full sync
    // would be years of chats, downloaded only for most of it to fall outside the import window.
    syncFullHistory: false,
    // Without the opt-in, history is not kept: accepting RECENT would only make Baileys wait for it
    // (up to 20 s when the phone is slow to send it) before it goes online. The bootstrap sync runs
    // either way because it carries the initial LID mappings. With it, every sync the phone sends
    // is accepted and imported (history-import.ts).
    shouldSyncHistoryMessage: ({ syncType }) =>
      hooks.syncHistory || (syncType !== proto.HistorySync.HistorySyncType.RECENT && syncType !== proto.HistorySync.HistorySyncType.FULL),
    ...(net.historyDispatcher ? { options: { dispatcher: net.historyDispatcher } as unknown as RequestInit } : {}),
    fireInitQueries: true,
    emitOwnEvents: true,
    // Baileys' retry manager is where it reports each decrypted message before writing its receipt:
    // the receipt gate hooks in there; it keeps our own sends only (a retry can beat the store's copy).
    enableRecentMessageCache: true,
    generateHighQualityLinkPreview: false,
    keepAliveIntervalMs: net.keepAliveMs ?? scaled(DEFAULT_CONNECTION_CONFIG.keepAliveIntervalMs, 250),
    connectTimeoutMs: scaled(DEFAULT_CONNECTION_CONFIG.connectTimeoutMs, 2_000),
    defaultQueryTimeoutMs: net.queryTimeoutMs,
    // Baileys shows the first QR 60 s and later ones 20 s; a time-lapse run shortens both alike.
    ...(net.timeScale === 1 ? {} : { qrTimeout: scaled(20_000, 1_000) }),
    // Baileys types both as https.Agent; ws and https.request take any http.Agent.
    ...(net.proxy ? { agent: net.proxy as Agent, fetchAgent: net.proxy as Agent } : net.mediaAgent ? { fetchAgent: net.mediaAgent } : {}),
    getMessage: hooks.getMessage,
    cachedGroupMetadata: async (jid: string) => caches.groups.get<GroupMetadata>(`${scope}\u0000${jid}`),
    msgRetryCounterCache: caches.misc.view(`${scope}:retry`),
    callOfferCache: caches.misc.view(`${scope}:call`),
    placeholderResendCache: caches.misc.view(`${scope}:placeholder`),
    userDevicesCache: caches.misc.view(`${scope}:devices`),
  };
}

let warned = false;
function warnOnce(logger: EngineLogger, message: string): void {
  if (warned) return;
  warned = true;
  logger.warn(message);
}

export function rememberGroup(caches: SharedCaches, instanceId: string, meta: GroupMetadata): void {
  caches.groups.set(`${instanceId}\u0000${meta.id}`, meta);
}

export function cachedGroup(caches: SharedCaches, instanceId: string, jid: string): GroupMetadata | undefined {
  return caches.groups.get<GroupMetadata>(`${instanceId}\u0000${jid}`);
}

export function forgetGroup(caches: SharedCaches, instanceId: string, jid: string): void {
  caches.groups.del(`${instanceId}\u0000${jid}`);
}
