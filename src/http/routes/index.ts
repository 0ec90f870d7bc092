// The one list of route plugins (one per tag, or a tag's part), per scope: public (no token),
// account (Client-Token) and instance (Client-Token, then the instance's id and token in the path).
// server.ts registers each list in its scope, in this order, and the OpenAPI document lists the
// paths in that order. Adding a tag: its route file, its service in HttpServices, one line here.
//
// The imports keep the order in which the modules were first evaluated: named response models
// (schemas/common.ts `named`) are listed in /docs in the order their modules define them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../metrics.js';
import type { AccountService } from '../../services/account-service.js';
import type { AccountsService } from '../../services/accounts-service.js';
import type { BusinessService } from '../../services/business-service.js';
import type { CatalogService } from '../../services/catalog-service.js';
import type { ChatsService } from '../../services/chats-service.js';
import type { CommunityService } from '../../services/community-service.js';
import type { ContactsService } from '../../services/contacts-service.js';
import type { EventStreamHub } from '../../services/event-stream.js';
import type { GroupAdminService } from '../../services/group-admin-service.js';
import type { GroupsService } from '../../services/groups-service.js';
import type { HistorySyncService } from '../../services/history-sync-service.js';
import type { InstancesService } from '../../services/instances-service.js';
import type { MediaService } from '../../services/media-service.js';
import type { MessagesService } from '../../services/messages-service.js';
import type { NewsletterService } from '../../services/newsletter-service.js';
import type { PartnerService } from '../../services/partner-service.js';
import type { PrivacyService } from '../../services/privacy-service.js';
import type { ProxyService } from '../../services/proxy-service.js';
import type { QueueService } from '../../services/queue-service.js';
import type { StatusHistoryService } from '../../services/status-history.js';
import type { WebhooksService } from '../../services/webhooks-service.js';
import type { WebhookDeliveriesService } from '../../outbox/replay.js';
import { accountInstanceRoutes, instanceRoutes } from './instances.js';
import { messageRoutes } from './messages.js';
import { statusRoutes } from './status.js';
import { contactRoutes } from './contacts.js';
import { groupRoutes } from './groups.js';
import { queueRoutes } from './queue.js';
import { webhookRoutes } from './webhooks.js';
import { opsRoutes } from './ops.js';
import { mediaRoutes } from './media.js';
import { webhookDeliveryRoutes } from './webhook-deliveries.js';
import { accountEventStreamRoutes, instanceEventStreamRoutes } from './event-stream.js';
import { statusHistoryRoutes } from './status-history.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { accountRouteTree } from './account-tree.js';
import { chatRouteTree } from './chats.js';
import { groupAdminRouteTree } from './group-admin.js';
import { communityRouteTree } from './communities.js';
import { newsletterRouteTree } from './newsletters.js';
import { catalogRouteTree } from './catalog.js';
import { proxyRouteTree } from './proxy.js';
import { historySyncRouteTree } from './history-sync.js';
import { businessRouteTree } from './business.js';

/** Every service the HTTP layer calls, by the name the routes know it by. */
export interface HttpServices {
  accounts: AccountsService;
  instances: InstancesService;
  partner: PartnerService;
  messages: MessagesService;
  queue: QueueService;
  contacts: ContactsService;
  groups: GroupsService;
  webhooks: WebhooksService;
  deliveries: WebhookDeliveriesService;
  media: MediaService;
  account: AccountService;
  privacy: PrivacyService;
  chats: ChatsService;
  proxies: ProxyService;
  groupAdmin: GroupAdminService;
  communities: CommunityService;
  newsletters: NewsletterService;
  business: BusinessService;
  catalog: CatalogService;
  historySync: HistorySyncService;
  eventStreams: EventStreamHub;
  statusHistory: StatusHistoryService;
}

/** What the routes take besides services: the media upload limit and the operators' endpoints. */
export interface RouteSettings {
  /** Body limit of the routes that take media inline (ZAPGATE_MEDIA_BODY_LIMIT). */
  mediaBodyLimit: number;
  metrics: Metrics;
  /** /readyz: whether this node should be sent traffic. */
  ready(): Promise<{ ok: boolean; reason?: string }>;
}

/** A route plugin as server.ts registers it (each module builds it with its own type provider). */
export type RoutePlugin = FastifyPluginAsyncTypebox;

export interface RouteLists {
  readonly public: readonly RoutePlugin[];
  readonly account: readonly RoutePlugin[];
  readonly instance: readonly RoutePlugin[];
}

export function routeLists(s: HttpServices, { mediaBodyLimit, metrics, ready }: RouteSettings): RouteLists {
  return {
    public: [
      opsRoutes({ metrics, ready }),
      mediaRoutes(s.media),
      dashboardRoutes(),
    ],
    account: [
      accountInstanceRoutes(s.instances, s.partner),
      accountEventStreamRoutes(s.eventStreams),
    ],
    instance: [
      instanceRoutes(s.instances),
      messageRoutes({ messages: s.messages, mediaBodyLimit }),
      statusRoutes(s.messages, mediaBodyLimit),
      contactRoutes(s.contacts),
      groupRoutes(s.groups),
      queueRoutes(s.queue, s.instances),
      webhookRoutes(s.webhooks, s.instances),
      webhookDeliveryRoutes(s.deliveries),
      accountRouteTree(s.account, s.privacy, mediaBodyLimit),
      chatRouteTree(s.chats),
      proxyRouteTree(s.proxies),
      groupAdminRouteTree(s.groupAdmin, s.communities, mediaBodyLimit),
      communityRouteTree(s.communities),
      newsletterRouteTree(s.newsletters, mediaBodyLimit),
      businessRouteTree(s.business),
      catalogRouteTree(s.catalog, mediaBodyLimit),
      historySyncRouteTree(s.historySync),
      instanceEventStreamRoutes(s.eventStreams),
      statusHistoryRoutes(s.statusHistory),
    ],
  };
}
