// The lifecycle of many sessions: one Session per instance with a live or scheduled link,
// lifecycle commands serialised per instance (so two sockets never share credentials), restore of
// every paired instance at start, cluster acquire/release, and pairing, restart, logout, removal.
// Network operations belong to the engines that own them (messaging-engine.ts, the group admin
// engine, phone-checks.ts); the SessionsPort / MessageTransport methods here hand over to them.
import type { Agent as HttpAgent } from 'node:http';
import { isDiskFull, errors } from '../errors.js';
import type { Logger } from '../logger.js';
import { ProxyAgent, proxyInUse } from '../net/proxy.js';
import type { Instance } from '../domain/instance.js';
import { deserialize } from './link/auth-state.js';
import { DEFAULT_BACKOFF } from './link/close-policy.js';
import { mediaPipeline } from './outbound/media.js';
import { DEFAULT_PHONE_CHECKS, PhoneChecks } from './families/chats/phone-checks.js';
import { MessagingEngine } from './outbound/messaging-engine.js';
import { GroupAdminEngine } from './families/group-admin/group-admin-engine.js';
import { groupCreatedEvent } from './families/group-admin/group-info.js';
import { Housekeeping } from './housekeeping.js';
import { Listeners } from './listeners.js';
import { restoreEach } from './restore.js';
import type { CreatedGroup, DeleteMessageRequest, ReadMessageRequest, GroupInfo, GroupSettingsChange, MessageTransport, OutboundMessage, PhoneCheck, RestrictionSignal, SessionsPort } from './port.js';
import { Session } from './link/session.js';
import type { SessionManagerDeps } from './manager-deps.js';
import { InboundMedia } from './inbound/inbound-media.js';
import { mediaNetworkOf } from './inbound/media-network.js';
import { createSharedCaches, type SharedCaches } from './link/socket-config.js';
import { historyDispatcher } from './inbound/history-download.js';
import type { Dispatcher } from 'undici';
import { withTimeout } from './engine-call.js';

export type { SessionManagerDeps } from './manager-deps.js';

/**
 * Contacts a status post is shown to at most: the most recent the instance talked with. Each is
 * one more encryption (and device query) per post; WhatsApp's own clients post to a few hundred.
 */
const STATUS_AUDIENCE_MAX = 1_000;

export class SessionManager implements SessionsPort, MessageTransport {
  private readonly sessions = new Map<string, Session>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly connectionListeners: Listeners<[instanceId: string, connected: boolean]>;
  private readonly restrictionListeners: Listeners<[signal: RestrictionSignal]>;
  private readonly caches: SharedCaches;
  private readonly log: Logger;
  private readonly housekeeping: Housekeeping;
  /** Sends what the sender hands over; presence, read receipts and deletions. */
  private readonly messaging: MessagingEngine;
  /** Group creation, settings and metadata (the group admin engine). */
  private readonly groups: GroupAdminEngine;
  private readonly phoneChecks: PhoneChecks;
  private closed = false;
  private restoring: Promise<void> | null = null;
  /** Received media: registered by sessions, downloaded in the background, served by the API. */
  readonly media: InboundMedia;
  /** History-sync blob downloads (history-download.ts), shared by every socket; none for WhatsApp itself. */
  private readonly historyDownloads: Dispatcher | undefined;

  constructor(private readonly deps: SessionManagerDeps) {
    this.log = deps.log.child({ component: 'sessions' });
    this.caches = createSharedCaches(() => deps.clock.now());
    this.historyDownloads = historyDispatcher({ mediaHost: deps.settings.waMediaHost, ca: deps.mediaAgent?.options.ca });
    const failed = (err: unknown, what: string) => this.failed(err, what);
    this.connectionListeners = new Listeners('connection listener', failed);
    this.restrictionListeners = new Listeners('restriction listener', failed);
    this.housekeeping = new Housekeeping({ store: deps.store, clock: deps.clock, retention: deps.chatRetention, failed });
    const sessionOf = (id: string) => this.sessions.get(id);
    const commandTimeoutMs = deps.settings.commandTimeoutMs;
    const clock = deps.clock;
    const media = mediaPipeline(deps.guard, deps.settings.media, deps.outgoingMedia);
    this.messaging = new MessagingEngine({
      sessionOf,
      media,
      clock,
      commandTimeoutMs,
      listSettings: async (id) => {
        const row = await deps.store.instances.findById(id);
        return { mode: row?.list_mode ?? 'poll', replyHint: row?.list_reply_hint ?? null };
      },
      statusAudience: (id) => deps.store.antiban.contactsOf(id, STATUS_AUDIENCE_MAX),
    });
    this.groups = new GroupAdminEngine({ sessionOf, media, clock, commandTimeoutMs });
    this.phoneChecks = new PhoneChecks({ sessionOf, cache: deps.store.phoneChecks, clock: deps.clock, options: { ...DEFAULT_PHONE_CHECKS, ...deps.phoneChecks, commandTimeoutMs } });
    this.media = new InboundMedia({
      repo: deps.store.media,
      store: deps.media.store,
      signer: deps.media.signer,
      guard: deps.guard,
      agent: deps.mediaAgent,
      clock: deps.clock,
      log: this.deps.log.child({ component: 'media' }),
      metrics: deps.metrics,
      settings: deps.media.settings,
      network: (id) => {
        const session = this.sessions.get(id);
        return session ? mediaNetworkOf(session) : null;
      },
      proxyOf: (id) => this.proxyOf(id),
    });
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Reconnects every paired instance (bounded concurrency, jittered) and starts housekeeping. */
  start(): Promise<void> {
    this.restoring ??= this.restoreAll();
    this.housekeeping.start();
    return this.restoring;
  }

  /** Resolves once the restore started by start() has finished (every instance settled). */
  restored(): Promise<void> {
    return this.restoring ?? Promise.resolve();
  }

  private async restoreAll(): Promise<void> {
    const rows = await this.deps.store.instances.listPaired();
    const settleMs = Math.max(this.deps.settings.commandTimeoutMs, 30_000);
    await restoreEach(rows.map((r) => r.id).filter((id) => this.mine(id)), {
      concurrency: this.deps.restoreConcurrency ?? 32,
      clock: this.deps.clock,
      stopped: () => this.closed,
      restore: async (id) => this.settled(await this.serialise(id, () => this.startSession(id, 'restoring after restart')), settleMs),
      failed: (err, what) => this.failed(err, what),
    });
  }

  /** Waits (at most `ms`, a guard on the network) until a starting session is open or has stopped trying for now. */
  private async settled(session: Session, ms: number): Promise<void> {
    await session.waitUntil(() => session.open || session.state !== 'connecting' || session.attempts > 0 || this.closed, ms);
  }

  /** Applies the retention settings to the stored copy of messages; returns how many went. */
  pruneChatCopy(): Promise<number> {
    return this.housekeeping.pruneChatCopy();
  }

  /** Closes every socket WITHOUT logging out: the devices stay linked for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    await this.housekeeping.stop();
    await Promise.all([...this.sessions.values()].map((s) => s.stop().catch((err: unknown) => this.failed(err, `stop ${s.id}`))));
    this.sessions.clear();
    await this.deps.store.auth.drain();
    await this.deps.store.waMessages.drain();
    await this.deps.store.chats.drain();
    await this.historyDownloads?.close().catch(() => undefined);
  }

  private mine(instanceId: string): boolean {
    return this.deps.ownership?.owns(instanceId) ?? true;
  }

  /** Cluster mode: this node now runs the instance; a paired one reconnects (in the background). */
  async acquire(instanceId: string): Promise<void> {
    if (this.closed || !(await this.isPaired(instanceId))) return;
    const row = await this.deps.store.instances.findById(instanceId);
    if (!row || !(await this.holdsLinkedDevice(instanceId, row.status))) return;
    await this.serialise(instanceId, () => this.startSession(instanceId, 'acquired by this node')).catch((err: unknown) => this.failed(err, `acquire ${instanceId}`));
  }

  /**
   * Cluster mode: the instance goes to another node. Its socket closes WITHOUT logging out, and
   * every write it made is committed before the caller lets the database give it away.
   */
  async release(instanceId: string): Promise<void> {
    await this.serialise(instanceId, async () => {
      const current = this.sessions.get(instanceId);
      if (current) await current.stop();
      this.sessions.delete(instanceId);
    });
    await this.deps.store.auth.drain();
    await this.deps.store.waMessages.drain();
    await this.deps.store.chats.drain();
    await this.deps.store.instances.drain();
  }

  /** Runs lifecycle work for one instance after any already queued for it. */
  private serialise<T>(instanceId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(instanceId) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(fn);
    const tail = next.catch(() => {});
    this.locks.set(instanceId, tail);
    void tail.then(() => {
      if (this.locks.get(instanceId) === tail) this.locks.delete(instanceId);
    });
    return next;
  }

  /** Starts (or returns) the instance's session; `fresh` wipes credentials for a new pairing. */
  private async startSession(instanceId: string, reason: string, fresh = false): Promise<Session> {
    if (this.closed) throw errors.notConnected();
    if (!this.mine(instanceId)) throw errors.noOwner(this.deps.ownership?.retryAfterSeconds ?? 1);
    const existing = this.sessions.get(instanceId);
    if (existing && !fresh) return existing;
    if (existing) {
      await existing.stop();
      this.sessions.delete(instanceId);
    }
    if (fresh) await this.deps.store.auth.wipe(instanceId);
    const proxy = this.proxyAgent(await this.deps.store.instances.find(instanceId));
    const session: Session = new Session({
      instanceId,
      store: this.deps.store,
      clock: this.deps.clock,
      log: this.log,
      engineLog: this.deps.log,
      metrics: this.deps.metrics,
      events: this.deps.events,
      net: {
        waUrl: this.deps.settings.waUrl,
        waRootKey: this.deps.settings.waRootKey,
        mediaAgent: this.deps.mediaAgent,
        proxy,
        timeScale: this.deps.settings.timeScale,
        keepAliveMs: this.deps.keepAliveMs,
        queryTimeoutMs: this.deps.settings.commandTimeoutMs,
        historyDispatcher: this.historyDownloads,
      },
      caches: this.caches,
      backoff: this.deps.backoff ?? DEFAULT_BACKOFF,
      stableMs: this.deps.stableMs ?? 60_000,
      media: this.media,
      receiptHoldMs: this.deps.receiptHoldMs ?? 10_000,
      reactions: this.deps.reactions,
      chatRetention: this.deps.chatRetention,
      labels: this.deps.labels,
      onConnection: (connected) => this.connectionListeners.call(instanceId, connected),
      onRestriction: (reason, fatal) => this.restrictionListeners.call({ instanceId, reason, fatal }),
      onEnded: () => {
        if (this.sessions.get(instanceId) === session) this.sessions.delete(instanceId);
      },
    });
    this.sessions.set(instanceId, session);
    await session.start(reason);
    return session;
  }

  /**
   * Credentials of a completed pairing that no session uses (a restore that has not reached the
   * instance yet, or a crash during the pairing's own restart): the network lists that device on
   * the phone. Wiping them for a new QR would leave it there, linked and unused; the session logs
   * in with them instead. Not for a device another client took over or a banned account: asking
   * for a QR then means a new device, on purpose.
   */
  private async holdsLinkedDevice(instanceId: string, status: string): Promise<boolean> {
    return status !== 'replaced' && status !== 'banned' && (await this.isPaired(instanceId));
  }

  /** The instance's proxy: its live session's, else one made from its setting. */
  private async proxyOf(instanceId: string): Promise<HttpAgent | undefined> {
    const live = this.sessions.get(instanceId);
    if (live) return live.proxy;
    return this.proxyAgent(await this.deps.store.instances.find(instanceId));
  }

  private proxyAgent(instance: Instance | undefined): ProxyAgent | undefined {
    const url = instance ? proxyInUse(instance.proxyUrl, instance.proxyEnabled) : null;
    // The far end's TLS trusts what the media agent trusts (a test network's CA).
    const ca = this.deps.mediaAgent?.options.ca;
    return url ? new ProxyAgent(url, { guard: this.deps.guard, tls: ca === undefined ? undefined : { ca }, timeoutMs: this.deps.settings.commandTimeoutMs }) : undefined;
  }

  private async isPaired(instanceId: string): Promise<boolean> {
    const text = await this.deps.store.auth.readCreds(instanceId);
    return !!text && !!deserialize<{ account?: unknown }>(text).account;
  }

  /** The instance's session, live or not (account-engine.ts runs the account operations on it). */
  sessionOf(instanceId: string): Session | undefined {
    return this.sessions.get(instanceId);
  }

  isConnected(instanceId: string): boolean {
    return this.sessions.get(instanceId)?.open === true;
  }

  /** Test and benchmark hook: sockets created for an instance since its session started. */
  socketsOpened(instanceId: string): number {
    return this.sessions.get(instanceId)?.socketsOpened ?? 0;
  }

  async qr(instanceId: string, waitMs: number): Promise<string | null> {
    const current = this.sessions.get(instanceId);
    if (current?.open) return null;
    if (current?.qr) return current.qr;
    if (current?.isRegistered) return null;
    const row = await this.deps.store.instances.findById(instanceId);
    if (!row) throw errors.instanceNotFound();
    const session = await this.serialise(instanceId, async () => {
      const s = this.sessions.get(instanceId);
      if (s) return s;
      if (await this.holdsLinkedDevice(instanceId, row.status)) return this.startSession(instanceId, 'resuming a completed pairing');
      // A replaced or banned device may still hold credentials: a new QR means a new device.
      return this.startSession(instanceId, 'pairing requested', true);
    });
    if (session.isRegistered) return null;
    await session.waitUntil(() => !!session.qr || session.open || this.sessions.get(instanceId) !== session, waitMs);
    return session.open ? null : session.qr;
  }

  async pairingCode(instanceId: string, phone: string): Promise<string> {
    return this.serialise(instanceId, async () => {
      const current = this.sessions.get(instanceId);
      if (current?.open || current?.isRegistered) throw errors.conflict('You are already connected.');
      const row = await this.deps.store.instances.findById(instanceId);
      if (!current && row && (await this.holdsLinkedDevice(instanceId, row.status))) {
        await this.startSession(instanceId, 'resuming a completed pairing');
        throw errors.conflict('You are already connected.');
      }
      // Baileys writes `me` when asked for a code: each attempt starts from clean credentials.
      const session = await this.startSession(instanceId, 'pairing code requested', true);
      const limit = { clock: this.deps.clock, commandTimeoutMs: this.deps.settings.commandTimeoutMs };
      await session.waitUntil(() => !!session.qr || this.sessions.get(instanceId) !== session, limit.commandTimeoutMs);
      const sock = session.sock;
      if (!session.qr || !sock) throw errors.commandTimeout();
      return withTimeout(limit, () => sock.requestPairingCode(phone));
    });
  }

  async restart(instanceId: string): Promise<void> {
    await this.serialise(instanceId, async () => {
      const current = this.sessions.get(instanceId);
      if (current) {
        await current.stop();
        this.sessions.delete(instanceId);
      }
      if (await this.isPaired(instanceId)) await this.startSession(instanceId, 'restart requested');
    });
  }

  async logout(instanceId: string): Promise<void> {
    await this.serialise(instanceId, async () => {
      const current = this.sessions.get(instanceId);
      if (current) {
        await current.logout();
        this.sessions.delete(instanceId);
        return;
      }
      // No live link to tell the network: forget the device locally.
      await this.deps.store.auth.wipe(instanceId);
      const row = await this.deps.store.instances.findById(instanceId);
      if (row && (row.paired_at !== null || row.status !== 'disconnected')) {
        await this.deps.store.instances.setStatus(
          instanceId,
          { status: 'disconnected', reason: 'logged out through the API', at: this.deps.clock.now() },
          { paired_at: null },
        );
      }
    });
  }

  async remove(instanceId: string): Promise<void> {
    await this.serialise(instanceId, async () => {
      const current = this.sessions.get(instanceId);
      if (!current) return;
      try {
        if (current.open) await current.logout();
        else await current.stop();
      } finally {
        // Also when the instance's rows are already gone (`zapgate accounts delete` in another
        // process): the device is unlinked and the socket closed before the logout's own writes fail.
        this.sessions.delete(instanceId);
      }
    });
  }

  applyAntiban(instanceId: string, _enabled: boolean): boolean {
    // The strategy itself lives in the sender, which reads the setting before every send; the
    // answer says whether a running session will see it now.
    return this.isConnected(instanceId);
  }

  // ---- network operations: handed to the engines that own them ------------------------------------

  checkPhones(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]> {
    return this.phoneChecks.check(instanceId, phones);
  }

  uncheckedPhones(phones: readonly string[]): Promise<number> {
    return this.phoneChecks.unchecked(phones);
  }

  createGroup(instanceId: string, subject: string, phones: readonly string[], requestId: string): Promise<CreatedGroup> {
    return this.groups.createGroup(instanceId, subject, phones, requestId);
  }

  updateGroupSettings(instanceId: string, groupId: string, change: GroupSettingsChange): Promise<void> {
    return this.groups.updateGroupSettings(instanceId, groupId, change);
  }

  groupInvitationMetadata(instanceId: string, code: string): Promise<GroupInfo> {
    return this.groups.groupInvitationMetadata(instanceId, code);
  }

  groupMetadata(instanceId: string, groupId: string): Promise<GroupInfo> {
    return this.groups.groupMetadata(instanceId, groupId);
  }

  deleteMessage(instanceId: string, request: DeleteMessageRequest): Promise<void> {
    return this.messaging.deleteMessage(instanceId, request);
  }

  readMessage(instanceId: string, request: ReadMessageRequest): Promise<void> {
    return this.messaging.readMessage(instanceId, request);
  }

  sendMessage(message: OutboundMessage): Promise<void> {
    return this.messaging.sendMessage(message);
  }

  sendPresence(instanceId: string, phone: string, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    return this.messaging.sendPresence(instanceId, phone, state);
  }

  /** GroupsService.onCreated (services/auto-invite.ts): reports the API-created group with both its ids. */
  async groupCreated(instanceId: string, pendingId: string, groupId: string | null, phonesNotAdded: readonly string[]): Promise<void> {
    if (!groupId) return;
    const event = groupCreatedEvent({ pendingId, groupId, phonesNotAdded }, this.sessions.get(instanceId)?.me?.pn, this.deps.clock.now());
    await this.deps.events.emit(instanceId, [event]);
  }

  /** Live sessions by status (zapgate_sessions). */
  sessionCounts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.sessions.values()) out.set(s.state, (out.get(s.state) ?? 0) + 1);
    return out;
  }

  onConnectionChange(listener: (instanceId: string, connected: boolean) => void): void {
    this.connectionListeners.add(listener);
  }

  onRestriction(listener: (signal: RestrictionSignal) => void): void {
    this.restrictionListeners.add(listener);
  }

  private failed(err: unknown, what: string): void {
    this.deps.metrics.loggedFailures.inc({ component: 'sessions' });
    // A full disk is logged once per episode by the store's watcher (store/disk-watch.ts), not per failure.
    this.log[isDiskFull(err) ? 'debug' : 'error']({ err }, `${what} failed`);
  }
}
