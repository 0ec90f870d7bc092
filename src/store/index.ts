// The store: one object holding every repository over one database handle.
import { AccountsRepo } from './accounts-repo.js';
import { AntibanRepo } from './antiban-repo.js';
import { ApiKeysRepo } from './api-keys-repo.js';
import { AuditRepo } from './audit-repo.js';
import { AuthRepo } from './auth-repo.js';
import { ChatsRepo } from './chats-repo.js';
import type { Database } from './database.js';
import { DeliveriesRepo } from './deliveries-repo.js';
import { EventsRepo, StreamEventsRepo } from './events-repo.js';
import { GroupsRepo } from './groups-repo.js';
import { InstancesRepo } from './instances-repo.js';
import { LabelsRepo } from './labels-repo.js';
import { GatewaySecretsRepo, MediaRepo } from './media-repo.js';
import { MessagesRepo } from './messages-repo.js';
import { PhoneChecksRepo } from './phone-checks-repo.js';
import { PhoneCheckJobsRepo } from './phone-check-jobs-repo.js';
import { SinksRepo } from './sinks-repo.js';
import { EventFiltersRepo } from './event-filters-repo.js';
import { EventPullRepo } from './event-pull-repo.js';
import { WaMessagesRepo } from './wa-messages-repo.js';
import { WebhooksRepo } from './webhooks-repo.js';

import { OptOutsRepo } from './opt-outs-repo.js';
import { CampaignsRepo } from './campaigns-repo.js';
import { HealthRepo } from './health-repo.js';
export interface Store {
  readonly database: Database;
  readonly accounts: AccountsRepo;
  readonly instances: InstancesRepo;
  readonly webhooks: WebhooksRepo;
  readonly messages: MessagesRepo;
  readonly groups: GroupsRepo;
  readonly events: EventsRepo;
  /** The outbox's events as the live event stream reads them. */
  readonly streamEvents: StreamEventsRepo;
  readonly antiban: AntibanRepo;
  readonly auth: AuthRepo;
  readonly waMessages: WaMessagesRepo;
  readonly phoneChecks: PhoneChecksRepo;
  readonly phoneCheckJobs: PhoneCheckJobsRepo;
  readonly deliveries: DeliveriesRepo;
  readonly media: MediaRepo;
  readonly secrets: GatewaySecretsRepo;
  /** The stored copy of the account: chats, contacts, recent messages (010). */
  readonly chats: ChatsRepo;
  /** A business account's labels and the chats they are on (014). */
  readonly labels: LabelsRepo;
  /** Each account's opt-out list and settings (021). */
  readonly optOuts: OptOutsRepo;
  /** Campaigns and their recipients (022). */
  readonly campaigns: CampaignsRepo;
  /** Broker sinks' settings per instance and account (023). */
  readonly sinks: SinksRepo;
  /** Event filters per instance and target; the pull API's ack positions (027). */
  readonly eventFilters: EventFiltersRepo;
  readonly eventPull: EventPullRepo;
  /** An account's API keys (024). */
  readonly apiKeys: ApiKeysRepo;
  /** The hash-chained audit trail (024). */
  readonly audit: AuditRepo;
  /** Number health: recent sends by outcome and disconnections (028). */
  readonly health: HealthRepo;
}

export function createStore(database: Database): Store {
  const { db } = database;
  return {
    database,
    accounts: new AccountsRepo(db, database.capabilities.name),
    instances: new InstancesRepo(db),
    webhooks: new WebhooksRepo(db),
    messages: new MessagesRepo(db, database),
    groups: new GroupsRepo(db),
    events: new EventsRepo(db),
    streamEvents: new StreamEventsRepo(db),
    antiban: new AntibanRepo(db),
    auth: new AuthRepo(db),
    waMessages: new WaMessagesRepo(db),
    phoneChecks: new PhoneChecksRepo(db),
    phoneCheckJobs: new PhoneCheckJobsRepo(db),
    deliveries: new DeliveriesRepo(db),
    sinks: new SinksRepo(db),
    eventFilters: new EventFiltersRepo(db),
    eventPull: new EventPullRepo(db),
    media: new MediaRepo(db),
    secrets: new GatewaySecretsRepo(db),
    chats: new ChatsRepo(db),
    labels: new LabelsRepo(db),
    optOuts: new OptOutsRepo(db),
    health: new HealthRepo(db),
    campaigns: new CampaignsRepo(db),
    apiKeys: new ApiKeysRepo(db),
    audit: new AuditRepo(db),
  };
}
