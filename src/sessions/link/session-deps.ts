// What a session is given by the manager: its stores, clock, logs, the outbox, network settings
// and shared caches, the reconnect policy, and the hooks it reports to.
import type { Clock } from '../../clock.js';
import type { EventSinkWithCopies } from '../../store/message-copies.js';
import type { Logger } from '../../logger.js';
import type { Metrics } from '../../metrics.js';
import type { Store } from '../../store/index.js';
import type { BackoffPolicy } from './close-policy.js';
import type { InboundMedia } from '../inbound/inbound-media.js';
import type { SessionLabels, SessionReactions } from '../session-hooks.js';
import type { NetworkSettings, SharedCaches } from './socket-config.js';

/** The repositories a session writes to (credentials, the stored copy, status, receipts). */
export type SessionStore = Pick<Store, 'auth' | 'chats' | 'instances' | 'messages' | 'waMessages'>;

export interface SessionDeps {
  instanceId: string;
  store: SessionStore;
  clock: Clock;
  log: Logger;
  /** The root logger (no `component` binding) the engine's own logger is made from. */
  engineLog: Logger;
  metrics: Metrics;
  events: EventSinkWithCopies;
  net: NetworkSettings;
  caches: SharedCaches;
  backoff: BackoffPolicy;
  /** Protocol ms a link must stay open before the backoff counter resets (no storm on flapping). */
  stableMs: number;
  /** Received media: files recorded before their event, downloaded after it. */
  media: Pick<InboundMedia, 'register' | 'prefetch'>;
  /** Ms a delivery receipt may wait for its event's commit before it goes anyway: a guard, never scaled. */
  receiptHoldMs: number;
  onConnection(connected: boolean): void;
  onRestriction(reason: string, fatal: boolean): void;
  /** The session reached a state with no socket and nothing scheduled: the manager forgets it. */
  onEnded(): void;
  /** Per-instance reactions to committed messages and to calls (auto-read, call rejection). */
  reactions?: SessionReactions | undefined;
  /** Retention of the stored copy: history older or beyond the per-chat cap is not imported. */
  chatRetention?: { maxAgeMs: number; maxPerChat: number } | undefined;
  /** Keeps the store's labels from the app-state sync (business accounts; label-sync.ts). */
  labels?: SessionLabels | undefined;
}
