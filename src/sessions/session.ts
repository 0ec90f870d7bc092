// One instance's link to the network: at most one Baileys socket at a time, the CONTRACT §4 states
// it moves through (recorded with reasons), and the reconnect policy applied when a socket closes.
// The manager serialises lifecycle calls per instance; this class never opens two sockets.
import type { BinaryNode, WAMessage } from 'baileys';
import type { Clock } from '../clock.js';
import type { EventSink, GatewayEvent } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { Store } from '../store/index.js';
import type { InstancePatch } from '../store/schema.js';
import { loadAuthState, type StoredAuthState } from './auth-state.js';
import { backoffDelay, classifyClose, type BackoffPolicy, type CloseAction } from './close-policy.js';
import { toReceivedCallback, type IncomingContext } from './incoming.js';
import { isLid, normalJid, userOf } from './jids.js';
import { prewarmKeyPairs } from './keypair-pool.js';
import { MessageMemory } from './message-memory.js';
import type { BoomLike } from './operations.js';
import type { InstanceStatus } from './port.js';
import { createSocket, forgetGroup, rememberGroup, cachedGroup, type NetworkSettings, type SharedCaches, type WASocket } from './socket-config.js';
import { StatusTracker } from './status-tracker.js';

export interface SessionDeps {
  instanceId: string;
  store: Store;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  events: EventSink;
  net: NetworkSettings;
  caches: SharedCaches;
  backoff: BackoffPolicy;
  /** Protocol ms a link must stay open before the backoff counter resets (no storm on flapping). */
  stableMs: number;
  onConnection(connected: boolean): void;
  onRestriction(reason: string, fatal: boolean): void;
  /** The session reached a state with no socket and nothing scheduled: the manager forgets it. */
  onEnded(): void;
}

type Waiter = { resolve(): void };

export class Session {
  state: InstanceStatus = 'disconnected';
  qr: string | null = null;
  sock: WASocket | null = null;
  open = false;
  readonly memory: MessageMemory;
  readonly tracker: StatusTracker;
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
  private credsQueued = false;
  private generation = 0;
  readonly log: Logger;

  constructor(private readonly deps: SessionDeps) {
    this.log = deps.log.child({ instanceId: deps.instanceId });
    this.memory = new MessageMemory(deps.store.waMessages, deps.instanceId, () => deps.clock.now());
    this.tracker = new StatusTracker({
      advance: (ids, status, at) => deps.store.messages.advanceWaStatus(deps.instanceId, ids, status, at),
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
    let auth = await loadAuthState(store.auth, instanceId, () => this.deps.clock.now());
    if (auth.restored && !auth.state.creds.account) {
      // Credentials of a pairing that never completed are useless (and a pairing code attempt
      // leaves `me` set, which would make Baileys try to log in): start clean.
      await store.auth.wipe(instanceId);
      auth = await loadAuthState(store.auth, instanceId, () => this.deps.clock.now());
    }
    this.auth = auth;
    this.registered = !!auth.state.creds.account;
    // A pairing's first login makes hundreds of keys: have them made off the event loop meanwhile.
    if (!this.registered) prewarmKeyPairs();
    await this.setState(this.registered ? 'connecting' : this.state === 'pairing' ? 'pairing' : 'connecting', reason);
    const generation = ++this.generation;
    const sock = createSocket(this.deps.net, this.deps.caches, {
      instanceId,
      auth: auth.state,
      logger: this.baileysLogger(),
      getMessage: async (key) => (key.id ? this.memory.message(key.id) : undefined),
    });
    this.sock = sock;
    this.socketsOpened++;
    sock.ws.on('CB:ack,class:message', (node: BinaryNode) => {
      if (generation === this.generation) this.tracker.onAck(node);
    });
    sock.ev.process(async (events) => {
      if (generation !== this.generation) return;
      try {
        if (events['creds.update']) {
          if (auth.state.creds.account) this.registered = true;
          this.saveCreds(auth);
        }
        const update = events['connection.update'];
        if (update) await this.onConnectionUpdate(update);
        if (events['messages.upsert']) await this.onUpsert(events['messages.upsert'].messages, events['messages.upsert'].type);
        if (events['messages.update']) this.tracker.onUpdates(events['messages.update']);
        if (events['message-receipt.update']) this.tracker.onReceipts(events['message-receipt.update']);
        for (const g of events['groups.update'] ?? []) if (g.id) forgetGroup(this.deps.caches, instanceId, g.id);
        const participants = events['group-participants.update'];
        if (participants) forgetGroup(this.deps.caches, instanceId, participants.id);
        for (const g of events['groups.upsert'] ?? []) rememberGroup(this.deps.caches, instanceId, g);
      } catch (err) {
        this.failed(err, 'handle engine events');
      }
    });
  }

  private baileysLogger(): Logger {
    // Baileys logs every routine reconnect at info; the gateway reports those as states instead.
    const child = this.log.child({ component: 'baileys' });
    const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];
    if (levels.indexOf(child.level) < levels.indexOf('warn')) child.level = 'warn';
    return child;
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
    await this.tracker.idle();
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
  private saveCreds(auth: StoredAuthState): void {
    if (this.credsQueued) return;
    this.credsQueued = true;
    void this.persist(async () => {
      this.credsQueued = false;
      await auth.saveCreds();
    }, 'save creds');
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
    this.log.error({ err }, `${what} failed`);
  }

  // ---- incoming ---------------------------------------------------------------------------

  private async onUpsert(messages: readonly WAMessage[], type: 'append' | 'notify'): Promise<void> {
    const ctx = this.incomingContext();
    const events: GatewayEvent[] = [];
    for (const msg of messages) {
      if (msg.key.fromMe) this.foldedReceipts(msg);
      if (!msg.message || msg.key.remoteJid === 'status@broadcast') continue;
      // Our own API sends are remembered by the send path (with list metadata); remember the rest.
      if (!(type === 'append' && msg.key.fromMe)) await this.memory.remember(msg).catch((err: unknown) => this.failed(err, 'remember message'));
      if (type !== 'notify') continue;
      const event = await toReceivedCallback(msg, ctx);
      if (event) events.push(event);
    }
    await this.emit(events);
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
      phoneOf: (jid, alt) => this.phoneOf(jid, alt),
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
    };
  }

  /** A person's phone number (digits); the LID address only when the network never told us the number. */
  async phoneOf(jid: string | null | undefined, alt?: string | null): Promise<string> {
    if (!jid) return '';
    if (!isLid(jid)) return userOf(jid);
    if (alt && !isLid(alt)) return userOf(alt);
    const pn = await this.counterpart(normalJid(jid));
    return pn ? userOf(pn) : `${userOf(jid)}@lid`;
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
