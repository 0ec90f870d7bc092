// The engine behind every operation: one Session per instance with a live or scheduled link,
// lifecycle commands serialised per instance (so two sockets never share credentials), restore
// of every paired instance at start, and the SessionsPort / MessageTransport the rest uses.
import type { Agent as HttpAgent } from 'node:http';
import type { Agent } from 'node:https';
import type { Clock } from '../clock.js';
import { isDiskFull, errors } from '../errors.js';
import { notificationEvent, type EventSink } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { AddressGuard } from '../net/address-guard.js';
import { ProxyAgent, proxyInUse } from '../net/proxy.js';
import type { Store } from '../store/index.js';
import type { InstanceRow } from '../store/schema.js';
import { deserialize } from './auth-state.js';
import { DEFAULT_BACKOFF, type BackoffPolicy } from './close-policy.js';
import { mediaPipeline, type StoredMediaReader } from './media.js';
import type { MediaLimits } from '../convert/limits.js';
import { MESSAGE_RETENTION_MS } from './message-memory.js';
import * as ops from './operations.js';
import { checkPhones, DEFAULT_PHONE_CHECKS, type PhoneCheckOptions } from './phone-checks.js';
import type {
  CreatedGroup,
  DeleteMessageRequest,
  ReadMessageRequest,
  GroupInfo,
  GroupSettingsChange,
  MessageTransport,
  OutboundMessage,
  PhoneCheck,
  RestrictionSignal,
  SessionsPort,
} from './port.js';
import { Session } from './session.js';
import type { SessionStore } from './session-deps.js';
import { InboundMedia, type InboundMediaSettings } from './inbound-media.js';
import { mediaNetworkOf } from './media-network.js';
import type { MediaStore } from '../media/store.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import { createSharedCaches, type SharedCaches } from './socket-config.js';
import { historyDispatcher } from './history-download.js';
import type { Dispatcher } from 'undici';
import type { SessionLabels, SessionReactions } from './session-hooks.js';
import { openSocket, withTimeout } from './engine-call.js';

interface EngineSettings {
  waUrl?: string | undefined;
  waRootKey?: string | undefined;
  /** `host[:port]` of the network's media host for downloads by path (history sync); WhatsApp's when unset. */
  waMediaHost?: string | undefined;
  timeScale: number;
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
  events: EventSink;
  guard: AddressGuard;
  settings: EngineSettings;
  /** Trusts a test network's media CA for uploads (else NODE_EXTRA_CA_CERTS). */
  mediaAgent?: Agent;
  /** Sessions restored in parallel at start. */
  restoreConcurrency?: number;
  backoff?: BackoffPolicy;
  /** Protocol ms a link must stay up before its backoff counter resets. */
  stableMs?: number;
  phoneChecks?: Partial<Omit<PhoneCheckOptions, 'commandTimeoutMs'>>;
  /** Where received media goes and how its links are made. */
  media: { store: MediaStore; signer: MediaUrlSigner; settings: InboundMediaSettings };
  /** Wall ms a delivery receipt may wait for its event's commit (default 10 s). */
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

interface ChatRetentionSettings {
  maxAgeMs: number;
  maxPerChat: number;
}

const PRUNE_EVERY_MS = 6 * 60 * 60_000;
/**
 * Contacts a status post is shown to at most: the most recent the instance talked with. Each is
 * one more encryption (and device query) per post; WhatsApp's own clients post to a few hundred.
 */
const STATUS_AUDIENCE_MAX = 1_000;

export class SessionManager implements SessionsPort, MessageTransport {
  private readonly sessions = new Map<string, Session>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly connectionListeners: ((instanceId: string, connected: boolean) => void)[] = [];
  private readonly restrictionListeners: ((signal: RestrictionSignal) => void)[] = [];
  private readonly caches: SharedCaches;
  private readonly opDeps: ops.OperationDeps;
  private readonly log: Logger;
  private closed = false;
  private cancelPrune: (() => void) | null = null;
  private restoring: Promise<void> | null = null;
  /** Received media: registered by sessions, downloaded in the background, served by the API. */
  readonly media: InboundMedia;
  /** History-sync blob downloads (history-download.ts), shared by every socket; none for WhatsApp itself. */
  private readonly historyDownloads: Dispatcher | undefined;

  constructor(private readonly deps: SessionManagerDeps) {
    this.log = deps.log.child({ component: 'sessions' });
    this.caches = createSharedCaches(() => deps.clock.now());
    this.historyDownloads = historyDispatcher({ mediaHost: deps.settings.waMediaHost, ca: deps.mediaAgent?.options.ca });
    this.opDeps = {
      media: mediaPipeline(deps.guard, deps.settings.media, deps.outgoingMedia),
      commandTimeoutMs: deps.settings.commandTimeoutMs,
      listSettings: async (id) => {
        const row = await deps.store.instances.findById(id);
        return { mode: row?.list_mode ?? 'poll', replyHint: row?.list_reply_hint ?? null };
      },
      statusAudience: (id) => deps.store.antiban.contactsOf(id, STATUS_AUDIENCE_MAX),
    };
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
    this.schedulePrune(0);
    return this.restoring;
  }

  /** Resolves once the restore started by start() has finished (every instance settled). */
  restored(): Promise<void> {
    return this.restoring ?? Promise.resolve();
  }

  private async restoreAll(): Promise<void> {
    const rows = await this.deps.store.instances.listPaired();
    const queue = rows.map((r) => r.id).filter((id) => this.mine(id));
    const workers = Math.max(1, Math.min(this.deps.restoreConcurrency ?? 32, queue.length));
    const settleMs = Math.max(this.deps.settings.commandTimeoutMs, 30_000);
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let id = queue.shift(); id !== undefined && !this.closed; id = queue.shift()) {
          // A little jitter so a fleet does not hit the network in lockstep.
          await this.deps.clock.sleep(Math.random() * 200);
          try {
            const session = await this.serialise(id, () => this.startSession(id, 'restoring after restart'));
            await this.settled(session, settleMs);
          } catch (err) {
            this.failed(err, `restore ${id}`);
          }
        }
      }),
    );
  }

  /** Waits until a starting session is open or has stopped trying for now. */
  private async settled(session: Session, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!session.open && session.state === 'connecting' && session.attempts === 0 && Date.now() < deadline && !this.closed) {
      await session.waitForChange(deadline - Date.now());
    }
  }

  private schedulePrune(delayMs: number): void {
    this.cancelPrune = this.deps.clock.setTimer(delayMs, () => {
      this.deps.store.waMessages
        .pruneOlderThan(this.deps.clock.now() - MESSAGE_RETENTION_MS)
        .catch((err: unknown) => this.failed(err, 'prune remembered messages'))
        .then(() => this.pruneChatCopy())
        .catch((err: unknown) => this.failed(err, 'prune stored chat messages'))
        .finally(() => {
          if (!this.closed) this.schedulePrune(PRUNE_EVERY_MS);
        });
    });
  }

  /** Applies the retention settings to the stored copy of messages; returns how many went. */
  async pruneChatCopy(): Promise<number> {
    const r = this.deps.chatRetention;
    if (!r) return 0;
    await this.deps.store.chats.drain();
    let n = r.maxAgeMs > 0 ? await this.deps.store.chats.pruneOlderThan(this.deps.clock.now() - r.maxAgeMs) : 0;
    if (r.maxPerChat > 0) n += await this.deps.store.chats.prunePerChat(r.maxPerChat);
    return n;
  }

  /** Closes every socket WITHOUT logging out: the devices stay linked for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelPrune?.();
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
    const proxy = this.proxyAgent(await this.deps.store.instances.findById(instanceId));
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
        timeScale: this.deps.clock.timeScale,
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
      onConnection: (connected) => this.connectionChanged(instanceId, connected),
      onRestriction: (reason, fatal) => this.restricted({ instanceId, reason, fatal }),
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

  /** The instance's proxy (issue 13 item 3): its live session's, else one made from its setting. */
  private async proxyOf(instanceId: string): Promise<HttpAgent | undefined> {
    const live = this.sessions.get(instanceId);
    if (live) return live.proxy;
    return this.proxyAgent(await this.deps.store.instances.findById(instanceId));
  }

  private proxyAgent(row: InstanceRow | undefined): ProxyAgent | undefined {
    const url = row ? proxyInUse(row.proxy_url, row.proxy_enabled === 1) : null;
    if (!url) return undefined;
    // The far end's TLS trusts what the media agent trusts (a test network's CA).
    const ca = this.deps.mediaAgent?.options.ca;
    return new ProxyAgent(url, { guard: this.deps.guard, tls: ca === undefined ? undefined : { ca }, timeoutMs: this.deps.settings.commandTimeoutMs });
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
    const deadline = Date.now() + waitMs;
    while (!session.qr && !session.open && this.sessions.get(instanceId) === session && Date.now() < deadline) {
      await session.waitForChange(deadline - Date.now());
    }
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
      const deadline = Date.now() + this.deps.settings.commandTimeoutMs;
      while (!session.qr && this.sessions.get(instanceId) === session && Date.now() < deadline) {
        await session.waitForChange(deadline - Date.now());
      }
      const sock = session.sock;
      if (!session.qr || !sock) throw errors.commandTimeout();
      return withTimeout(this.deps.settings.commandTimeoutMs, () => sock.requestPairingCode(phone));
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

  // ---- network operations ---------------------------------------------------------------------

  checkPhones(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]> {
    const { session } = openSocket(this.sessions.get(instanceId));
    return checkPhones(session, phones, this.deps.store.phoneChecks, this.deps.clock, {
      ...DEFAULT_PHONE_CHECKS,
      ...this.deps.phoneChecks,
      commandTimeoutMs: this.deps.settings.commandTimeoutMs,
    });
  }

  async uncheckedPhones(phones: readonly string[]): Promise<number> {
    const unique = [...new Set(phones)];
    const ttlMs = this.deps.phoneChecks?.ttlMs ?? DEFAULT_PHONE_CHECKS.ttlMs;
    const known = await this.deps.store.phoneChecks.findFresh(unique, this.deps.clock.now() - ttlMs);
    return unique.length - known.size;
  }

  createGroup(instanceId: string, subject: string, phones: readonly string[], requestId: string): Promise<CreatedGroup> {
    return ops.createGroup(openSocket(this.sessions.get(instanceId)).session, { subject, phones, requestId }, this.opDeps);
  }

  updateGroupSettings(instanceId: string, groupId: string, change: GroupSettingsChange): Promise<void> {
    return ops.updateGroupSettings(openSocket(this.sessions.get(instanceId)).session, groupId, change, this.opDeps);
  }

  groupInvitationMetadata(instanceId: string, code: string): Promise<GroupInfo> {
    return ops.groupInvitationMetadata(openSocket(this.sessions.get(instanceId)).session, code, this.opDeps);
  }

  groupMetadata(instanceId: string, groupId: string): Promise<GroupInfo> {
    return ops.groupMetadata(openSocket(this.sessions.get(instanceId)).session, groupId, this.opDeps);
  }

  deleteMessage(instanceId: string, request: DeleteMessageRequest): Promise<void> {
    return ops.deleteMessage(openSocket(this.sessions.get(instanceId)).session, request, this.opDeps);
  }

  readMessage(instanceId: string, request: ReadMessageRequest): Promise<void> {
    return ops.readMessage(openSocket(this.sessions.get(instanceId)).session, request, this.opDeps);
  }

  async sendMessage(message: OutboundMessage): Promise<void> {
    await ops.sendOutbound(openSocket(this.sessions.get(message.instanceId)).session, message, this.opDeps);
  }

  async sendPresence(instanceId: string, phone: string, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    await ops.sendPresence(openSocket(this.sessions.get(instanceId)).session, phone, state, this.opDeps);
  }

  /** GroupsService.onCreated: reports the API-created group with both its ids (CONTRACT §8). */
  async groupCreated(instanceId: string, pendingId: string, groupId: string | null, phonesNotAdded: readonly string[]): Promise<void> {
    if (!groupId) return;
    const session = this.sessions.get(instanceId);
    const me = session?.me?.pn;
    const event = notificationEvent({
      messageId: pendingId,
      phone: groupId,
      fromMe: true,
      momment: this.deps.clock.now(),
      status: 'SENT',
      participantPhone: me ? me.split('@')[0] ?? null : null,
      isGroup: true,
      notification: 'GROUP_CREATE',
      notificationParameters: [groupId, pendingId, ...phonesNotAdded],
      groupId,
      pendingGroupId: pendingId,
    });
    await this.deps.events.emit(instanceId, [event]);
  }

  /** Live sessions by status (zapgate_sessions). */
  sessionCounts(): Map<string, number> {
    const out = new Map<string, number>();
    for (const s of this.sessions.values()) out.set(s.state, (out.get(s.state) ?? 0) + 1);
    return out;
  }

  onConnectionChange(listener: (instanceId: string, connected: boolean) => void): void {
    this.connectionListeners.push(listener);
  }

  onRestriction(listener: (signal: RestrictionSignal) => void): void {
    this.restrictionListeners.push(listener);
  }

  private connectionChanged(instanceId: string, connected: boolean): void {
    for (const l of this.connectionListeners) {
      try {
        l(instanceId, connected);
      } catch (err) {
        this.failed(err, 'connection listener');
      }
    }
  }

  private restricted(signal: RestrictionSignal): void {
    for (const l of this.restrictionListeners) {
      try {
        l(signal);
      } catch (err) {
        this.failed(err, 'restriction listener');
      }
    }
  }

  private failed(err: unknown, what: string): void {
    this.deps.metrics.loggedFailures.inc({ component: 'sessions' });
    // A full disk is logged once per episode by the store's watcher (main.ts), not per failure.
    this.log[isDiskFull(err) ? 'debug' : 'error']({ err }, `${what} failed`);
  }
}
