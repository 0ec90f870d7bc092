// The schema's tables of reaching many customers (021-opt-outs, 022-campaigns, 029-campaign-notices); part of
// store/schema.ts's DB.
import type { Generated } from 'kysely';
import type { Flag } from './schema-types.js';

/** 021: a number that asked an account to send it nothing more. */
export interface OptOutsTable {
  account_id: string;
  phone: string;
  source: 'keyword' | 'api';
  instance_id: string | null;
  keyword: string | null;
  created_at: number;
}

/** 021: an account's opt-out settings (no row: the defaults). */
export interface OptOutSettingsTable {
  account_id: string;
  keywords: string | null;
  confirmation: string | null;
  strict: Flag;
  updated_at: number;
}

export type CampaignState = 'draft' | 'running' | 'paused' | 'done' | 'cancelled';
export type CampaignRecipientState = 'pending' | 'queued' | 'skipped';

/** 022: a campaign of an account. */
export interface CampaignsTable {
  id: string;
  account_id: string;
  name: string;
  template: string;
  instance_ids: string;
  state: CampaignState;
  settings: string;
  started_at: number | null;
  created_at: number;
  updated_at: number;
}

/** 022: one recipient of a campaign. */
export interface CampaignRecipientsTable {
  campaign_id: string;
  position: number;
  phone: string;
  vars: string;
  instance_id: string;
  state: CampaignRecipientState;
  message_id: string | null;
  zaap_id: string | null;
  queued_at: number | null;
}

/** 029: a change of a campaign's state still to report on one of its numbers. */
export interface CampaignNoticesTable {
  seq: Generated<number>;
  campaign_id: string;
  /** Not `instance_id`: that name is fenced (migration 029 says why). */
  sender_instance_id: string;
  message_id: string;
  notification: string;
  parameters: string;
  created_at: number;
}
