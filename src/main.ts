// The one place that wires config → store → sessions → services → http. Nothing else constructs
// long-lived components, so every dependency is visible here.
import type { Config } from './config.js';
import { systemClock, type Clock } from './clock.js';
import { createLogger, type Logger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { createAddressGuard, type AddressGuard } from './net/address-guard.js';
import { openDatabase, withSearchPath, type Database } from './store/database.js';
import { acquireOwnerLock } from './store/owner-lock.js';
import { privateDir } from './store/private-files.js';
import { createStore, type Store } from './store/index.js';
import { offlineSessions } from './sessions/offline-sessions.js';
import type { SessionsPort } from './sessions/port.js';
import { SessionManager, type SessionManagerDeps } from './sessions/manager.js';
import { wireAutoInvite } from './services/auto-invite.js';
import { installBaileysPatches } from './sessions/patches/index.js';
import { createEngines } from './sessions/engines.js';
import { Sender } from './sender/sender.js';
import { recordingInboundContacts } from './sender/inbound-contacts.js';
import { AccountsService } from './services/accounts-service.js';
import { InstancesService } from './services/instances-service.js';
import { MessagesService } from './services/messages-service.js';
import { QueueService } from './services/queue-service.js';
import { ContactsService } from './services/contacts-service.js';
import { DEFAULT_PHONE_CHECK_JOBS, PhoneCheckJobs, type PhoneCheckJobSettings } from './services/phone-check-jobs.js';
import { GroupsService } from './services/groups-service.js';
import { WebhooksService } from './services/webhooks-service.js';
import { buildHttpServer, type HttpServer } from './http/server.js';
import { webhookDeliveryRoutes } from './http/routes/webhook-deliveries.js';
import { accountEventStreamRoutes, instanceEventStreamRoutes } from './http/routes/event-stream.js';
import { statusHistoryRoutes } from './http/routes/status-history.js';
import { dashboardRoutes } from './http/dashboard/routes.js';
import { Gauge } from 'prom-client';
import { DEFAULT_EVENT_STREAM, EventStreamHub, type EventStreamSettings } from './services/event-stream.js';
import { StatusHistoryService } from './services/status-history.js';
import { createOutbox, type OutboxTuning } from './outbox/index.js';
import type { EventSink } from './events/types.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DirectoryMediaStore } from './media/store.js';
import { MediaUrlSigner } from './media/signed-urls.js';
import { MediaSweeper } from './media/sweeper.js';
import { MediaService } from './services/media-service.js';
import { OutgoingMediaStore } from './media/outgoing-store.js';
import { OutgoingMediaSweeper } from './media/outgoing-sweeper.js';
import { QueuedBytesQuota } from './services/queued-bytes-quota.js';
import { AccountReactions } from './sessions/families/account/account-reactions.js';
import { wireCallRejectReply } from './services/call-reject-reply.js';
import { AccountService } from './services/account-service.js';
import { PrivacyService } from './services/privacy-service.js';
import { accountRouteTree } from './http/routes/account-tree.js';
import { ChatsService } from './services/chats-service.js';
import { chatRouteTree } from './http/routes/chats.js';
import { GroupAdminService } from './services/group-admin-service.js';
import { PartnerService } from './services/partner-service.js';
import { groupAdminRouteTree } from './http/routes/group-admin.js';
import { CommunityService } from './services/community-service.js';
import { communityRouteTree } from './http/routes/communities.js';
import { NewsletterService } from './services/newsletter-service.js';
import { newsletterRouteTree } from './http/routes/newsletters.js';
import { CatalogService } from './services/catalog-service.js';
import { catalogRouteTree } from './http/routes/catalog.js';
import { ProxyService } from './services/proxy-service.js';
import { proxyRouteTree } from './http/routes/proxy.js';
import { historySyncRouteTree } from './http/routes/history-sync.js';
import { ClusterNode } from './cluster/node.js';
import { createClusterMetrics } from './cluster/metrics.js';
import { clusterRouting } from './cluster/routing.js';
import { ClusterRepo } from './store/cluster-repo.js';
import { installFenceTriggers } from './store/fence-triggers.js';
import { OutgoingBlobsRepo } from './store/outgoing-blobs-repo.js';
import { HistorySyncService } from './services/history-sync-service.js';
import { LabelSync } from './sessions/families/business/label-sync.js';
import { BusinessService } from './services/business-service.js';
import { businessRouteTree } from './http/routes/business.js';

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
  /** phone-exists-batch job settings (tests use small slices to see progress). */
  phoneCheckJobs?: Partial<PhoneCheckJobSettings>;
  /** Event stream settings (tests use a short heartbeat). */
  eventStream?: Partial<EventStreamSettings>;
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

  // One owner per data, taken before the database is opened or migrated (store/owner-lock.ts); the
  // data dir holds secrets, so it is private whatever the umask (store/private-files.ts).
  if (config.dataDir) privateDir(config.dataDir);
  const ownerLock = await acquireOwnerLock({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { pgConnectionString: withSearchPath(config.databaseUrl, overrides.pgSchema) } : {}),
    cluster: config.cluster !== null,
  });
  let ownerLockLost = false;
  ownerLock.onChange((held, err) => {
    ownerLockLost = !held;
    if (held) log.warn('the database owner lock is held again');
    else log.error({ err }, 'lost the database owner lock (its connection failed); not ready until it is held again');
  });

  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    sqliteThread: config.sqliteThread,
    ...(overrides.sqliteFile ? { sqliteFile: overrides.sqliteFile } : {}),
    ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
  });
  const store = createStore(database);
  const diskFull = watchDiskSpace(database, log);

  // Cluster mode (docs/cluster.md): this node's engine, sender and outbox write through connections
  // fenced with its incarnation, so a write made after another node took an instance over is
  // refused by the database. It joins (takes its lease) in listen(), once everything is built: the
  // lease is renewed from then on, and nothing heavy runs between the join and the first renewal.
  let cluster: { node: ClusterNode; database: Database; metrics: ReturnType<typeof createClusterMetrics> } | null = null;
  let engineStore: Store = store;
  if (config.cluster) {
    const settings = config.cluster;
    const fenced = await installFenceTriggers(database.db);
    log.debug({ tables: fenced.length }, 'cluster: instance tables fenced');
    let node: ClusterNode | null = null;
    const clusterMetrics = createClusterMetrics(metrics.registry, () => node?.ownedIds().length ?? 0);
    node = new ClusterNode({
      repo: new ClusterRepo(database.db),
      settings,
      log: log.child({ component: 'cluster' }),
      metrics: clusterMetrics,
      onFenced: () => fencedExit(),
    });
    const engineDatabase = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      ...(overrides.pgSchema ? { pgSchema: overrides.pgSchema } : {}),
      fence: { incarnation: node.incarnation, idleTxMs: settings.leaseMs },
      migrate: false,
      onError: (err) => {
        if ((err as { code?: unknown }).code === 'ZG001') clusterMetrics.fencingRefusal();
      },
    });
    engineStore = createStore(engineDatabase);
    cluster = { node, database: engineDatabase, metrics: clusterMetrics };
  }
  const owns = cluster ? (id: string) => cluster.node.owns(id) : undefined;
  /**
   * A node that lost its lease closes every WhatsApp socket at once (others may take its instances
   * now), then exits so that its supervisor starts a clean incarnation (exit code 75, "try again").
   */
  const fencedExit = (): void => {
    const exit = setTimeout(() => process.exit(75), 5_000);
    exit.unref();
    void (engine?.close() ?? Promise.resolve())
      .catch(() => undefined)
      .finally(() => process.exit(75));
  };
  const guard = overrides.guard ?? createAddressGuard({ allowHosts: config.allowHosts, allowHttp: config.webhookAllowHttp });
  // Streams read the outbox's events; the outbox wakes them when it commits some.
  const eventStreams = new EventStreamHub(store.streamEvents, { ...DEFAULT_EVENT_STREAM, maxPerAccount: config.eventStream.maxPerAccount, ...overrides.eventStream });
  new Gauge({
    name: 'zapgate_event_streams_open',
    help: 'Event streams (GET /events) open now',
    registers: [metrics.registry],
    collect() {
      this.set(eventStreams.open);
    },
  });
  // Before the engine and the sender: they emit into outbox.sink.
  const outbox = createOutbox({
    store,
    clock,
    log: log.child({ component: 'outbox' }),
    metrics,
    guard,
    allowHttp: config.webhookAllowHttp,
    tuning: { streamKeepMs: config.eventStream.retentionMs, ...overrides.outbox },
    onStored: (instanceIds) => eventStreams.notify(instanceIds),
    ...(cluster && owns ? { cluster: { store: engineStore, owns } } : {}),
  });

  // Received media: files under the data dir, links signed with a key every node shares (in the store).
  const mediaFiles = new DirectoryMediaStore(join(config.dataDir, 'media'));
  const mediaKey = Buffer.from(await store.secrets.getOrCreate('media-url-key', () => randomBytes(32).toString('base64'), clock.now()), 'base64');
  let listenUrl = `http://127.0.0.1:${config.port}`;
  const signer = new MediaUrlSigner(mediaKey, () => config.publicUrl ?? listenUrl);
  const mediaSettings = {
    limits: { maxBytes: config.receivedMedia.maxBytes, timeoutMs: config.receivedMedia.downloadTimeoutMs },
    retentionMs: config.receivedMedia.retentionMs,
    perInstance: config.receivedMedia.downloadsPerInstance,
    total: config.receivedMedia.downloads,
  };

  // Outgoing media: data URIs are stored once as files and queued by reference (hardening #1).
  // In cluster mode they are kept in the shared database instead: any node may be the one that sends them.
  const outgoingFiles = new OutgoingMediaStore(cluster ? new OutgoingBlobsRepo(database.db) : join(config.dataDir, 'outgoing-media'));
  const outgoingSweeper = new OutgoingMediaSweeper(store.messages, outgoingFiles, log.child({ component: 'media' }), metrics);
  const mediaReleased = () => outgoingSweeper.soon();

  // Baileys' process-wide patches (network root, signature checks, key pool, quiet libsignal).
  if (!overrides.sessions) installBaileysPatches({ waRootKey: config.waRootKey, log: log.child({ component: 'libsignal' }) });
  // Auto-read and call rejection, applied by every session from the instance's settings.
  const reactions = new AccountReactions({ store, log: log.child({ component: 'sessions' }), metrics, commandTimeoutMs: config.commandTimeoutMs });
  // Business accounts' labels: the store's copy is kept from the app-state sync.
  const labelSync = new LabelSync({ labels: store.labels, now: () => clock.now() });
  const engine = overrides.sessions
    ? null
    : new SessionManager({
        store: engineStore,
        clock,
        log,
        metrics,
        // Incoming 1:1 messages also tell the anti-ban strategy who is no stranger.
        events: recordingInboundContacts(outbox.sink, store.antiban, clock),
        guard,
        settings: { waUrl: config.waUrl, waRootKey: config.waRootKey, waMediaHost: config.waMediaHost, timeScale: config.timeScale, commandTimeoutMs: config.commandTimeoutMs, media: config.media },
        media: { store: mediaFiles, signer, settings: mediaSettings },
        outgoingMedia: outgoingFiles,
        reactions,
        chatRetention: config.chatRetention,
        labels: labelSync,
        ...(cluster ? { ownership: cluster.node } : {}),
        ...overrides.engine,
      });
  const sessions: SessionsPort = overrides.sessions ?? engine ?? offlineSessions();
  // One FIFO lane per instance, sending through the engine's MessageTransport.
  const sender = engine
    ? new Sender({
        store: engineStore,
        transport: engine,
        events: outbox.sink,
        clock,
        log: log.child({ component: 'sender' }),
        metrics,
        options: { pacing: config.pacing, antiban: config.antiban },
        mediaReleased,
        ...(owns ? { owns } : {}),
      })
    : null;

  const accounts = new AccountsService(store, clock);
  const instances = new InstancesService(store, sessions, clock, 2_000, config.quotas.maxInstancesPerAccount, sender);
  if (cluster) instances.useCluster(cluster.node);
  const routing = cluster && config.cluster ? clusterRouting(cluster.node, config.cluster.secret, cluster.metrics, 2 * config.commandTimeoutMs + 10_000) : null;
  instances.onDeleted(mediaReleased);
  const messages = new MessagesService(store, sessions, clock, {
    queueMaxDisconnected: config.queueMaxDisconnected,
    media: config.media,
    outgoingMedia: outgoingFiles,
    quota: new QueuedBytesQuota(store, clock, config.quotas.maxQueuedBytesPerAccount),
    mediaReleased,
  });
  if (sender) messages.onEnqueued((instanceId) => sender.notify(instanceId));
  // Counter children per content type, made once (the enqueue path is measured by bench/enqueue).
  const enqueued = new Map<string, { inc(): void }>();
  messages.onEnqueued((_instanceId, kind) => {
    let child = enqueued.get(kind);
    if (!child) enqueued.set(kind, (child = metrics.messagesEnqueued.labels(kind)));
    child.inc();
  });
  if (engine) metrics.countSessionsWith(() => engine.sessionCounts());
  // Read at each scrape: what waits to be sent, and what waits to be delivered to webhooks.
  metrics.measureQueueWith(() => store.messages.countAllWaiting());
  metrics.measureWebhooksWith(() => store.deliveries.backlog(), () => clock.now());
  const queue = new QueueService(store, mediaReleased);
  const phoneCheckJobs = engine ? new PhoneCheckJobs(store.phoneCheckJobs, sessions, clock, log.child({ component: 'contacts' }), { ...DEFAULT_PHONE_CHECK_JOBS, ...overrides.phoneCheckJobs }) : undefined;
  const contacts = new ContactsService(sessions, phoneCheckJobs, config.phoneCheckSyncMax);
  const groups = new GroupsService(store, sessions, clock, log.child({ component: 'groups' }), config.createGroupWaitMs);
  const webhooks = new WebhooksService(store, guard, clock);
  const media = new MediaService(store.media, mediaFiles, signer, engine ? engine.media : null, clock);
  const mediaSweeper = new MediaSweeper(store, mediaFiles, clock, log.child({ component: 'media' }), metrics);
  if (engine) wireAutoInvite(groups, engine, messages, store, log.child({ component: 'groups' }), metrics);
  if (engine) wireCallRejectReply(reactions, messages, store, log.child({ component: 'sessions' }), metrics);
  // The feature engines (one port per family), or their offline null objects without an engine.
  const engines = createEngines(engine, {
    commandTimeoutMs: config.commandTimeoutMs,
    guard,
    media: config.media,
    reactions,
    labels: labelSync,
    // Product images come from the network's CDN (the test network's media host and CA when set).
    cdn: { mediaHost: config.waMediaHost, ca: overrides.engine?.mediaAgent?.options.ca },
    log: log.child({ component: 'business' }),
    metrics,
  });
  const account = new AccountService(store, sessions, engines.account, (id) => instances.invalidate(id));
  const privacy = new PrivacyService(engines.account);
  // Chats and contacts: the stored copy the engine feeds, chat changes through the engine.
  const chats = new ChatsService(store.chats, sessions, engines.chats, clock);
  const partner = new PartnerService(store, instances, webhooks, account, guard);
  const proxies = new ProxyService(store, guard, sessions, (id) => instances.invalidate(id));
  const historySync = new HistorySyncService(store, (id) => instances.invalidate(id));
  const groupAdmin = new GroupAdminService(engines.groupAdmin, sessions, groups, store.chats, messages, () => clock.now());
  const communities = new CommunityService(engines.communities, engines.groupAdmin, sessions, groups, messages);
  const newsletters = new NewsletterService(engines.newsletters, sessions, messages);
  const business = new BusinessService(engines.business, sessions, store.labels);
  const catalog = new CatalogService(engines.catalog, messages);

  let draining = false;
  let accountPollErrorAt = 0;
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
    partner,
    media,
    extraInstanceRoutes: [
      webhookDeliveryRoutes(outbox.deliveries),
      accountRouteTree(account, privacy, config.mediaBodyLimit),
      chatRouteTree(chats),
      proxyRouteTree(proxies),
      groupAdminRouteTree(groupAdmin, communities, config.mediaBodyLimit),
      communityRouteTree(communities),
      newsletterRouteTree(newsletters, config.mediaBodyLimit),
      businessRouteTree(business),
      catalogRouteTree(catalog, config.mediaBodyLimit),
      historySyncRouteTree(historySync),
      instanceEventStreamRoutes(eventStreams),
      statusHistoryRoutes(new StatusHistoryService(store.instances)),
    ],
    extraAccountRoutes: [accountEventStreamRoutes(eventStreams)],
    extraPublicRoutes: [dashboardRoutes()],
    onClosing: () => eventStreams.closeAll(),
    now: () => clock.now(),
    ...(routing ? { cluster: routing } : {}),
    async ready() {
      if (draining) return { ok: false, reason: 'draining' };
      if (cluster && !cluster.node.up) return { ok: false, reason: 'not an active cluster node' };
      if (ownerLockLost) return { ok: false, reason: 'database owner lock lost' };
      if (await diskFull.stillFull()) return { ok: false, reason: 'disk full' };
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
      // After the HTTP server is ready (compiling every route's schemas can hold the event loop for
      // seconds on a busy machine): from the join on, the lease must be renewed every heartbeat.
      await cluster?.node.join();
      // Links name the port actually bound (0 in tests); a wildcard address is reached on loopback.
      const bound = http.server.address();
      if (bound && typeof bound === 'object') listenUrl = `http://${bound.family === 'IPv6' ? `[${bound.address === '::' ? '::1' : bound.address}]` : bound.address === '0.0.0.0' ? '127.0.0.1' : bound.address}:${bound.port}`;
      mediaSweeper.start();
      outgoingSweeper.start();
      // Account rotations and deletions made by the CLI (another process) apply here within 100 ms.
      await accounts.watch(
        async (instanceIds) => {
          for (const id of instanceIds) {
            instances.invalidate(id);
            await sessions.remove(id).catch((err: unknown) => log.warn({ err, instanceId: id }, 'closing the session of a deleted account'));
          }
          mediaReleased();
          log.info({ instances: instanceIds.length }, 'account deleted: its sessions are closed');
        },
        100,
        (err) => {
          // Polled every 100 ms: a database that is down is said once a minute, not ten times a second.
          metrics.loggedFailures.inc({ component: 'accounts' });
          if (Date.now() - accountPollErrorAt < 60_000) return;
          accountPollErrorAt = Date.now();
          log.error({ err }, 'reading account changes failed');
        },
      );
      // Lanes for every instance with messages waiting (in-flight ones are resent, same id).
      await sender?.start();
      // Paired instances reconnect in the background; group creations left pending resume after.
      engine
        ?.start()
        .then(() => Promise.all([groups.resumePending(), phoneCheckJobs?.resume(owns)]))
        .catch((err: unknown) => log.error({ err }, 'restoring sessions failed'));
      // Cluster mode: what this node owns starts and stops as ownership moves (cluster/node.ts).
      if (cluster && engine && sender) {
        const e = engine;
        const snd = sender;
        await cluster.node.start({
          async acquire(id) {
            await e.acquire(id);
            snd.acquire(id);
            await outbox.acquire(id);
            void phoneCheckJobs?.resume(owns).catch((err: unknown) => log.warn({ err, instanceId: id }, 'resuming phone-check jobs failed'));
          },
          async release(id) {
            await snd.release(id);
            await e.release(id);
            await outbox.release(id);
          },
          // Every heartbeat: deliveries committed elsewhere, and group creations of acquired instances
          // (pending when their previous owner died) once their sessions are connected.
          tick: () => Promise.all([outbox.rescan(), groups.resumePending()]).then(() => undefined),
        });
      }
      return address;
    },
    async close() {
      draining = true;
      await accounts.unwatch();
      // Hands every instance over (sessions closed, writes committed) while requests still forward.
      await cluster?.node.leave();
      await http.close();
      // Before the engine and the outbox close: a send in progress may still settle and report.
      await sender?.stop();
      await store.messages.drain();
      await groups.idle();
      await phoneCheckJobs?.close();
      await engine?.close();
      await engines.close();
      await engine?.media.idle();
      mediaSweeper.stop();
      diskFull.stop();
      await outgoingSweeper.stop();
      await outbox.close();
      await guard.close();
      await routing?.close();
      await cluster?.database.close();
      await database.close();
      await ownerLock.release();
    },
  };
}

/** How often a disk-full episode is probed with a small write, so readiness recovers by itself. */
const DISK_PROBE_MS = 2_000;

/**
 * Logs each disk-full episode once (when it starts and when it ends) and, while it lasts, probes
 * with a small write every DISK_PROBE_MS and on each readiness check (at most one probe at a time):
 * a load balancer stops sending writes to a node that is not ready, so something else must write.
 */
function watchDiskSpace(database: Database, log: Logger): { stillFull(): Promise<boolean>; stop(): void } {
  let timer: NodeJS.Timeout | null = null;
  let probing: Promise<void> | null = null;
  const probe = (): Promise<void> =>
    (probing ??= database
      .probeWrite()
      .catch(() => undefined) // still full (or another failure the next real write will report)
      .finally(() => (probing = null)));
  database.storage.onChange((full, cause) => {
    if (full) {
      const detail = cause instanceof Error ? cause.message : String(cause);
      log.error({ detail }, 'disk full: writes fail (HTTP 507) until space is freed; nothing already accepted is lost');
      timer ??= setInterval(() => void probe(), DISK_PROBE_MS).unref();
    } else {
      log.warn('disk space is available again: writes succeed');
      if (timer) clearInterval(timer);
      timer = null;
    }
  });
  return {
    async stillFull() {
      if (!database.storage.full) return false;
      await probe();
      return database.storage.full;
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
