// The engine as the composition root builds it: Baileys' process-wide patches, the session manager
// over the config's settings, and one port per feature family (sessions/engines.ts). Without an
// engine (tests that replace it with a scripted port) only the reactions and the offline ports exist.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { EventSinkWithCopies } from '../store/message-copies.js';
import type { Logger } from '../logger.js';
import type { MediaStore } from '../media/store.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import type { OutgoingMediaStore } from '../media/outgoing-store.js';
import type { Metrics } from '../metrics.js';
import type { AddressGuard } from '../net/address-guard.js';
import type { Store } from '../store/index.js';
import { createEngines, type EngineFamilies } from './engines.js';
import { AccountReactions } from './families/account/account-reactions.js';
import { LabelSync } from './families/business/label-sync.js';
import { SessionManager, type SessionManagerDeps } from './manager.js';
import { installBaileysPatches } from './patches/index.js';

/** What tests and benchmarks may tune in the engine (a test network's media CA, backoff, keep-alive, restore width). */
export type EngineTuning = Partial<Pick<SessionManagerDeps, 'mediaAgent' | 'backoff' | 'stableMs' | 'keepAliveMs' | 'restoreConcurrency' | 'phoneChecks'>>;

export interface EngineWiring {
  config: Config;
  /** False when a test replaced the engine: no manager, no patches, offline ports. */
  withEngine: boolean;
  tuning?: EngineTuning | undefined;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  /** The store for the accounts' settings (reactions, labels). */
  store: Store;
  /** The store the engine writes through (fenced in cluster mode). */
  engineStore: Store;
  ownership?: SessionManagerDeps['ownership'] | undefined;
  /** Where the engine's events go (outbox/pipeline.ts). */
  events: EventSinkWithCopies;
  guard: AddressGuard;
  media: { files: MediaStore; signer: MediaUrlSigner; outgoing: OutgoingMediaStore };
}

export interface BuiltEngine {
  engine: SessionManager | null;
  reactions: AccountReactions;
  ports: EngineFamilies;
}

export function buildEngine(w: EngineWiring): BuiltEngine {
  const { config, clock, log, metrics } = w;
  // Baileys' process-wide patches (network root, native signature checks, key pool, quiet libsignal).
  if (w.withEngine) installBaileysPatches({ waRootKey: config.waRootKey, log: log.child({ component: 'libsignal' }) });
  // Auto-read and call rejection, applied by every session from the instance's settings.
  const reactions = new AccountReactions({ store: w.store, log: log.child({ component: 'sessions' }), metrics, clock, commandTimeoutMs: config.commandTimeoutMs });
  // Business accounts' labels: the store's copy is kept from the app-state sync.
  const labels = new LabelSync({ labels: w.store.labels, now: () => clock.now() });
  const received = config.receivedMedia;
  const engine = w.withEngine
    ? new SessionManager({
        store: w.engineStore,
        clock,
        log,
        metrics,
        events: w.events,
        guard: w.guard,
        settings: { waUrl: config.waUrl, waRootKey: config.waRootKey, waMediaHost: config.waMediaHost, timeScale: config.timeScale, commandTimeoutMs: config.commandTimeoutMs, media: config.media },
        media: {
          store: w.media.files,
          signer: w.media.signer,
          settings: { limits: { maxBytes: received.maxBytes, timeoutMs: received.downloadTimeoutMs }, retentionMs: received.retentionMs, perInstance: received.downloadsPerInstance, total: received.downloads },
        },
        outgoingMedia: w.media.outgoing,
        reactions,
        chatRetention: config.chatRetention,
        labels,
        ...(w.ownership ? { ownership: w.ownership } : {}),
        ...w.tuning,
      })
    : null;
  // One port per feature family, or their offline null objects without an engine.
  const ports = createEngines(engine, {
    clock,
    commandTimeoutMs: config.commandTimeoutMs,
    guard: w.guard,
    media: config.media,
    reactions,
    labels,
    // Product images come from the network's CDN (the test network's media host and CA when set).
    cdn: { mediaHost: config.waMediaHost, ca: w.tuning?.mediaAgent?.options.ca },
    log: log.child({ component: 'business' }),
    metrics,
  });
  return { engine, reactions, ports };
}
