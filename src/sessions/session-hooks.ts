// The hooks a session calls when something arrives, implemented outside it: per-instance reactions
// (auto-read, call rejection: account-reactions.ts) and the labels' app-state sync (label-sync.ts).
import type { BaileysEventMap, WAMessage } from 'baileys';
import type { LiveSession } from './live-session.js';
import type { CallInfo } from './inbound/notifications.js';

/** Per-instance reactions to committed messages and to calls; implemented by AccountReactions. */
export interface SessionReactions {
  /** Messages received from the network whose events are committed. */
  received(session: LiveSession, messages: readonly WAMessage[]): void;
  calls(session: LiveSession, calls: readonly CallInfo[]): void;
}

/** What a session hands over: the label events of one engine batch. */
export interface LabelEvents {
  edit?: BaileysEventMap['labels.edit'] | undefined;
  association?: BaileysEventMap['labels.association'] | undefined;
}

/** Keeps the store's labels; called synchronously from the engine's event handler. */
export interface SessionLabels {
  engineEvents(session: LiveSession, events: LabelEvents): Promise<void>;
}
