// The use cases, built in one place from the store, the engine's ports and the sender: the record
// http/routes/index.ts turns into routes. Reactions between services (an invite link queued after a
// group creation, a reply to a rejected call) are wired here too, so one
// file names every edge between them.
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { AddressGuard } from '../net/address-guard.js';
import type { MediaStore } from '../media/store.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import type { OutgoingMediaStore } from '../media/outgoing-store.js';
import type { WebhookDeliveriesService } from '../outbox/replay.js';
import type { Sender } from '../sender/sender.js';
import type { AccountReactions } from '../sessions/families/account/account-reactions.js';
import type { EngineFamilies } from '../sessions/engines.js';
import type { SessionManager } from '../sessions/manager.js';
import type { SessionsPort } from '../sessions/port.js';
import type { Store } from '../store/index.js';
import type { EventSink } from '../events/types.js';
import { AccountService } from './account-service.js';
import { AccountsService } from './accounts-service.js';
import { ApiKeysService } from './api-keys-service.js';
import { AuditService } from './audit-service.js';
import { wireAutoInvite } from './auto-invite.js';
import { BusinessService } from './business-service.js';
import { wireCallRejectReply } from './call-reject-reply.js';
import { CatalogService } from './catalog-service.js';
import { ChatsService } from './chats-service.js';
import { CommunityService } from './community-service.js';
import { ContactsService } from './contacts-service.js';
import type { EventStreamHub } from './event-stream.js';
import { GroupAdminService } from './group-admin-service.js';
import { GroupsService } from './groups-service.js';
import { HistorySyncService } from './history-sync-service.js';
import { InstancesService, type InstancePlacement } from './instances-service.js';
import { MediaService } from './media-service.js';
import { MessagesService } from './messages-service.js';
import { NewsletterService } from './newsletter-service.js';
import { PartnerService } from './partner-service.js';
import { DEFAULT_PHONE_CHECK_JOBS, PhoneCheckJobs, type PhoneCheckJobSettings } from './phone-check-jobs.js';
import { PrivacyService } from './privacy-service.js';
import { ProxyService } from './proxy-service.js';
import { QueueService } from './queue-service.js';
import { QueuedBytesQuota } from './queued-bytes-quota.js';
import { StatusHistoryService } from './status-history.js';
import { WebhooksService } from './webhooks-service.js';

import { OptOutsService } from './opt-outs-service.js';
import { CampaignsService } from './campaigns-service.js';
import { CampaignRunner } from './campaign-runner.js';
import { CampaignEvents } from './campaign-events.js';
import { HealthService } from './health-service.js';
/** The engine's feature ports (offline null objects without an engine), built by sessions/engines.ts. */
type FeaturePorts = Omit<EngineFamilies, 'close'>;

interface ServicesDeps {
  config: Config;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  guard: AddressGuard;
  store: Store;
  /** What the engine and the sender write through: in cluster mode fenced, so a node that lost an instance cannot queue its campaign messages. */
  engineStore: Store;
  sessions: SessionsPort;
  /** The Baileys engine (null when tests replaced it): what only it does (media fetches, group reports). */
  engine: SessionManager | null;
  ports: FeaturePorts;
  /** Auto-read and call rejection (a rejected call may be answered with a message). */
  reactions: AccountReactions;
  /** Who sends what is queued, and applies update-antiban live (null: no engine). */
  sender: Sender | null;
  /** Where the services' own events go (a queued message cancelled by a delete). */
  events: EventSink;
  /** Cluster mode: new instances get an owner at once. */
  placement: InstancePlacement | null;
  media: { files: MediaStore; signer: MediaUrlSigner; outgoing: OutgoingMediaStore; released(): void };
  deliveries: WebhookDeliveriesService;
  /** The outbox's broker sinks: their defaults, health, and the cache to forget after a change. */
  sinks: { defaults: Partial<Record<SinkKind, SinkSettings>>; runtime: SinkRuntime };
  eventStreams: EventStreamHub;
  phoneCheckJobs?: Partial<PhoneCheckJobSettings>;
}

import { SinksService, type SinkRuntime } from './sinks-service.js';
import { EventFiltersService } from './event-filters-service.js';
import { EventPullService } from './event-pull.js';
import type { SinkKind, SinkSettings } from '../domain/event-sink.js';

export function createServices(deps: ServicesDeps) {
  const { config, clock, log, metrics, guard, store, sessions, engine, ports, media } = deps;
  const accounts = new AccountsService(store, clock);
  // Keys drop their cache whenever the account change log moves (a key revoked or rotated on any node).
  const apiKeys = new ApiKeysService(store, clock);
  accounts.onChange(() => apiKeys.forget());
  const audit = new AuditService(store, clock, config.auditRetentionDays);
  const instances = new InstancesService({ store, sessions, clock, maxPerAccount: config.quotas.maxInstancesPerAccount, liveAntiban: deps.sender, cluster: deps.placement, mediaReleased: media.released });
  const quota = new QueuedBytesQuota(store, clock, config.quotas.maxQueuedBytesPerAccount);
  const optOuts = new OptOutsService({ store, clock, log: log.child({ component: 'campaigns' }), metrics });
  const messages = new MessagesService({ store, sessions, clock, queue: deps.sender, events: deps.events, metrics, queueMaxDisconnected: config.queueMaxDisconnected, media: config.media, outgoingMedia: media.outgoing, quota, mediaReleased: media.released, optOuts });
  // An opt-out keyword is answered with the account's confirmation, queued like any message.
  optOuts.attachSender(messages);
  // Reported by the node that owns each number, through the (in cluster mode fenced) outbox.
  const campaignEvents = new CampaignEvents({ events: deps.events, store: { campaigns: deps.engineStore.campaigns, instances: store.instances }, log: log.child({ component: 'campaigns' }) });
  const campaigns = new CampaignsService(store, clock);
  const campaignRunner = new CampaignRunner({ store: { campaigns: deps.engineStore.campaigns, optOuts: store.optOuts, antiban: store.antiban, instances: store.instances }, clock, log: log.child({ component: 'campaigns' }), metrics, queue: deps.sender, events: campaignEvents });
  const phoneCheckJobs = engine ? new PhoneCheckJobs(store.phoneCheckJobs, sessions, clock, log.child({ component: 'contacts' }), { ...DEFAULT_PHONE_CHECK_JOBS, ...deps.phoneCheckJobs }) : undefined;
  const groups = new GroupsService(store, sessions, clock, log.child({ component: 'groups' }), config.createGroupWaitMs);
  const webhooks = new WebhooksService(store, guard, clock);
  const invalidate = (id: string): void => instances.invalidate(id);
  const account = new AccountService(store, sessions, ports.account, invalidate);
  const communities = new CommunityService(ports.communities, ports.groupAdmin, sessions, groups, messages);
  const mediaService = new MediaService(store.media, media.files, media.signer, engine ? engine.media : null, clock, deps.placement ? (id) => deps.placement!.owns(id) : null);

  if (engine) wireAutoInvite(groups, engine, messages, store, log.child({ component: 'groups' }), metrics);
  if (engine) wireCallRejectReply(deps.reactions, messages, store, log.child({ component: 'sessions' }), metrics);

  return {
    accounts,
    apiKeys,
    audit,
    instances,
    messages,
    /** Opt-out lists and settings; its `onReceived` watches committed received messages (main.ts). */
    optOuts,
    campaigns,
    /** Not a route's: started and stopped by main.ts (queues campaign messages). */
    campaignRunner,
    groups,
    webhooks,
    account,
    communities,
    /** Not a route's: resumed at start-up and on hand-over, closed at shutdown (undefined: no engine). */
    phoneCheckJobs,
    queue: new QueueService(store, clock, media.released, deps.events),
    contacts: new ContactsService(sessions, phoneCheckJobs, config.phoneCheckSyncMax),
    deliveries: deps.deliveries,
    sinks: new SinksService(store.sinks, guard, clock, deps.sinks.defaults, deps.sinks.runtime),
    eventStreams: deps.eventStreams,
    eventFilters: new EventFiltersService(store.eventFilters, clock),
    eventPull: new EventPullService(store.eventPull, deps.eventStreams, clock),
    media: mediaService,
    partner: new PartnerService(store, instances, webhooks, account, guard),
    privacy: new PrivacyService(ports.account),
    // Chats and contacts: the stored copy the engine feeds, chat changes through the engine.
    chats: new ChatsService(store.chats, sessions, ports.chats, clock, mediaService),
    proxies: new ProxyService(store, guard, sessions, invalidate),
    historySync: new HistorySyncService(store, invalidate),
    groupAdmin: new GroupAdminService(ports.groupAdmin, sessions, groups, store.chats, messages, () => clock.now()),
    newsletters: new NewsletterService(ports.newsletters, sessions, messages),
    business: new BusinessService(ports.business, sessions, store.labels),
    catalog: new CatalogService(ports.catalog, messages),
    statusHistory: new StatusHistoryService(store.instances),
    /** Number health: GET …/health and the per-instance metrics (main.ts). */
    health: new HealthService(store, clock, config.antiban),
  };
}

/** Every service, by the name the routes know it by (http/routes/index.ts). */
export type Services = ReturnType<typeof createServices>;
