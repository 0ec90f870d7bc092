// The feature engines over the session manager, one port per family (account, chats, group
// administration, communities, channels, business, catalog), or each family's offline null object
// when the process runs without an engine (overrides in tests): the one place that builds them.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { AddressGuard } from '../net/address-guard.js';
import type { MediaLimits } from '../convert/limits.js';
import { AccountEngine } from './families/account/account-engine.js';
import { offlineAccount, type AccountPort } from './families/account/account-port.js';
import type { AccountReactions } from './families/account/account-reactions.js';
import { BusinessEngine } from './families/business/business-engine.js';
import { offlineBusiness, type BusinessPort } from './families/business/business-port.js';
import { CatalogEngine } from './families/catalog/catalog-engine.js';
import { offlineCatalog, type CatalogPort } from './families/catalog/catalog-port.js';
import { ChatsEngine } from './families/chats/chats-engine.js';
import { offlineChats, type ChatsPort } from './families/chats/chats-port.js';
import { CommunityEngine } from './families/community/community-engine.js';
import { offlineCommunities, type CommunityPort } from './families/community/community-port.js';
import { GroupAdminEngine } from './families/group-admin/group-admin-engine.js';
import { offlineGroupAdmin, type GroupAdminPort } from './families/group-admin/group-admin-port.js';
import { historyDispatcher, type HistoryDownloadSettings } from './inbound/history-download.js';
import type { LabelSync } from './families/business/label-sync.js';
import type { SessionManager } from './manager.js';
import { mediaPipeline } from './outbound/media.js';
import { NewsletterEngine } from './families/newsletter/newsletter-engine.js';
import { offlineNewsletters, type NewsletterPort } from './families/newsletter/newsletter-port.js';

export interface EngineFamiliesSettings {
  /** Times the commands' guards (engine-call.ts) and stamps what the engines write. */
  clock: Clock;
  commandTimeoutMs: number;
  /** Fetches profile, group, channel and product pictures (address guard). */
  guard: AddressGuard;
  /** Limits of those pictures (ZAPGATE_MEDIA_*). */
  media?: MediaLimits | undefined;
  reactions: AccountReactions;
  labels: LabelSync;
  /** The network's CDN for product images: its media host and CA (a test network's); WhatsApp's when unset. */
  cdn: HistoryDownloadSettings;
  /** Logs a failed label sync at login. */
  log: Logger;
  metrics: Metrics;
}

export interface EngineFamilies {
  account: AccountPort;
  chats: ChatsPort;
  groupAdmin: GroupAdminPort;
  communities: CommunityPort;
  newsletters: NewsletterPort;
  business: BusinessPort;
  catalog: CatalogPort;
  /** Releases what the engines hold (the catalog CDN's connections). */
  close(): Promise<void>;
}

export function createEngines(manager: SessionManager | null, settings: EngineFamiliesSettings): EngineFamilies {
  if (!manager) {
    return {
      account: offlineAccount(),
      chats: offlineChats(),
      groupAdmin: offlineGroupAdmin(),
      communities: offlineCommunities(),
      newsletters: offlineNewsletters(),
      business: offlineBusiness(),
      catalog: offlineCatalog(),
      close: async () => {},
    };
  }
  const { clock, commandTimeoutMs } = settings;
  const sessionOf = (id: string) => manager.sessionOf(id);
  // Pictures go through a media pipeline of their own (same guard and limits, its own slots):
  // they are rare, and must not wait behind a queue of video conversions.
  const media = mediaPipeline(settings.guard, settings.media);
  const business = new BusinessEngine({ sessionOf, labels: settings.labels, clock, commandTimeoutMs });
  syncLabelsAtLogin(manager, business, settings.log, settings.metrics);
  const cdn = historyDispatcher(settings.cdn);
  return {
    account: new AccountEngine({ sessionOf, media, reactions: settings.reactions, clock, commandTimeoutMs }),
    chats: new ChatsEngine({ sessionOf, checkPhones: (id, phones) => manager.checkPhones(id, phones), clock, commandTimeoutMs }),
    groupAdmin: new GroupAdminEngine({ sessionOf, media, clock, commandTimeoutMs }),
    communities: new CommunityEngine({ sessionOf, clock, commandTimeoutMs }),
    newsletters: new NewsletterEngine({ sessionOf, media, clock, commandTimeoutMs }),
    business,
    catalog: new CatalogEngine({ sessionOf, media, clock, commandTimeoutMs, cdn }),
    close: async () => {
      await cdn?.close().catch(() => undefined);
    },
  };
}

/** At each login, a business account's labels are brought up to date from its phone. */
function syncLabelsAtLogin(manager: SessionManager, business: BusinessEngine, log: Logger, metrics: Metrics): void {
  manager.onConnectionChange((instanceId, connected) => {
    if (!connected) return;
    business.syncLabels(instanceId).catch((err: unknown) => {
      metrics.loggedFailures.inc({ component: 'sessions' });
      log.warn({ err, instanceId }, 'syncing the labels at login failed (the next change announced by the phone brings them)');
    });
  });
}
