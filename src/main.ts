// The one place that wires config → store → sessions → services → http. Nothing else constructs
// long-lived components, so every dependency is visible here.
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createAddressGuard, type AddressGuard } from './net/address-guard.js';
import { openDatabase } from './store/database.js';
import { createStore, type Store } from './store/index.js';
import { offlineSessions } from './sessions/offline-sessions.js';
import type { SessionsPort } from './sessions/port.js';
import { SessionManager, type SessionManagerDeps } from './sessions/manager.js';
import { wireAutoInvite } from './sessions/auto-invite.js';
import { quietLibsignalConsole } from './sessions/libsignal-console.js';
import { Sender } from './sender/sender.js';
import { recordingInboundContacts } from './sender/inbound-contacts.js';
import { withLiveAntiban } from './sender/live-antiban.js';
import { AccountsService } from './services/accounts-service.js';
import { InstancesService } from './services/instances-service.js';
import { MessagesService } from './services/messages-service.js';
import { QueueService } from './services/queue-service.js';
import { ContactsService } from './services/contacts-service.js';
import { GroupsService } from './services/groups-service.js';
import { WebhooksService } from './services/webhooks-service.js';
import { buildHttpServer, type HttpServer } from './http/server.js';
import { webhookDeliveryRoutes } from './http/routes/webhook-deliveries.js';
import { createOutbox, type OutboxTuning } from './outbox/index.js';
import type { EventSink } from './events/types.js';

export interface GatewayOverrides {
  clock?: Clock;
  logger?: Logger;
  /** Tests may swap the address guard's DNS resolver or the whole guard. */
  guard?: AddressGuard;
  /** SQLite file override (tests). */
  sqliteFile?: string;
  pgSchema?: string;
  collectProcessMetrics?: boolean;
  /** Webhook dispatcher settings; tests pass `ca` to trust their own receiver's certificate. */
  outbox?: Partial<Omit<OutboxTuning, 'allowHttp'>>;
  /** Replaces the engine (HTTP contract tests run with no network at all). */
  sessions?: SessionsPort;
  /** Engine tuning for tests and benchmarks (a test network's media CA, backoff, restore width). */
  engine?: Partial<Pick<SessionManagerDeps, 'mediaAgent' | 'backoff' | 'stableMs' | 'restoreConcurrency' | 'phoneChecks'>>;
}

export interface Gateway {
  readonly config: Config;
  readonly log: Logger;
  readonly store: Store;
  readonly metrics: Metrics;
  readonly sessions: SessionsPort;
  /** The Baileys engine (null when `overrides.sessions` replaced it); also the sender's MessageTransport. */
  readonly engine: SessionManager | null;
  /** The per-instance FIFO sender over the engine (null without an engine). */
  readonly sender: Sender | null;
  readonly accounts: AccountsService;
  readonly instances: InstancesService;
  readonly messages: MessagesService;
  readonly groups: GroupsService;
  readonly http: HttpServer;
  /** Where the engine and the sender emit events: committed, then delivered by webhook. */
  readonly events: EventSink;
  /** Starts background work and listens; returns the bound address. */
  listen(): Promise<string>;
  /** Stops accepting requests, drains writes, closes sessions without logging out. */
  close(): Promise<void>;
}

export async function createGateway(config: Config, overrides: GatewayOverrides = {}): Promise<Gateway> {
  const clock = overrides.clock ?? systemClock(config.timeScale);
  const log = overrides.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics(overrides.collectProcessMetrics ?? true);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(overrides.sqliteFile ? { sqliteFile: overrides.sqliteFile } : {}),
    ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
  });
  const store = createStore(database);
  const guard = overrides.guard ?? createAddressGuard({ allowHosts: config.allowHosts, allowHttp: config.webhookAllowHttp });
  // Before the engine and the sender: they emit into outbox.sink.
  const outbox = createOutbox({
    store,
    clock,
    log: log.child({ component: 'outbox' }),
    metrics,
    guard,
    allowHttp: config.webhookAllowHttp,
    ...(overrides.outbox ? { tuning: overrides.outbox } : {}),
  });

  // libsignal prints session records (with private keys) to the console: keep them out of the output.
  if (!overrides.sessions) quietLibsignalConsole(log.child({ component: 'libsignal' }));
  const engine = overrides.sessions
    ? null
    : new SessionManager({
        store,
        clock,
        log,
        metrics,
        // Incoming 1:1 messages also tell the anti-ban strategy who is no stranger.
        events: recordingInboundContacts(outbox.sink, store.antiban, clock),
        guard,
        settings: { waUrl: config.waUrl, waRootKey: config.waRootKey, timeScale: config.timeScale, commandTimeoutMs: config.commandTimeoutMs },
        ...overrides.engine,
      });
  const sessions: SessionsPort = overrides.sessions ?? engine ?? offlineSessions();
  // One FIFO lane per instance, sending through the engine's MessageTransport.
  const sender = engine
    ? new Sender({
        store,
        transport: engine,
        events: outbox.sink,
        clock,
        log: log.child({ component: 'sender' }),
        metrics,
        options: { pacing: config.pacing, antiban: config.antiban },
      })
    : null;

  const accounts = new AccountsService(store, clock);
  const instances = new InstancesService(store, sender ? withLiveAntiban(sessions, sender) : sessions, clock);
  const messages = new MessagesService(store, sessions, clock, { queueMaxDisconnected: config.queueMaxDisconnected });
  if (sender) messages.onEnqueued((instanceId) => sender.notify(instanceId));
  const queue = new QueueService(store);
  const contacts = new ContactsService(sessions);
  const groups = new GroupsService(store, sessions, clock, log.child({ component: 'groups' }));
  const webhooks = new WebhooksService(store, guard, clock);
  if (engine) wireAutoInvite(groups, engine, messages, store, log.child({ component: 'groups' }), metrics);

  let draining = false;
  const http = await buildHttpServer({
    config,
    log,
    metrics,
    sessions,
    accounts,
    instances,
    messages,
    queue,
    contacts,
    groups,
    webhooks,
    extraInstanceRoutes: [webhookDeliveryRoutes(outbox.deliveries)],
    now: () => clock.now(),
    async ready() {
      if (draining) return { ok: false, reason: 'draining' };
      try {
        await database.ping();
        return { ok: true };
      } catch {
        return { ok: false, reason: 'database unreachable' };
      }
    },
  });

  return {
    config,
    log,
    store,
    metrics,
    sessions,
    engine,
    sender,
    accounts,
    instances,
    messages,
    groups,
    http,
    events: outbox.sink,
    async listen() {
      await outbox.start();
      const address = await http.listen({ host: config.host, port: config.port });
      // Lanes for every instance with messages waiting (in-flight ones are resent, same id).
      await sender?.start();
      // Paired instances reconnect in the background; group creations left pending resume after.
      engine
        ?.start()
        .then(() => groups.resumePending())
        .catch((err: unknown) => log.error({ err }, 'restoring sessions failed'));
      return address;
    },
    async close() {
      draining = true;
      await http.close();
      // Before the engine and the outbox close: a send in progress may still settle and report.
      await sender?.stop();
      await store.messages.drain();
      await groups.idle();
      await engine?.close();
      await outbox.close();
      await guard.close();
      await database.close();
    },
  };
}
