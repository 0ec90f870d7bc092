// What an instance does by itself when something arrives, as Z-API's instance settings ask:
// auto-read marks received messages (and, if asked, status posts) read once their events are
// committed; call-reject-auto rejects incoming calls and has the configured message sent to the
// caller. Settings are read from the store once per instance and then kept here, updated by the
// API (applyReactions), so the receiving path pays a map lookup, not a query (bench/inbound).
import { getContentType, type WAMessage, type WAMessageKey } from 'baileys';
import type { Logger } from '../../../logger.js';
import type { Metrics } from '../../../metrics.js';
import type { InstancesRepo } from '../../../store/instances-repo.js';
import type { Instance } from '../../../domain/instance.js';
import type { AccountReactionSettings } from './account-port.js';
import type { CallInfo } from '../../inbound/notifications.js';
import { withTimeout, type CommandLimit } from '../../engine-call.js';
import type { SessionReactions } from '../../session-hooks.js';
import type { LiveSession } from '../../live-session.js';

interface AccountReactionsDeps extends CommandLimit {
  /** The instance's settings, read once per instance (the SQL store implements it). */
  store: { readonly instances: Pick<InstancesRepo, 'find'> };
  log: Logger;
  metrics: Metrics;
}

/** Content that is not a message a person reads (receipts for these mean nothing to the sender). */
const NOT_READABLE = new Set(['protocolMessage', 'reactionMessage', 'pollUpdateMessage']);

export function reactionSettingsOf(instance: Pick<Instance, 'autoReadMessage' | 'autoReadStatus' | 'callRejectAuto' | 'callRejectMessage'>): AccountReactionSettings {
  const { autoReadMessage, autoReadStatus, callRejectAuto, callRejectMessage } = instance;
  return { autoReadMessage, autoReadStatus, callRejectAuto, callRejectMessage };
}

const NONE: AccountReactionSettings = { autoReadMessage: false, autoReadStatus: false, callRejectAuto: false, callRejectMessage: null };

export class AccountReactions implements SessionReactions {
  /** One entry per instance that received something or changed a setting (bounded by the instances). */
  private readonly settings = new Map<string, AccountReactionSettings | Promise<AccountReactionSettings>>();
  private readonly rejectedListeners: ((instanceId: string, phone: string, message: string) => Promise<void>)[] = [];

  constructor(private readonly deps: AccountReactionsDeps) {}

  apply(instanceId: string, settings: AccountReactionSettings): void {
    this.settings.set(instanceId, settings);
  }

  /** Called with the caller's phone when a call was rejected and a message is configured. */
  onCallRejected(listener: (instanceId: string, phone: string, message: string) => Promise<void>): void {
    this.rejectedListeners.push(listener);
  }

  received(session: LiveSession, messages: readonly WAMessage[]): void {
    if (messages.length === 0) return;
    const known = this.settings.get(session.id);
    // The common case (settings known, auto-read off) costs nothing more.
    if (known && !(known instanceof Promise) && !known.autoReadMessage) return;
    void this.markRead(session, messages).catch((err: unknown) => this.failed(err, session.id, 'auto-read received messages'));
  }

  calls(session: LiveSession, calls: readonly CallInfo[]): void {
    const offers = calls.filter((c) => c.status === 'offer');
    if (offers.length === 0) return;
    void this.reject(session, offers).catch((err: unknown) => this.failed(err, session.id, 'reject incoming calls'));
  }

  private async settingsOf(instanceId: string): Promise<AccountReactionSettings> {
    const cached = this.settings.get(instanceId);
    if (cached) return cached;
    const loading = this.deps.store.instances.find(instanceId).then((instance) => (instance ? reactionSettingsOf(instance) : NONE));
    this.settings.set(instanceId, loading);
    try {
      const settings = await loading;
      // An apply() meanwhile wins over what was read before it.
      if (this.settings.get(instanceId) === loading) this.settings.set(instanceId, settings);
      return settings;
    } catch (err) {
      this.settings.delete(instanceId);
      throw err;
    }
  }

  private async markRead(session: LiveSession, messages: readonly WAMessage[]): Promise<void> {
    const settings = await this.settingsOf(session.id);
    if (!settings.autoReadMessage) return;
    const keys: WAMessageKey[] = [];
    for (const m of messages) {
      if (!m.key.id || !m.key.remoteJid || m.messageStubType || !m.message) continue;
      const type = getContentType(m.message);
      if (!type || NOT_READABLE.has(type)) continue;
      // Status posts only with their own setting (Z-API: it needs auto-read messages on too).
      if (m.key.remoteJid === 'status@broadcast' && !settings.autoReadStatus) continue;
      keys.push(m.key);
    }
    const sock = session.sock;
    if (keys.length === 0 || !sock || !session.open) return;
    await withTimeout(this.deps, () => sock.readMessages(keys));
  }

  private async reject(session: LiveSession, offers: readonly CallInfo[]): Promise<void> {
    const settings = await this.settingsOf(session.id);
    if (!settings.callRejectAuto) return;
    for (const call of offers) {
      const sock = session.sock;
      if (!sock || !session.open) return;
      await withTimeout(this.deps, () => sock.rejectCall(call.id, call.from));
      const message = settings.callRejectMessage;
      if (!message || call.isGroup) continue;
      const phone = await session.phoneOf(call.from, call.callerPn ?? null);
      for (const l of this.rejectedListeners) await l(session.id, phone, message);
    }
  }

  private failed(err: unknown, instanceId: string, what: string): void {
    this.deps.metrics.loggedFailures.inc({ component: 'sessions' });
    this.deps.log.warn({ err, instanceId }, `${what} failed`);
  }
}
