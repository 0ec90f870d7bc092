// One instance's link to the network: at most one Baileys socket at a time, the docs/contract.md §4
// states it moves through (recorded with reasons), and the reconnect policy applied when a socket
// closes. The manager serialises lifecycle calls per instance; this class never opens two sockets.
// What comes in over the link is routed by intake-table.ts to session-intake.ts; credentials are
// kept by session-creds.ts; who is who (LID ↔ phone) by identity.ts.
import { isDiskFull } from '../../errors.js';
import type { Person } from '../../domain/person.js';
import type { AuthenticationCreds, ConnectionState } from 'baileys';
import type { GatewayEvent } from '../../events/types.js';
import type { Logger } from '../../logger.js';
import type { InstanceStatus } from '../../domain/instance.js';
import { CONNECTION_LOST } from '../../domain/number-health.js';
import type { InstancePatch } from '../../store/schema.js';
import type { StoredAuthState } from './auth-state.js';
import { backoffDelay, classifyClose, type CloseAction } from './close-policy.js';
import type { BoomLike } from '../engine-call.js';
import { HistoryImporter } from '../inbound/history-import.js';
import { Identity } from './identity.js';
import { installIntake } from '../inbound/intake-table.js';
import { prewarmKeyPairs } from '../patches/keypair-pool.js';
import { normalJid, userOf } from '../jids.js';
import type { LiveSession, OwnAddress } from '../live-session.js';
import { MessageMemory } from './message-memory.js';
import { ReceiptGate } from './receipt-gate.js';
import { loadLinkAuth, openLinkSocket, unlinkDevice } from './link-socket.js';
import type { SessionDeps } from './session-deps.js';
import { SessionCreds } from './session-creds.js';
import { SessionIntake } from '../inbound/session-intake.js';
import type { NetworkSettings, SharedCaches, WASocket } from './socket-config.js';
import { StatusTracker } from '../inbound/status-tracker.js';
import { ChatRecorder } from '../inbound/chat-recorder.js';
import type { MessageCopies } from '../../store/message-copies.js';

type Waiter = { resolve(): void };

export class Session implements LiveSession {
  state: InstanceStatus = 'disconnected';
  qr: string | null = null;
  sock: WASocket | null = null;
  open = false;
  readonly memory: MessageMemory;
  readonly tracker: StatusTracker;
  /** Feeds the stored copy of the account (chats, contacts, messages). */
  readonly chats: ChatRecorder;
  /** Imports the phone's history at pairing, for instances that opted in. */
  readonly history: HistoryImporter;
  /** Reconnect attempts since the link was last stable. */
  attempts = 0;
  /** Sockets created over the session's life (tests check there is no reconnect storm). */
  socketsOpened = 0;
  private auth: StoredAuthState | null = null;
  private registered = false;
  private closing = false;
  private ended = false;
  private rapidRestarts = 0;
  private cancelReconnect: (() => void) | null = null;
  private cancelStable: (() => void) | null = null;
  private closeWaiters: Waiter[] = [];
  /** Called at every change of state, QR or link (waitUntil's wake-ups). */
  private readonly changeListeners = new Set<() => void>();
  private writes: Promise<void> = Promise.resolve();
  private generation = 0;
  private gate: ReceiptGate | null = null;
  private readonly identity: Identity;
  private readonly credentials: SessionCreds;
  private readonly intake: SessionIntake;
  readonly log: Logger;

  constructor(private readonly deps: SessionDeps) {
    this.log = deps.log.child({ instanceId: deps.instanceId });
    // A sent message's row commits with the queue's moves (its ack's status advance): MessageMemory.hold.
    this.memory = new MessageMemory(deps.store.waMessages, deps.instanceId, () => deps.clock.now(), (row) => deps.store.messages.remember(row));
    this.identity = new Identity({
      instanceId: deps.instanceId,
      caches: deps.caches,
      memory: this.memory,
      me: () => this.me,
      link: () => ({ sock: this.sock, open: this.open, holding: this.gate?.active() ?? false }),
      now: () => deps.clock.now(),
      failed: (err, what) => this.failed(err, what),
    });
    this.credentials = new SessionCreds({
      instanceId: deps.instanceId,
      instances: deps.store.instances,
      now: () => deps.clock.now(),
      persist: (write, what) => this.persist(write, what),
    });
    this.chats = new ChatRecorder({
      instanceId: deps.instanceId,
      sink: deps.store.chats,
      now: () => deps.clock.now(),
      phoneOf: (jid) => this.phoneOf(jid),
      failed: (err, what) => this.failed(err, what),
    });
    this.history = new HistoryImporter({
      instanceId: deps.instanceId,
      store: deps.store,
      events: deps.events,
      now: () => deps.clock.now(),
      context: () => this.identity.incomingContext(),
      retention: deps.chatRetention ?? { maxAgeMs: Number.MAX_SAFE_INTEGER, maxPerChat: 0 },
      failed: (err, what) => this.failed(err, what),
      imported: (s) => this.log.info({ history: s }, 'history sync imported'),
    });
    this.tracker = new StatusTracker({
      // The chat copy's status is set in the same commit as the queue's (one fsync per receipt, not two).
      advance: (ids, status, at) => deps.store.messages.advanceWaStatus(deps.instanceId, ids, status, at, { chatCopy: true }),
      recordError: async (id, reason, at) => {
        await deps.store.messages.recordNetworkError(deps.instanceId, id, reason, at);
      },
      emit: (events) => this.emit(events),
      personOfChat: (chat) => this.identity.personOfChat(chat),
      restriction: (reason) => deps.onRestriction(reason, false),
      now: () => deps.clock.now(),
      failed: (err, what) => this.failed(err, what),
    });
    this.intake = new SessionIntake({
      session: this,
      events: deps.events,
      clock: deps.clock,
      identity: this.identity,
      chats: this.chats,
      media: deps.media,
      reactions: deps.reactions,
    });
  }

  get id(): string {
    return this.deps.instanceId;
  }

  get caches(): SharedCaches {
    return this.deps.caches;
  }

  get isRegistered(): boolean {
    return this.registered;
  }

  /** Own phone (digits) and LID (jid without device), once known. */
  get me(): OwnAddress | null {
    const me = this.auth?.state.creds.me;
    if (!me?.id) return null;
    return { pn: normalJid(me.id), lid: me.lid ? normalJid(me.lid) : null };
  }

  /** The instance's proxy agent, when it has one (its media downloads go through it too). */
  get proxy(): NetworkSettings['proxy'] {
    return this.deps.net.proxy;
  }

  /** The credentials as Baileys keeps them (push name, platform, device), once loaded. */
  get creds(): AuthenticationCreds | null {
    return this.auth?.state.creds ?? null;
  }

  /** Opens a socket with the stored credentials (or fresh ones for pairing). */
  async start(reason: string): Promise<void> {
    this.ended = false;
    this.closing = false;
    await this.connect(reason);
  }

  private async connect(reason: string): Promise<void> {
    this.cancelReconnect?.();
    this.cancelReconnect = null;
    if (this.closing || this.ended) return;
    const { store, instanceId } = this.deps;
    // Credentials still being written (the pairing's, when the network asks for the restart that
    // follows it at once) must be read back, not the row from before them: that would look like
    // an unfinished pairing and be wiped.
    await this.writes;
    if (this.closing || this.ended) return;
    let sockRef: WASocket | null = null;
    const gate = new ReceiptGate(this.deps.clock, this.deps.receiptHoldMs, {
      flushState: () => auth.flushDeferredKeys(),
      failed: (err) => {
        // Signal state not on disk: the held receipts must not go. A new link gets the messages again.
        this.failed(err, 'commit Signal state');
        gate.close();
        sockRef?.end(err instanceof Error ? err : new Error(String(err)));
      },
      heldTooLong: () => {
        this.deps.metrics.receiptsHeldTooLong.inc();
        this.log.warn('held frames went out before what they wait for was committed (the commit is slow)');
      },
    });
    const auth = await loadLinkAuth(store.auth, instanceId, () => this.deps.clock.now(), gate);
    this.auth = auth;
    this.registered = !!auth.state.creds.account;
    this.credentials.pairingRecorded = this.registered;
    // A pairing's first login makes hundreds of keys: have them made off the event loop meanwhile.
    if (!this.registered) prewarmKeyPairs();
    await this.setState(this.registered ? 'connecting' : this.state === 'pairing' ? 'pairing' : 'connecting', reason);
    // Read per socket: set before pairing, the opt-in applies to the link that receives the history.
    const syncHistory = (await store.instances.find(instanceId))?.historyImport ?? false;
    const generation = ++this.generation;
    const sock = openLinkSocket(this.deps.net, this.deps.caches, auth, {
      instanceId,
      engineLog: this.deps.engineLog,
      getMessage: async (key) => (key.id ? this.memory.message(key.id) : undefined),
      syncHistory,
    });
    this.sock = sock;
    sockRef = sock;
    this.socketsOpened++;
    gate.install(sock);
    this.gate = gate;
    // Every input of this socket goes through the intake table; a replaced socket's is ignored.
    installIntake(
      {
        session: this,
        clock: this.deps.clock,
        caches: this.deps.caches,
        intake: this.intake,
        identity: this.identity,
        creds: this.credentials,
        chats: this.chats,
        history: this.history,
        labels: this.deps.labels,
        connectionUpdate: (update) => this.onConnectionUpdate(update),
        accountKnown: () => {
          this.registered = true;
        },
      },
      { sock, gate, auth },
      () => generation === this.generation,
    );
  }

  private async onConnectionUpdate(u: Partial<ConnectionState>): Promise<void> {
    if (u.qr) {
      this.qr = u.qr;
      if (this.state !== 'pairing') await this.setState('pairing', 'QR code issued');
      this.wake();
    }
    if (u.connection === 'open') await this.onOpen();
    if (u.connection === 'close') await this.onClose(u.lastDisconnect?.error);
  }

  private async onOpen(): Promise<void> {
    this.open = true;
    this.qr = null;
    this.registered = true;
    const me = this.me;
    const phone = me ? userOf(me.pn) : null;
    const lid = me?.lid ? userOf(me.lid) : null;
    const row = await this.deps.store.instances.findById(this.id);
    const extra: InstancePatch = { phone, lid };
    if (row && row.paired_at === null) extra.paired_at = this.deps.clock.now();
    await this.setState('connected', 'connected to the network', extra);
    this.cancelStable?.();
    this.cancelStable = this.deps.clock.setTimer(this.deps.stableMs, () => {
      this.attempts = 0;
      this.rapidRestarts = 0;
    });
    this.deps.onConnection(true);
    // The phone names its platform at pairing: smba / smbi are WhatsApp Business (Android / iOS).
    const isBusiness = (this.auth?.state.creds.platform ?? '').startsWith('smb');
    await this.emit([{ type: 'ConnectedCallback', connected: true, phone: phone ?? '', isBusiness, momment: this.deps.clock.now() }]);
    this.wake();
  }

  private async onClose(error: Error | undefined): Promise<void> {
    const wasOpen = this.open;
    this.open = false;
    this.sock = null;
    // Receipts still held never go: the network delivers those messages again on the next link.
    this.gate?.close();
    this.gate = null;
    this.qr = null;
    this.generation++;
    this.cancelStable?.();
    this.cancelStable = null;
    this.tracker.failPending();
    const code = (error as Partial<BoomLike> | undefined)?.output?.statusCode;
    const message = error?.message ?? '';
    const action = classifyClose(code, message, { registered: this.registered, intentional: this.closing });
    if (wasOpen) this.deps.onConnection(false);
    await this.apply(action, code, message, wasOpen);
    for (const w of this.closeWaiters.splice(0)) w.resolve();
    this.wake();
  }

  private async apply(action: CloseAction, code: number | undefined, message: string, wasOpen: boolean): Promise<void> {
    const detail = `${message || 'closed'}${code ? ` (${code})` : ''}`;
    const disconnected = async (error: string): Promise<void> => {
      if (wasOpen) await this.emit([{ type: 'DisconnectedCallback', disconnected: true, error, momment: this.deps.clock.now() }]);
    };
    switch (action.kind) {
      case 'intentional':
        return;
      case 'reconnect-now':
        // 515 comes once right after pairing; a server that keeps asking is treated as flapping.
        if (++this.rapidRestarts <= 3) {
          await this.connect('restart required by the network');
          return;
        }
        return this.scheduleReconnect(detail, disconnected);
      case 'backoff':
        return this.scheduleReconnect(detail, disconnected);
      case 'logged-out':
        await this.wipe();
        await this.setState('logged_out', 'the device was removed from the phone (401)', { paired_at: null });
        await disconnected('logged out');
        this.deps.onRestriction('logged out', true);
        return this.end();
      case 'replaced':
        await this.setState('replaced', 'another client took over this session (440)');
        await disconnected('replaced by another session');
        return this.end();
      case 'banned':
        await this.setState('banned', 'the network refused the account (403)');
        await disconnected('banned');
        this.deps.onRestriction('the account was banned (403)', true);
        return this.end();
      case 're-pair':
        await this.wipe();
        await this.setState('disconnected', 'multi-device mismatch (411): pair again', { paired_at: null });
        await disconnected('multi-device mismatch');
        return this.end();
      case 'pairing-ended':
        await this.wipe();
        await this.setState('disconnected', action.reason);
        return this.end();
    }
  }

  private async scheduleReconnect(detail: string, disconnected: (e: string) => Promise<void>): Promise<void> {
    this.attempts++;
    const delay = backoffDelay(this.attempts, this.deps.backoff);
    await this.setState('connecting', `${CONNECTION_LOST}: ${detail}; reconnecting in ${Math.round(delay / 100) / 10} s (attempt ${this.attempts})`);
    await disconnected(detail);
    this.cancelReconnect = this.deps.clock.setTimer(delay, () => {
      this.cancelReconnect = null;
      this.connect(`reconnecting (attempt ${this.attempts})`).catch((err: unknown) => {
        this.failed(err, 'reconnect');
        // The store or the socket factory failed: keep trying on the same schedule.
        void this.scheduleReconnect('reconnect failed', async () => {});
      });
    });
  }

  private end(): void {
    this.ended = true;
    this.deps.onEnded();
  }

  private async wipe(): Promise<void> {
    await this.writes;
    await this.deps.store.auth.wipe(this.id);
    this.registered = false;
  }

  /** Closes the socket without logging out (shutdown, restart); resolves once it is closed. */
  async stop(): Promise<void> {
    this.closing = true;
    this.cancelReconnect?.();
    this.cancelReconnect = null;
    const sock = this.sock;
    if (sock) {
      const closed = new Promise<void>((resolve) => this.closeWaiters.push({ resolve }));
      sock.end(undefined);
      await closed;
    }
    await this.writes;
    await this.intake.idle();
    await this.tracker.idle();
    await this.history.idle();
  }

  /** Unlinks the device on the network (when a socket is open), then forgets the credentials. */
  async logout(waitOpenMs = 10_000): Promise<void> {
    // A link still being established is given a moment: only an open one can unlink the device.
    await this.waitUntil(() => !this.sock || this.open || !this.registered || this.state !== 'connecting', waitOpenMs);
    const sock = this.sock;
    const wasOpen = this.open;
    if (sock && this.open) {
      this.closing = true;
      const closed = new Promise<void>((resolve) => this.closeWaiters.push({ resolve }));
      const jid = this.auth?.state.creds.me?.id;
      if (jid) await unlinkDevice(sock, jid, this.deps.net.queryTimeoutMs).catch((err: unknown) => this.failed(err, 'unlink the device'));
      sock.end(undefined);
      await closed;
    } else {
      await this.stop();
    }
    await this.writes;
    await this.wipe();
    await this.setState('disconnected', 'logged out through the API', { paired_at: null });
    if (wasOpen) await this.emit([{ type: 'DisconnectedCallback', disconnected: true, error: 'logged out', momment: this.deps.clock.now() }]);
    this.ended = true;
  }

  /**
   * Resolves true once `check()` holds, looked at again at each change of the session; false when
   * `ms` pass first. `ms` is a guard (the network's answer: a QR, an open link), never scaled.
   */
  waitUntil(check: () => boolean, ms: number): Promise<boolean> {
    return this.deps.clock.waitUntil(check, ms, {
      changed: (wake) => {
        this.changeListeners.add(wake);
        return () => {
          this.changeListeners.delete(wake);
        };
      },
    });
  }

  private wake(): void {
    for (const listener of [...this.changeListeners]) listener();
  }

  /** Records a state change with its reason; writes keep their order. */
  private setState(status: InstanceStatus, reason: string, extra: InstancePatch = {}): Promise<void> {
    this.state = status;
    this.wake();
    const at = this.deps.clock.now();
    return this.persist(() => this.deps.store.instances.setStatus(this.id, { status, reason, at }, extra), `record status ${status}`);
  }

  private persist(write: () => Promise<void>, what: string): Promise<void> {
    this.writes = this.writes.then(write).catch((err: unknown) => this.failed(err, what));
    return this.writes;
  }

  async emit(events: readonly GatewayEvent[], copies?: MessageCopies): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.deps.events.emit(this.id, events, undefined, copies);
    } catch (err) {
      this.failed(err, 'emit events');
    }
  }

  failed(err: unknown, what: string): void {
    this.deps.metrics.loggedFailures.inc({ component: 'sessions' });
    // A full disk is logged once per episode by the store's watcher (store/disk-watch.ts), not per failure.
    this.log[isDiskFull(err) ? 'debug' : 'error']({ err }, `${what} failed`);
  }

  /** A person's phone number (digits); the LID address when the network never told it (identity.ts). */
  personOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<Person> {
    return this.identity.personOf(jid, alt, group);
  }

  phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string> {
    return this.identity.phoneOf(jid, alt, group);
  }
}
