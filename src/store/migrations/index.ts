// Numbered migrations, applied in order. Each file says what it changes and why.
import { migration001Core } from './001-core.js';
import { migration002Engine } from './002-engine.js';
import { migration003Webhooks } from './003-webhooks.js';
import { migration004Sender } from './004-sender.js';
import { migration005Receiving } from './005-receiving.js';
import { migration006Sending } from './006-sending.js';
import { migration007SendKinds } from './007-send-kinds.js';
import { migration008Quotas } from './008-quotas.js';
import { migration009AccountSettings } from './009-account-settings.js';
import { migration010Chats } from './010-chats.js';
import { migration012PhoneCheckJobs } from './012-phone-check-jobs.js';
import { migration011InstanceProxy } from './011-instance-proxy.js';
import { migration013HistorySync } from './013-history-sync.js';
import { migration014Labels } from './014-labels.js';
import { migration018Cluster } from './018-cluster.js';
import { migration019SharedOutgoingMedia } from './019-shared-outgoing-media.js';
import { migration020ScheduledSends } from './020-scheduled-sends.js';
import { migration021OptOuts } from './021-opt-outs.js';
import { migration022Campaigns } from './022-campaigns.js';
import { migration023EventSinks } from './023-event-sinks.js';
import { migration024ApiKeysAudit } from './024-api-keys-audit.js';
import { migration025SharedMedia } from './025-shared-media.js';
import { migration026SendIdempotency } from './026-send-idempotency.js';
import { migration027EventFiltersPull } from './027-event-filters-pull.js';
import { migration028NumberHealth } from './028-number-health.js';
import { migration029CampaignNotices } from './029-campaign-notices.js';
import type { Migration } from './migration.js';

/** Append new migrations at the end; never reorder or edit a released one. */
export const migrations: readonly Migration[] = [
  migration001Core,
  migration002Engine,
  migration003Webhooks,
  migration004Sender,
  migration005Receiving,
  migration006Sending,
  migration007SendKinds,
  migration008Quotas,
  migration009AccountSettings,
  migration010Chats,
  migration011InstanceProxy,
  migration012PhoneCheckJobs,
  migration013HistorySync,
  migration014Labels,
  migration018Cluster,
  migration019SharedOutgoingMedia,
  migration020ScheduledSends,
  migration021OptOuts,
  migration022Campaigns,
  migration023EventSinks,
  migration024ApiKeysAudit,
  migration025SharedMedia,
  migration026SendIdempotency,
  migration027EventFiltersPull,
  migration028NumberHealth,
  migration029CampaignNotices,
];
