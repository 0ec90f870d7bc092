// The one list of route plugins (one per tag, or a tag's part), per scope: public (no token),
// account (Client-Token) and instance (Client-Token, then the instance's id and token in the path).
// server.ts registers each list in its scope, in this order, and the OpenAPI document lists the
// paths in that order. Adding a tag: its route file and one line here (and, for a new service, one
// line in services/index.ts, which builds the record these lists are made from).
//
// The imports keep the order in which the modules were first evaluated: named response models
// (schemas/common.ts `named`) are listed in /docs in the order their modules define them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Metrics } from '../../metrics.js';
import type { Services } from '../../services/index.js';
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
import { numberHealthRoutes } from './number-health.js';
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
import { optOutRoutes } from './opt-outs.js';
import { campaignRoutes } from './campaigns.js';
import { accountSinkRoutes, instanceSinkRoutes } from './sinks.js';
import { eventFilterRoutes } from './event-filters.js';
import { eventPullRoutes } from './event-pull.js';
import { keyRoutes } from './keys.js';
import { auditRoutes } from './audit.js';

/** Every service the HTTP layer calls, by the name the routes know it by (built in services/index.ts). */
export type HttpServices = Services;

/** What the routes take besides services: the media upload limit and the operators' endpoints. */
export interface RouteSettings {
  /** Body limit of the routes that take media inline (ZAPGATE_MEDIA_BODY_LIMIT). */
  mediaBodyLimit: number;
  metrics: Metrics;
  /** /readyz: whether this node should be sent traffic. */
  ready(): Promise<{ ok: boolean; reason?: string }>;
}

/** A route plugin, as server.ts registers it in its scope. */
export type RoutePlugin = FastifyPluginAsyncTypebox;

export interface RouteLists {
  readonly public: readonly RoutePlugin[];
  readonly account: readonly RoutePlugin[];
  readonly instance: readonly RoutePlugin[];
}

export function routeLists(s: HttpServices, { mediaBodyLimit, metrics, ready }: RouteSettings): RouteLists {
  return {
    // No token: operators' probes (/livez, /readyz, /metrics), signed media links, the dashboard's files.
    public: [
      opsRoutes({ metrics, ready, sinkHealth: () => s.sinks.health() }),
      mediaRoutes(s.media),
      dashboardRoutes(),
    ],
    // Client-Token: the account's instances, and its event stream.
    account: [
      accountInstanceRoutes(s.instances, s.partner),
      accountEventStreamRoutes(s.eventStreams),
      optOutRoutes(s.optOuts),
      campaignRoutes(s.campaigns),
      accountSinkRoutes(s.sinks),
      keyRoutes(s.apiKeys),
      auditRoutes(s.audit),
    ],
    // Client-Token, then the instance's id and token in the path.
    instance: [
      instanceRoutes(s.instances),
      messageRoutes({ messages: s.messages, catalog: s.catalog, mediaBodyLimit }),
      statusRoutes(s.messages, mediaBodyLimit),
      contactRoutes(s.contacts),
      groupRoutes(s.groups),
      queueRoutes(s.queue, s.instances),
      webhookRoutes(s.webhooks, s.instances),
      webhookDeliveryRoutes(s.deliveries),
      instanceSinkRoutes(s.sinks),
      eventFilterRoutes(s.eventFilters),
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
      eventPullRoutes(s.eventPull),
      statusHistoryRoutes(s.statusHistory),
      numberHealthRoutes(s.health),
    ],
  };
}
