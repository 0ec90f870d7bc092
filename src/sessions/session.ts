// One instance's link to the network: at most one Baileys socket at a time, the CONTRACT §4 states
// it moves through (recorded with reasons), and the reconnect policy applied when a socket closes.
// The manager serialises lifecycle calls per instance; this class never opens two sockets.
import { isDiskFull } from '../errors.js';
import type { AuthenticationCreds, BinaryNode, WAMessage } from 'baileys';
import type { Clock } from '../clock.js';
import type { EventSink, GatewayEvent } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { InstancePatch, InstanceStatus } from '../store/schema.js';
import { loadAuthState, type StoredAuthState } from './auth-state.js';
import { backoffDelay, classifyClose, type BackoffPolicy, type CloseAction } from './close-policy.js';
import { mediaFileId, type InboundMedia, type MediaNetwork, type MediaPart } from './inbound-media.js';
import { sourceOf } from './incoming-media.js';
import { toReceivedCallback, type IncomingContext } from './incoming.js';
import type { MediaSource } from './media-download.js';
import { callNotificationOf, notificationOf, type CallInfo } from './notifications.js';
import { listenForCommunityChanges } from './community-notifications.js';
import { newsletterParticipantNotification } from './newsletter-events.js';
import { ReceiptGate } from './receipt-gate.js';
import { installSendWriteAhead } from './send-write-ahead.js';
import { oneKeyTransactionAtATime } from './key-transactions.js';
import { engineLogger } from './engine-logger.js';
import { groupIdOf, isGroup, isLid, normalJid, userOf } from './jids.js';
import { prewarmKeyPairs } from './keypair-pool.js';
import { MessageMemory } from './message-memory.js';
import type { BoomLike } from './engine-call.js';
import type { LiveSession } from './live-session.js';
import type { SessionLabels, SessionReactions } from './session-hooks.js';
import { createSocket, forgetGroup, rememberGroup, cachedGroup, type NetworkSettings, type SharedCaches, type WASocket } from './socket-config.js';
import { StatusTracker } from './status-tracker.js';
import { ChatRecorder, type RecordedMessage } from './chat-recorder.js';
import { HistoryImporter, type HistorySet } from './history-import.js';

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
  events: EventSink;
  net: NetworkSettings;
  caches: SharedCaches;
  backoff: BackoffPolicy;
  /** Protocol ms a link must stay open before the backoff counter resets (no storm on flapping). */
  stableMs: number;
  /** Received media: files recorded before their event, downloaded after it. */
  media: Pick<InboundMedia, 'register' | 'prefetch'>;
  /** Wall ms a delivery receipt may wait for its event's commit before it goes anyway. */
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
  private changeWaiters: Waiter[] = [];
  private writes: Promise<void> = Promise.resolve();
  /** The creds write queued and not started yet: updates made meanwhile ride on it. */
  private credsSave: Promise<void> | null = null;
  private credsHolds = 0;
  /** The instance row says paired (paired_at) for the creds this session holds. */
  private pairingRecorded = false;
  private generation = 0;
  private gate: ReceiptGate | null = null;
  /** Received messages are reported one upsert after the other: per chat order is kept. */
  private incoming: Promise<void> = Promise.resolve();
  /** The commit of the latest upsert handed to the outbox (stop() waits for it). */
  private commits: Promise<void> = Promise.resolve();
  /** Calls answered on the phone (so their end is CALL_ENDED, not a missed call); bounded. */
  private answeredCalls = new Set<string>();
  readonly log: Logger;

  constructor(private readonly deps: SessionDeps) {
    this.log = deps.log.child({ instanceId: deps.instanceId });
    this.memory = new MessageMemory(deps.store.waMessages, deps.instanceId, () => deps.clock.now());
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
      context: () => this.incomingContext(),
      retention: deps.chatRetention ?? { maxAgeMs: Number.MAX_SAFE_INTEGER, maxPerChat: 0 },
      failed: (err, what) => this.failed(err, what),
      imported: (s) => this.log.info({ history: s }, 'history sync imported'),
    });
    this.tracker = new StatusTracker({
      advance: async (ids, status, at) => {
        const advanced = await deps.store.messages.advanceWaStatus(deps.instanceId, ids, status, at);
        this.chats.statuses(ids, status);
        return advanced;
      },
      recordError: async (id, reason, at) => {
        await deps.store.messages.recordNetworkError(deps.instanceId, id, reason, at);
      },
      emit: (events) => this.emit(events),
      restriction: (reason) => deps.onRestriction(reason, false),
      now: () => deps.clock.now(),
      failed: (err, what) => this.failed(err, what),
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
  get me(): { pn: string; lid: string | null } | null {
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
    const gate = new ReceiptGate(this.deps.receiptHoldMs, {
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
    let auth = await loadAuthState(store.auth, instanceId, () => this.deps.clock.now(), gate);
    if (auth.restored && !auth.state.creds.account) {
      // Credentials of a pairing that never completed are useless (and a pairing code attempt
      // leaves `me` set, which would make Baileys try to log in): start clean.
      await store.auth.wipe(instanceId);
      auth = await loadAuthState(store.auth, instanceId, () => this.deps.clock.now(), gate);
    }
    this.auth = auth;
    this.registered = !!auth.state.creds.account;
    this.pairingRecorded = this.registered;
    // A pairing's first login makes hundreds of keys: have them made off the event loop meanwhile.
    if (!this.registered) prewarmKeyPairs();
    await this.setState(this.registered ? 'connecting' : this.state === 'pairing' ? 'pairing' : 'connecting', reason);
    // Read per socket: set before pairing, the opt-in applies to the link that receives the history.
    const syncHistory = (await store.instances.findById(instanceId))?.history_import === 1;
    const generation = ++this.generation;
    const { sock, keyTransactions } = createSocket(this.deps.net, this.deps.caches, {
      instanceId,
      auth: auth.state,
      logger: engineLogger(this.deps.engineLog, { instanceId }),
      getMessage: async (key) => (key.id ? this.memory.message(key.id) : undefined),
      syncHistory,
    });
    // What an encryption advanced is on disk before the message it made can leave.
    installSendWriteAhead(sock.signalRepository, keyTransactions, (mutations) => auth.writeAhead(mutations));
    // A send and a decryption must not commit over each other's Signal state (see the module).
    oneKeyTransactionAtATime(sock.authState.keys);
    this.sock = sock;
    sockRef = sock;
    this.socketsOpened++;
    gate.install(sock);
    this.gate = gate;
    // Messages are taken as Baileys emits them, not after its event buffer (which holds them for
    // 100 ms, or for a whole offline catch-up): their receipts are held until they are committed.
    const emit = sock.ev.emit.bind(sock.ev);
    (sock.ev as { emit: (event: string, data: unknown) => boolean }).emit = (event, data) => {
      if (event === 'creds.update' && generation === this.generation) {
        // Baileys applies the update to the creds as it emits (the event is never buffered).
        const listened = emit(event, data as never);
        this.holdUntilCredsSaved(auth, gate, sock);
        return listened;
      }
      if (event === 'messaging-history.set' && generation === this.generation) {
        // Taken chunk by chunk here: Baileys' buffer would hold every chunk of a large history
        // until its initial sync ends. Nothing else reads the set.
        this.history.take(data as HistorySet);
        return true;
      }
      if (event !== 'messages.upsert' || generation !== this.generation) return emit(event as 'messages.upsert', data as never);
      const upsert = data as { messages: WAMessage[]; type: 'append' | 'notify' };
      this.takeUpsert(upsert.messages, upsert.type, gate, sock);
      return true;
    };
    sock.ws.on('CB:ack,class:message', (node: BinaryNode) => {
      if (generation === this.generation) this.tracker.onAck(node);
    });
    // Community changes Baileys drops (link, unlink, deactivation): reported like any group change.
    listenForCommunityChanges(sock, (change) => {
      if (generation !== this.generation) return;
      for (const jid of change.groups) forgetGroup(this.deps.caches, instanceId, jid);
      this.takeUpsert([change.message], 'append', gate, sock);
    });
    sock.ev.process(async (events) => {
      if (generation !== this.generation) return;
      // Handed over before any await: the API waits for its own label change to be stored.
      if (events['labels.edit'] || events['labels.association']) void this.deps.labels?.engineEvents(this, { edit: events['labels.edit'], association: events['labels.association'] });
      try {
        if (events['creds.update'] && auth.state.creds.account) this.registered = true;
        const update = events['connection.update'];
        if (update) await this.onConnectionUpdate(update);
        if (events['messages.update']) {
          this.tracker.onUpdates(events['messages.update']);
          await this.onReadByMe(events['messages.update']);
        }
        if (events.call) await this.onCalls(events.call);
        const channelAdmins = events['newsletter-participants.update'];
        if (channelAdmins) {
          const note = await newsletterParticipantNotification(channelAdmins, this.incomingContext(), this.deps.clock.now());
          if (note) await this.emit([note]);
        }
        if (events['presence.update']) await this.onPresence(events['presence.update']);
        if (events['message-receipt.update']) this.tracker.onReceipts(events['message-receipt.update']);
        for (const g of events['groups.update'] ?? []) if (g.id) forgetGroup(this.deps.caches, instanceId, g.id);
        const participants = events['group-participants.update'];
        if (participants) forgetGroup(this.deps.caches, instanceId, participants.id);
        for (const g of events['groups.upsert'] ?? []) rememberGroup(this.deps.caches, instanceId, g);
        if (events['chats.upsert'] || events['chats.update'] || events['contacts.upsert'] || events['contacts.update']) await this.chats.engineEvents(events);
      } catch (err) {
        this.failed(err, 'handle engine events');
      }
    });
  }

  private async onConnectionUpdate(u: Partial<import('baileys').ConnectionState>): Promise<void> {
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
    await this.emit([{ type: 'ConnectedCallback', connected: true, phone: phone ?? '', momment: this.deps.clock.now() }]);
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
    await this.setState('connecting', `connection lost: ${detail}; reconnecting in ${Math.round(delay / 100) / 10} s (attempt ${this.attempts})`);
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
    await this.incoming;
    await this.commits;
    await this.tracker.idle();
    await this.history.idle();
  }

  /** Unlinks the device on the network (when a socket is open), then forgets the credentials. */
  async logout(waitOpenMs = 10_000): Promise<void> {
    // A link still being established is given a moment: only an open one can unlink the device.
    const deadline = Date.now() + waitOpenMs;
    while (this.sock && !this.open && this.registered && this.state === 'connecting' && Date.now() < deadline) {
      await this.waitForChange(deadline - Date.now());
    }
    const sock = this.sock;
    const wasOpen = this.open;
    if (sock && this.open) {
      this.closing = true;
      const closed = new Promise<void>((resolve) => this.closeWaiters.push({ resolve }));
      await this.unlink(sock).catch((err: unknown) => this.failed(err, 'unlink the device'));
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
   * Asks the network to remove this companion and waits for its answer (Baileys' own logout only
   * writes the request and closes at once, so a busy server may never act on it).
   */
  private async unlink(sock: WASocket): Promise<void> {
    const jid = this.auth?.state.creds.me?.id;
    if (!jid) return;
    await sock.query(
      {
        tag: 'iq',
        attrs: { to: 's.whatsapp.net', type: 'set', xmlns: 'md' },
        content: [{ tag: 'remove-companion-device', attrs: { jid, reason: 'user_initiated' } }],
      },
      this.deps.net.queryTimeoutMs,
    );
  }

  /** Resolves when the state changes (or after `ms` of wall-clock time). */
  waitForChange(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const w = { resolve: () => { cancel(); resolve(); } };
      const cancel = this.deps.clock.setTimer(ms / this.deps.clock.timeScale, () => {
        this.changeWaiters = this.changeWaiters.filter((x) => x !== w);
        resolve();
      });
      this.changeWaiters.push(w);
    });
  }

  private wake(): void {
    for (const w of this.changeWaiters.splice(0)) w.resolve();
  }

  /** Records a state change with its reason; writes keep their order. */
  private setState(status: InstanceStatus, reason: string, extra: InstancePatch = {}): Promise<void> {
    this.state = status;
    this.wake();
    const at = this.deps.clock.now();
    return this.persist(() => this.deps.store.instances.setStatus(this.id, { status, reason, at }, extra), `record status ${status}`);
  }

  /**
   * A login emits creds.update several times in a row; one write of the latest creds per queued
   * slot is enough (each commit costs an fsync, and a restoring fleet logs in all at once).
   */
  /**
   * Nothing leaves the device before the creds it just changed are on disk. The pairing's reply
   * (which makes the network link the device) and a pre-key upload (which publishes key ids the
   * creds count from) both follow a creds update at once: sent ahead of it, a crash leaves a linked
   * device the gateway cannot log in as, or pre-key ids handed out twice with different keys.
   */
  private holdUntilCredsSaved(auth: StoredAuthState, gate: ReceiptGate, sock: WASocket): void {
    const id = `creds:${++this.credsHolds}`;
    gate.hold(id);
    this.saveCreds(auth).then(
      () => gate.settle(id),
      (err: unknown) => {
        gate.close();
        sock.end(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  private saveCreds(auth: StoredAuthState): Promise<void> {
    if (this.credsSave) return this.credsSave;
    const save = new Promise<void>((resolve, reject) => {
      void this.persist(async () => {
        this.credsSave = null;
        try {
          await auth.saveCreds();
          await this.recordPairing(auth);
          resolve();
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          throw err;
        }
      }, 'save creds');
    });
    // persist() logs a failure; only callers that wait on the write need to see it.
    save.catch(() => undefined);
    this.credsSave = save;
    return save;
  }

  /**
   * The first creds that carry the account are the pairing's (pair-success): the instance is paired
   * from here on, before the answer that makes the network link the device leaves. Killed after
   * that, the gateway restores the instance at start and logs in as that device, rather than
   * offering a new QR and leaving the linked device behind on the phone.
   */
  private async recordPairing(auth: StoredAuthState): Promise<void> {
    if (this.pairingRecorded || !auth.state.creds.account) return;
    await this.deps.store.instances.update(this.id, { paired_at: this.deps.clock.now() });
    this.pairingRecorded = true;
  }

  private persist(write: () => Promise<void>, what: string): Promise<void> {
    this.writes = this.writes.then(write).catch((err: unknown) => this.failed(err, what));
    return this.writes;
  }

  async emit(events: readonly GatewayEvent[]): Promise<void> {
    if (events.length === 0) return;
    try {
      await this.deps.events.emit(this.id, events);
    } catch (err) {
      this.failed(err, 'emit events');
    }
  }

  failed(err: unknown, what: string): void {
    this.deps.metrics.loggedFailures.inc({ component: 'sessions' });
    // A full disk is logged once per episode by the store's watcher (main.ts), not per failure.
    this.log[isDiskFull(err) ? 'debug' : 'error']({ err }, `${what} failed`);
  }

  // ---- incoming ---------------------------------------------------------------------------

  /** Queues an upsert for reporting; network messages and notifications hold their receipts. */
  private takeUpsert(messages: readonly WAMessage[], type: 'append' | 'notify', gate: ReceiptGate, sock: WASocket): void {
    const fromNetwork = messages.map((m) => {
      const id = m.key.id ?? '';
      // Stub messages come from notifications, acked when this returns: hold now.
      if (m.messageStubType && id) gate.hold(id);
      return type === 'notify' || !!m.messageStubType || gate.isHeld(id);
    });
    this.incoming = this.incoming.then(() => this.onUpsert(messages, fromNetwork, gate, sock));
  }

  /**
   * Builds the upsert's events and hands them to the outbox; resolves once they are handed over
   * (not committed), so the next upsert is built while this one commits: emits keep their order,
   * and commits of many messages share one transaction. Receipts are released per commit.
   */
  private async onUpsert(messages: readonly WAMessage[], fromNetwork: readonly boolean[], gate: ReceiptGate, sock: WASocket): Promise<void> {
    const ctx = this.incomingContext();
    const events: GatewayEvent[] = [];
    const keys: (string | null)[] = [];
    const settle: string[] = [];
    const media: string[] = [];
    const recorded: RecordedMessage[] = [];
    try {
      for (const [i, msg] of messages.entries()) {
        const id = msg.key.id;
        const network = fromNetwork[i]!;
        if (id && network) settle.push(id);
        if (msg.key.fromMe) this.foldedReceipts(msg);
        if (msg.key.remoteJid === 'status@broadcast') continue;
        if (msg.messageStubType) {
          const note = await notificationOf(msg, ctx);
          // A group the API created is reported by the API path, with its pending id.
          if (note && !(note.notification === 'GROUP_CREATE' && note.fromMe)) {
            events.push(note);
            keys.push(id ? `${id}:stub` : null);
          }
          continue;
        }
        if (!msg.message || !id) continue;
        // Our own API sends are remembered by the send path (with list metadata); remember the rest.
        if (network) void this.memory.remember(msg).catch((err: unknown) => this.failed(err, 'remember message'));
        const event = await toReceivedCallback(msg, network ? { ...ctx, media: this.mediaFor(media) } : ctx, { fromApi: !network });
        if (!event) continue;
        events.push(event);
        keys.push(network ? id : null);
        recorded.push({ event, msg, network });
      }
    } catch (err) {
      return this.notRecorded(err, gate, sock);
    }
    const committed = events.length > 0 ? this.deps.events.emit(this.id, events, keys) : Promise.resolve();
    this.commits = committed.then(
      () => {
        for (const id of settle) gate.settle(id);
        if (media.length > 0) this.deps.media.prefetch(media);
        // The stored copy is written after the commit, in its own batches: never ahead of a receipt.
        this.chats.messages(recorded);
        // Read receipts (auto-read) only for what is recorded: a lost event is never marked read.
        this.deps.reactions?.received(this, messages.filter((m, i) => fromNetwork[i] && !m.key.fromMe));
      },
      (err: unknown) => this.notRecorded(err, gate, sock),
    );
  }

  /** Not recorded: the receipts must not go. Dropping the link makes the network deliver again. */
  private notRecorded(err: unknown, gate: ReceiptGate, sock: WASocket): void {
    this.failed(err, 'record received messages');
    gate.close();
    sock.end(err instanceof Error ? err : new Error(String(err)));
  }

  /** The media hook of the incoming context: records files, remembers their ids for prefetching. */
  private mediaFor(collected: string[]): IncomingContext['media'] {
    return async (messageId: string, parts: readonly MediaPart[]) => {
      const links = await this.deps.media.register(this.id, messageId, parts);
      for (const p of parts) if (!('inline' in p.source)) collected.push(mediaFileId(this.id, messageId, p.part));
      return links;
    };
  }

  /** The account's own phone read messages this instance received: Z-API's READ_BY_ME. */
  private async onReadByMe(updates: readonly { key: WAMessage['key']; update: { status?: number | null } }[]): Promise<void> {
    const byChat = new Map<string, string[]>();
    for (const { key, update } of updates) {
      if (key.fromMe || !key.id || !key.remoteJid || update.status !== 4) continue;
      byChat.set(key.remoteJid, [...(byChat.get(key.remoteJid) ?? []), key.id]);
    }
    const events: GatewayEvent[] = [];
    for (const [chat, ids] of byChat) {
      const phone = isGroup(chat) ? groupIdOf(chat) : await this.phoneOf(chat);
      events.push({ type: 'MessageStatusCallback', status: 'READ_BY_ME', ids, momment: this.deps.clock.now(), phone, isGroup: isGroup(chat), phoneDevice: 0 });
      this.chats.readOnPhone(phone, ids);
    }
    await this.emit(events);
  }

  private async onCalls(calls: readonly CallInfo[]): Promise<void> {
    this.deps.reactions?.calls(this, calls);
    const ctx = this.incomingContext();
    const events: GatewayEvent[] = [];
    const keys: string[] = [];
    for (const call of calls) {
      if (call.status === 'accept') {
        if (this.answeredCalls.size > 1000) this.answeredCalls.clear();
        this.answeredCalls.add(call.id);
      }
      const event = await callNotificationOf(call, this.answeredCalls.has(call.id), ctx);
      if (call.status === 'terminate') this.answeredCalls.delete(call.id);
      if (!event) continue;
      events.push(event);
      keys.push(`${call.id}:${String(event.notification)}`);
    }
    if (events.length > 0) await this.deps.events.emit(this.id, events, keys).catch((err: unknown) => this.failed(err, 'record calls'));
  }

  private async onPresence(update: { id: string; presences: Record<string, { lastKnownPresence: string; lastSeen?: number }> }): Promise<void> {
    if (isGroup(update.id)) return;
    const events: GatewayEvent[] = [];
    for (const [jid, p] of Object.entries(update.presences)) {
      const status = p.lastKnownPresence.toUpperCase();
      if (status !== 'AVAILABLE' && status !== 'UNAVAILABLE' && status !== 'COMPOSING' && status !== 'PAUSED' && status !== 'RECORDING') continue;
      events.push({ type: 'PresenceChatCallback', phone: await this.phoneOf(jid), status, lastSeen: p.lastSeen ? p.lastSeen * 1000 : null, momment: this.deps.clock.now() });
    }
    await this.emit(events);
  }

  /** The live link's media access, or null while there is none. */
  mediaNetwork(): MediaNetwork | null {
    const sock = this.sock;
    if (!sock || !this.open) return null;
    return {
      mediaHost: async () => {
        const conn = await sock.refreshMediaConn(false);
        const host = conn.hosts[0]?.hostname;
        if (!host) throw new Error('the network named no media host');
        return host;
      },
      reupload: async (messageId: string, source: MediaSource) => {
        const stored = await this.memory.quoted(messageId);
        if (!stored) throw new Error('the message is no longer known: its media cannot be asked for again');
        const updated = await sock.updateMediaMessage(stored);
        const content = updated.message ? Object.values(updated.message).find((v) => (v as { directPath?: string } | null)?.directPath) : undefined;
        const fresh = content ? sourceOf(content as Parameters<typeof sourceOf>[0], source.mediaType) : null;
        if (!fresh) throw new Error('the sender\'s phone did not upload the file again');
        return fresh;
      },
    };
  }

  /**
   * Baileys buffers events for ~100 ms and merges receipts that arrive meanwhile into the upsert of
   * our own message (its `status`, or `userReceipt` in groups) instead of emitting updates.
   */
  private foldedReceipts(msg: WAMessage): void {
    if (typeof msg.status === 'number') this.tracker.onUpdates([{ key: msg.key, update: { status: msg.status } }]);
    for (const receipt of msg.userReceipt ?? []) {
      if (receipt.userJid) this.tracker.onReceipts([{ key: msg.key, receipt: { ...receipt, userJid: receipt.userJid } }]);
    }
  }

  incomingContext(): IncomingContext {
    const me = this.me ?? { pn: '', lid: null };
    return {
      me,
      phoneOf: (jid, alt, group) => this.phoneOf(jid, alt, group),
      senderJids: async (jid, alt) => {
        const out = new Set<string>();
        for (const j of [jid, alt]) if (j) out.add(normalJid(j));
        for (const j of [...out]) {
          const other = await this.counterpart(j);
          if (other) out.add(other);
        }
        return [...out];
      },
      chatName: async (jid) => cachedGroup(this.deps.caches, this.id, jid)?.subject ?? '',
      listById: (id) => this.memory.listById(id),
      latestList: (chat) => this.memory.latestList(chat),
      stored: (id) => this.memory.message(id),
      // Messages the API sent carry no links: the files are the ones the client sent.
      media: async () => new Map(),
    };
  }


  /**
   * A person's phone number (digits); the LID address only when the network never told us the
   * number. In a group (`group`), members' numbers are in its metadata: the network names the
   * author of a group change by LID only.
   */
  async phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string> {
    if (!jid) return '';
    if (!isLid(jid)) return userOf(jid);
    if (alt && !isLid(alt)) return userOf(alt);
    const lid = normalJid(jid);
    const pn = (await this.counterpart(lid)) ?? (group ? await this.phoneInGroup(group, lid) : null);
    return pn ? userOf(pn) : `${userOf(jid)}@lid`;
  }

  /** A member's phone from the group's metadata (cached; read once from the network on a miss). */
  private async phoneInGroup(group: string, lid: string): Promise<string | null> {
    const sock = this.sock;
    let meta = cachedGroup(this.deps.caches, this.id, group);
    // Not while frames are held for a received message being recorded: the query would wait behind
    // the hold, and the hold for the recording, until the hold's limit (the link looks dead by
    // then). The LID address is reported instead; the next change by this member asks again.
    if (!meta?.participants.some((p) => p.id === lid) && sock && this.open && !this.gate?.active()) {
      meta = await sock.groupMetadata(group).catch(() => undefined);
      if (meta) rememberGroup(this.deps.caches, this.id, meta);
    }
    const member = meta?.participants.find((p) => p.id === lid || p.lid === lid);
    const pn = member?.phoneNumber ?? (member && !isLid(member.id) ? member.id : undefined);
    if (!pn) return null;
    // Remembered, so the next message or change by this member needs no lookup.
    await this.sock?.signalRepository.lidMapping.storeLIDPNMappings([{ lid, pn: normalJid(pn) }]).catch(() => undefined);
    return normalJid(pn);
  }

  private async counterpart(jid: string): Promise<string | null> {
    const mapping = this.sock?.signalRepository.lidMapping;
    if (!mapping) return null;
    try {
      return isLid(jid) ? await mapping.getPNForLID(jid) : await mapping.getLIDForPN(jid);
    } catch (err) {
      this.failed(err, 'map LID and phone');
      return null;
    }
  }
}
