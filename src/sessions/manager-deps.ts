// What the session manager is given: the stores its sessions and restore use, the clock, logs and
// metrics, the outbox, the network settings, and the hooks and settings its sessions apply.
import type { Agent } from 'node:https';
import type { Clock } from '../clock.js';
import type { MediaLimits } from '../convert/limits.js';
import type { EventSinkWithCopies } from '../store/message-copies.js';
import type { Logger } from '../logger.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import type { MediaStore } from '../media/store.js';
import type { Metrics } from '../metrics.js';
import type { AddressGuard } from '../net/address-guard.js';
import type { Store } from '../store/index.js';
import type { BackoffPolicy } from './link/close-policy.js';
import type { ChatRetentionSettings } from './housekeeping.js';
import type { InboundMediaSettings } from './inbound/inbound-media.js';
import type { StoredMediaReader } from './outbound/media.js';
import type { PhoneCheckOptions } from './families/chats/phone-checks.js';
import type { SessionStore } from './link/session-deps.js';
import type { SessionLabels, SessionReactions } from './session-hooks.js';

interface EngineSettings {
  waUrl?: string | undefined;
  waRootKey?: string | undefined;
  /** `host[:port]` of the network's media host for downloads by path (history sync); WhatsApp's when unset. */
  waMediaHost?: string | undefined;
  /**
   * ZAPGATE_TIME_SCALE. Baileys keeps its own timers on real time; a time-lapse run compresses its
   * keep-alive and QR lifetime by this (socket-config.ts). Everything else runs on the clock.
   */
  timeScale: number;
  /** Ms a command on the link may take: a guard on the network's answer (engine-call.ts). */
  commandTimeoutMs: number;
  /** Limits of outgoing media (ZAPGATE_MEDIA_*); the defaults of src/convert/limits.ts otherwise. */
  media?: MediaLimits | undefined;
}

export interface SessionManagerDeps {
  /** What its sessions need, plus restore (credentials, paired instances), contacts and phone checks. */
  store: SessionStore & Pick<Store, 'antiban' | 'media' | 'phoneChecks'>;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  events: EventSinkWithCopies;
  guard: AddressGuard;
  settings: EngineSettings;
  /** Trusts a test network's media CA for uploads (else NODE_EXTRA_CA_CERTS). */
  mediaAgent?: Agent;
  /** Sessions restored in parallel at start. */
  restoreConcurrency?: number;
  backoff?: BackoffPolicy;
  /** Protocol ms a link must stay up before its backoff counter resets. */
  stableMs?: number;
  /**
   * Baileys' keep-alive interval, real ms (socket-config.ts): a link silent for this plus 5 s is
   * dropped as lost (408). Tests that silence the network shorten it; Baileys' default otherwise.
   */
  keepAliveMs?: number;
  phoneChecks?: Partial<Omit<PhoneCheckOptions, 'commandTimeoutMs'>>;
  /** Where received media goes and how its links are made. */
  media: { store: MediaStore; signer: MediaUrlSigner; settings: InboundMediaSettings };
  /** Ms a delivery receipt may wait for its event's commit (default 10 s): a guard, never scaled. */
  receiptHoldMs?: number;
  /** Files queued messages reference (`zapgate-media:…`), read when they are sent. */
  outgoingMedia?: StoredMediaReader;
  /** Auto-read and call rejection (account-reactions.ts). */
  reactions?: SessionReactions;
  /** How long the stored copy keeps messages, and how many per chat (0 = no limit). */
  chatRetention?: ChatRetentionSettings;
  /** Business accounts' labels, kept from the app-state sync (label-sync.ts). */
  labels?: SessionLabels;
  /**
   * Cluster mode: whether this node runs the instance. Sessions start only for instances it owns;
   * any other answers `no_owner` (503) rather than open a second socket for one device.
   */
  ownership?: { owns(instanceId: string): boolean; readonly retryAfterSeconds: number };
}
