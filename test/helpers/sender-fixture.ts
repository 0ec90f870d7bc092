// A sender over a real SQLite store with a scripted in-memory transport. For unit tests of the
// sender's own logic only (pacing, FIFO, recovery): end-to-end tests use the real engine and simnet.
import { systemClock, type Clock } from '../../src/clock.js';
import { loadConfig, type AntibanSettings } from '../../src/config.js';
import type { OutgoingContent } from '../../src/domain/outgoing.js';
import { errors } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { Sender, type SenderOptions } from '../../src/sender/sender.js';
import { AccountsService } from '../../src/services/accounts-service.js';
import { InstancesService } from '../../src/services/instances-service.js';
import { MessagesService, type SendCommon } from '../../src/services/messages-service.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';
import type { MessageTransport, OutboundMessage, RestrictionSignal, SessionsPort } from '../../src/sessions/port.js';
import type { EventSink } from '../../src/events/types.js';
import { newUuid } from '../../src/ids.js';
import { VirtualClock } from './virtual-clock.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { createStore, type Store } from '../../src/store/index.js';
import type { Instance } from '../../src/domain/instance.js';

export interface SentRecord {
  instanceId: string;
  messageId: string;
  zaapId: string;
  phone: string;
  text: string | undefined;
  /** Clock ms (the fixture's clock) when the transport was called and when it finished. */
  calledAt: number;
  doneAt: number;
}

export interface PresenceRecord {
  instanceId: string;
  phone: string;
  state: 'composing' | 'recording' | 'paused';
  at: number;
}

/** What the script decides for one send: resolve after `delayMs` real ms, hang, or throw. */
export type SendScript = (m: OutboundMessage) => { delayMs?: number; hang?: Promise<void>; error?: Error } | undefined;

/** A transport whose connections and answers the test controls. */
export class ScriptedTransport implements MessageTransport {
  readonly sent: SentRecord[] = [];
  readonly calls: OutboundMessage[] = [];
  readonly presences: PresenceRecord[] = [];
  script: SendScript = () => undefined;
  private readonly connected = new Set<string>();
  private readonly connListeners: ((id: string, c: boolean) => void)[] = [];
  private readonly restrictionListeners: ((s: RestrictionSignal) => void)[] = [];
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  constructor(private readonly clock: Clock) {}

  isConnected(instanceId: string): boolean {
    return this.connected.has(instanceId);
  }

  setConnected(instanceId: string, connected: boolean): void {
    if (connected) this.connected.add(instanceId);
    else this.connected.delete(instanceId);
    for (const l of this.connListeners) l(instanceId, connected);
  }

  restrict(signal: RestrictionSignal): void {
    for (const l of this.restrictionListeners) l(signal);
  }

  async sendMessage(m: OutboundMessage): Promise<void> {
    const calledAt = this.clock.now();
    this.calls.push(m);
    this.check();
    const step = this.script(m);
    if (step?.hang) await step.hang;
    if (step?.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step?.error) throw step.error;
    if (!this.connected.has(m.instanceId)) throw errors.notConnected();
    const content = m.message.content;
    this.sent.push({
      instanceId: m.instanceId,
      messageId: m.messageId,
      zaapId: m.zaapId,
      phone: m.phone,
      text: content.type === 'text' ? content.message : undefined,
      calledAt,
      doneAt: this.clock.now(),
    });
    this.check();
  }

  async sendPresence(instanceId: string, phone: string, state: 'composing' | 'recording' | 'paused'): Promise<void> {
    this.presences.push({ instanceId, phone, state, at: this.clock.now() });
  }

  onConnectionChange(listener: (instanceId: string, connected: boolean) => void): void {
    this.connListeners.push(listener);
  }

  onRestriction(listener: (signal: RestrictionSignal) => void): void {
    this.restrictionListeners.push(listener);
  }

  sentBy(instanceId: string): SentRecord[] {
    return this.sent.filter((s) => s.instanceId === instanceId);
  }

  /** Resolves once `check()` holds after a send; rejects after `timeoutMs` real ms. */
  until(check: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`timed out waiting for ${what} (${this.sent.length} sent)`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ check, resolve: done });
    });
  }

  private check(): void {
    const ready = this.waiters.filter((w) => w.check());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const w of ready) w.resolve();
  }
}

export interface Fixture {
  readonly clock: Clock;
  readonly store: Store;
  readonly database: Database;
  readonly transport: ScriptedTransport;
  readonly sender: Sender;
  readonly messages: MessagesService;
  readonly instances: InstancesService;
  readonly accountId: string;
  createInstance(options?: { antiban?: boolean; pairedAt?: number | null; connected?: boolean }): Promise<Instance>;
  sendText(instance: Instance, phone: string, message: string, common?: Partial<SendCommon>): Promise<{ zaapId: string; messageId: string }>;
  /** A second sender over the same database, as after a restart (the old one is abandoned). */
  restart(transport: ScriptedTransport, options?: Partial<SenderOptions>): Sender;
  close(): Promise<void>;
}

export interface FixtureOptions {
  /** Either a clock (e.g. a VirtualClock in 'auto' mode) or the time scale of a system clock (a time-lapse of real time). */
  clock?: Clock;
  timeScale?: number;
  pacing?: boolean;
  antiban?: Partial<AntibanSettings>;
  random?: () => number;
}

export async function senderFixture(o: FixtureOptions): Promise<Fixture> {
  // In memory: these tests are about the sender's logic; durability is the e2e kill -9 test's job.
  const database = await openDatabase({ dataDir: '', sqliteFile: ':memory:' });
  const store = createStore(database);
  const clock = o.clock ?? systemClock(o.timeScale ?? 1);
  const transport = new ScriptedTransport(clock);
  const log = createLogger('silent');
  const defaults = loadConfig({});
  const options = (over: Partial<SenderOptions> = {}): SenderOptions => ({
    pacing: o.pacing ?? true,
    antiban: { ...defaults.antiban, ...o.antiban },
    ...(o.random ? { random: o.random } : {}),
    retryMs: 200,
    ...over,
  });
  // Every event lands in the events table, webhook or not, so tests can read what was reported.
  const events: EventSink = {
    async emit(instanceId, list) {
      const createdAt = clock.now();
      await store.events.append(list.map((payload) => ({ id: newUuid(), instanceId, kind: payload.type, payload, createdAt })));
    },
  };
  // A session runs (and takes update-antiban) while its transport is connected.
  const sessions: SessionsPort = { ...offlineSessions(), isConnected: (id) => transport.isConnected(id), applyAntiban: (id) => transport.isConnected(id) };
  const makeSender = (t: ScriptedTransport, over?: Partial<SenderOptions>): Sender =>
    new Sender({ store, transport: t, events, clock, log, options: options(over) });
  const sender = makeSender(transport);
  const messages = new MessagesService({ store, sessions, clock, queueMaxDisconnected: 0, queue: sender });
  const instances = new InstancesService({ store, sessions, clock, liveAntiban: sender });
  const account = await new AccountsService(store, clock).create('sender-tests');
  const senders: Sender[] = [sender];
  // A virtual clock moves only while every live sender lane waits (the store may answer from a thread).
  if (clock instanceof VirtualClock) clock.setGate(async () => void (await Promise.all(senders.map((s) => s.idle()))));

  return {
    clock,
    store,
    database,
    transport,
    sender,
    messages,
    instances,
    accountId: account.id,
    async createInstance(c = {}) {
      const created = await instances.create(account.id, 'inst');
      await store.instances.update(created.instanceId, {
        antiban: c.antiban ? 1 : 0,
        paired_at: c.pairedAt === undefined ? clock.now() - 365 * 86_400_000 : c.pairedAt,
        status: 'connected',
        phone: '5511900000000',
      });
      if (c.connected ?? true) transport.setConnected(created.instanceId, true);
      return (await store.instances.find(created.instanceId)) as Instance;
    },
    async sendText(instance, phone, message, common = {}) {
      const content: OutgoingContent = { type: 'text', message };
      return messages.send(instance, { phone, ...common }, content);
    },
    restart(t, over) {
      // The previous sender "died": it is never stopped, its pending sends never settle.
      const s = makeSender(t, over);
      senders.splice(0, senders.length, s);
      return s;
    },
    async close() {
      for (const s of senders) await s.stop();
      await database.close();
    },
  };
}
