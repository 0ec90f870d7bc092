// The composition root: builds config → store → cluster membership → event pipeline → engine →
// sender → services → http in that order, then starts and stops them. A layer with many parts has
// one builder of its own (outbox/pipeline.ts, services/index.ts, http/routes/index.ts); behaviour
// lives in the modules named here, not in this file.
import { ReceivedTap } from './services/received-tap.js';
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createAddressGuard, type AddressGuard } from './net/address-guard.js';
import { openDatabase, withSearchPath } from './store/database.js';
import { watchDiskSpace } from './store/disk-watch.js';
import { storeReadiness, watchOwnerLock } from './store/readiness.js';
import { acquireOwnerLock } from './store/owner-lock.js';
import { privateDir } from './store/private-files.js';
import { createStore, type Store } from './store/index.js';
import { OutgoingBlobsRepo } from './store/outgoing-blobs-repo.js';
import { offlineSessions } from './sessions/offline-sessions.js';
import type { SessionsPort } from './sessions/port.js';
import type { SessionManager } from './sessions/manager.js';
import { buildEngine, type EngineTuning } from './sessions/wiring.js';
import { Sender } from './sender/sender.js';
import { createEventPipeline } from './outbox/pipeline.js';
import type { OutboxTuning } from './outbox/index.js';
import type { EventSink } from './events/types.js';
import { closeAndExit, openClusterMember, type ClusterMember } from './cluster/member.js';
import { instanceHandover } from './cluster/handover.js';
import { clusterRouting, type ClusterRouting } from './cluster/routing.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createMediaStore } from './media/select.js';
import { MediaUrlSigner } from './media/signed-urls.js';
import { MediaSweeper } from './media/sweeper.js';
import { OutgoingMediaStore } from './media/outgoing-store.js';
import { OutgoingMediaSweeper } from './media/outgoing-sweeper.js';
import type { AccountsService } from './services/accounts-service.js';
import { applyAccountDeletions } from './services/account-deletions.js';
import { countOpenStreams, DEFAULT_EVENT_STREAM, EventStreamHub, type EventStreamSettings } from './services/event-stream.js';
import type { GroupsService } from './services/groups-service.js';
import { createServices } from './services/index.js';
import type { InstancesService } from './services/instances-service.js';
import type { MessagesService } from './services/messages-service.js';
import type { PhoneCheckJobSettings } from './services/phone-check-jobs.js';
import { buildHttpServer, type HttpServer } from './http/server.js';

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
  engine?: EngineTuning;
  /** phone-exists-batch job settings (tests use small slices to see progress). */
  phoneCheckJobs?: Partial<PhoneCheckJobSettings>;
  /** Event stream settings (tests use a short heartbeat). */
  eventStream?: Partial<EventStreamSettings>;
  /** Replaces the cluster's request routing (HTTP tests place instances where they want, no cluster needed). */
  clusterRouting?: ClusterRouting;
}

export interface Gateway {
  readonly config: Config;
  /** The gateway's one clock (src/clock.ts). */
  readonly clock: Clock;
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
  const clock = overrides.clock ?? systemClock(config.timeScale, config.timeOrigin);
  const log = overrides.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics(overrides.collectProcessMetrics ?? true);

  // One owner per data, taken before the database is opened or migrated (store/owner-lock.ts); the
  // data dir holds secrets, so it is private whatever the umask (store/private-files.ts).
  if (config.dataDir) privateDir(config.dataDir);
  const ownerLock = await acquireOwnerLock({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { pgConnectionString: withSearchPath(config.databaseUrl, overrides.pgSchema) } : {}),
    cluster: config.cluster !== null,
  });
  const ownerLockState = watchOwnerLock(ownerLock, log);

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteThread: config.sqliteThread,
    now: () => clock.now(),
    ...(overrides.sqliteFile ? { sqliteFile: overrides.sqliteFile } : {}),
    ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
  });
  const store = createStore(database);
  const diskFull = watchDiskSpace(database, log, clock);

  // Cluster mode: the engine, the sender and the outbox write through fenced connections (cluster/member.ts).
  const cluster: ClusterMember | null = config.cluster
    ? await openClusterMember({ settings: config.cluster, clock, database, databaseUrl: config.databaseUrl, dataDir: config.dataDir, pgSchema: overrides.pgSchema, metrics, log, onFenced: () => closeAndExit(clock, async () => engine?.close()) })
    : null;
  const engineStore: Store = cluster?.store ?? store;
  const owns = cluster ? (id: string) => cluster.node.owns(id) : undefined;
  const guard = overrides.guard ?? createAddressGuard({ allowHosts: config.allowHosts, allowHttp: config.webhookAllowHttp });
  // Streams read the outbox's events back from the store; the outbox wakes them when it commits some.
  const eventStreams = new EventStreamHub(store.streamEvents, clock, { ...DEFAULT_EVENT_STREAM, maxPerAccount: config.eventStream.maxPerAccount, ...overrides.eventStream });
  countOpenStreams(eventStreams, metrics.registry);
  // The broker sinks every instance publishes to unless it or its account sets otherwise.
  const sinkDefaults = {
    ...(config.sinks.rabbitmq ? { rabbitmq: { enabled: true, ...config.sinks.rabbitmq } } : {}),
    ...(config.sinks.nats ? { nats: { enabled: true, ...config.sinks.nats } } : {}),
  };
  // Before the engine and the sender: they emit into it (outbox/pipeline.ts reads in the order events flow).
  const events = createEventPipeline({
    store,
    clock,
    log: log.child({ component: 'outbox' }),
    metrics,
    guard,
    allowHttp: config.webhookAllowHttp,
    tuning: { streamKeepMs: config.eventStream.retentionMs, ...overrides.outbox },
    stream: eventStreams,
    sinkDefaults,
    antiban: store.antiban,
    ...(cluster && owns ? { cluster: { store: engineStore, owns } } : {}),
  });
  const outbox = events.outbox;

  // Received media: files under the data dir, or in a bucket or the database every node shares
  // (media/select.ts); links signed with a key every node shares (in the store), served by any node.
  const mediaFiles = createMediaStore(config.mediaStore, config.dataDir, database.db);
  const mediaKey = Buffer.from(await store.secrets.getOrCreate('media-url-key', () => randomBytes(32).toString('base64'), clock.now()), 'base64');
  let listenUrl = `http://127.0.0.1:${config.port}`;
  const signer = new MediaUrlSigner(mediaKey, () => config.publicUrl ?? listenUrl);
  // Outgoing media: data URIs are stored once as files and queued by reference. In cluster mode they
  // are kept in the shared database instead: any node may be the one that sends them.
  const outgoingFiles = new OutgoingMediaStore(cluster ? new OutgoingBlobsRepo(database.db) : join(config.dataDir, 'outgoing-media'));
  const outgoingSweeper = new OutgoingMediaSweeper(store.messages, outgoingFiles, clock, log.child({ component: 'media' }), metrics);
  const mediaReleased = () => outgoingSweeper.soon();

  // The engine (sessions/wiring.ts): incoming 1:1 messages also tell the anti-ban strategy who is no stranger (outbox/pipeline.ts).
  // What the engine reports goes through a tap: committed received messages are shown to the opt-out watch.
  const received = new ReceivedTap(events.fromEngine);
  const { engine, reactions, ports } = buildEngine({
    config, withEngine: !overrides.sessions, tuning: overrides.engine, clock, log, metrics, store, engineStore, ownership: cluster?.node, events: received, guard,
    media: { files: mediaFiles, signer, outgoing: outgoingFiles },
  });
  const sessions: SessionsPort = overrides.sessions ?? engine ?? offlineSessions();
  // One FIFO lane per instance, sending through the engine's MessageTransport.
  const sender = engine
    ? new Sender({
        store: engineStore,
        transport: engine,
        events: events.fromSender,
        clock,
        log: log.child({ component: 'sender' }),
        metrics,
        options: { pacing: config.pacing, antiban: config.antiban },
        mediaReleased,
        ...(owns ? { owns } : {}),
      })
    : null;

  const routing: (ClusterRouting & { close?(): Promise<void> }) | null = overrides.clusterRouting ?? (cluster && config.cluster ? clusterRouting(cluster.node, config.cluster.secret, cluster.metrics, 2 * config.commandTimeoutMs + 10_000, clock) : null);
  if (engine) metrics.countSessionsWith(() => engine.sessionCounts());
  // Read at each scrape: what waits to be sent, and what waits to be delivered to webhooks.
  metrics.measureQueueWith(() => store.messages.countAllWaiting());
  metrics.measureWebhooksWith(() => store.deliveries.backlog(), () => clock.now());
  metrics.measureSinksWith(() => new Map([...outbox.brokers.health()].map(([kind, h]) => [kind, h.state === 'up'])), () => store.deliveries.sinkBacklog());
  // The use cases (services/index.ts), and the record the routes are built from (http/routes/index.ts).
  const services = createServices({
    config, clock, log, metrics, guard, store, engineStore, sessions, engine, ports, reactions, sender,
    events: events.fromSender,
    placement: cluster?.node ?? null,
    media: { files: mediaFiles, signer, outgoing: outgoingFiles, released: mediaReleased },
    deliveries: outbox.deliveries,
    sinks: { defaults: sinkDefaults, runtime: outbox.brokers },
    eventStreams,
    ...(overrides.phoneCheckJobs ? { phoneCheckJobs: overrides.phoneCheckJobs } : {}),
  });
  const { accounts, instances, messages, groups, phoneCheckJobs, optOuts, campaignRunner } = services;
  received.listen(optOuts.onReceived);
  metrics.measureNumbersWith(() => services.health.figures());
  const mediaSweeper = new MediaSweeper(store, mediaFiles, clock, log.child({ component: 'media' }), metrics);

  let draining = false;
  const http = await buildHttpServer({
    config,
    log,
    metrics,
    services,
    onClosing: () => eventStreams.closeAll(),
    clock,
    ...(routing ? { cluster: routing } : {}),
    async ready() {
      if (draining) return { ok: false, reason: 'draining' };
      if (cluster && !cluster.node.up) return { ok: false, reason: 'not an active cluster node' };
      return storeReadiness(database, ownerLockState, diskFull);
    },
  });

  return {
    config, clock, log, store, metrics, sessions, engine, sender, accounts, instances, messages, groups, http,
    events: outbox.sink,
    async listen() {
      await outbox.start();
      const address = await http.listen({ host: config.host, port: config.port });
      // After the HTTP server is ready (compiling every route's schemas can hold the event loop for
      // seconds on a busy machine): from the join on, the lease must be renewed every heartbeat.
      await cluster?.node.join();
      listenUrl = reachableUrl(http.server.address()) ?? listenUrl;
      mediaSweeper.start();
      outgoingSweeper.start();
      services.audit.startPruning(log.child({ component: 'audit' }));
      await applyAccountDeletions({ accounts, instances, sessions, mediaReleased, log, metrics, clock });
      await optOuts.load();
      // Lanes for every instance with messages waiting (in-flight ones are resent, same id).
      await sender?.start();
      // Running campaigns resume where the store says they are (only with an engine to send); in
      // cluster mode each node steps the numbers it owns, so the runner moves with the instance.
      if (sender) campaignRunner.start(owns);
      // Paired instances reconnect in the background; group creations left pending resume after.
      engine
        ?.start()
        .then(() => Promise.all([groups.resumePending(), phoneCheckJobs?.resume(owns)]))
        .catch((err: unknown) => log.error({ err }, 'restoring sessions failed'));
      // Cluster mode: what this node owns starts and stops as ownership moves (cluster/handover.ts).
      if (cluster && engine && sender && owns) {
        await cluster.node.start(instanceHandover({ sessions: engine, sender, outbox, groups, phoneCheckJobs, owns, log }));
      }
      return address;
    },
    async close() {
      draining = true;
      await accounts.unwatch();
      // Hands every instance over (sessions closed, writes committed) while requests still forward.
      await cluster?.node.leave();
      await http.close();
      // Opt-outs under way are recorded (and their confirmation queued) before the sender stops.
      await optOuts.idle();
      await campaignRunner.stop();
      // Before the engine and the outbox close: a send in progress may still settle and report.
      await sender?.stop();
      await store.messages.drain();
      await groups.idle();
      await phoneCheckJobs?.close();
      await engine?.close();
      await ports.close();
      await engine?.media.idle();
      await mediaSweeper.stop();
      await services.audit.stopPruning();
      await diskFull.stop();
      await outgoingSweeper.stop();
      await outbox.close();
      await guard.close();
      await routing?.close?.();
      await cluster?.database.close();
      mediaFiles.close?.();
      await database.close();
      await ownerLock.release();
    },
  };
}

/** Links name the port actually bound (0 in tests); a wildcard address is reached on loopback. */
function reachableUrl(bound: ReturnType<HttpServer['server']['address']>): string | null {
  if (!bound || typeof bound !== 'object') return null;
  const host = bound.family === 'IPv6' ? `[${bound.address === '::' ? '::1' : bound.address}]` : bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address;
  return `http://${host}:${bound.port}`;
}
