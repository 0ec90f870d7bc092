// The database schema as one type: row types everywhere are derived from it, never re-typed.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { InstanceStatus, ListMode } from '../domain/instance.js';
import type { OutgoingKind } from '../domain/outgoing.js';
import type { MessageStatus, WebhookKind } from '../events/vocabulary.js';

import type { Flag } from './schema-types.js';
import type { ChatMessagesTable, ChatsTable, ContactsTable, LabelChatsTable, LabelsTable } from './schema-copy.js';
import type { CampaignNoticesTable, CampaignRecipientsTable, CampaignsTable, OptOutSettingsTable, OptOutsTable } from './schema-reach.js';
import type { EventFiltersTable, EventPullCursorsTable, EventSinksTable } from './schema-events.js';
import type { ApiKeysTable, AuditHeadTable, AuditLogTable } from './schema-access.js';

export type { CampaignRecipientState, CampaignState } from './schema-reach.js';

// The states and kinds columns hold, one union each: the code that writes a column can only write
// one of these, and readers need no cast. (No CHECK constraints: the types are the guard.)

/** A queued message: queued → in_flight → sent | failed (cancelled rows are deleted). */
export type MessageState = 'queued' | 'in_flight' | 'sent' | 'failed';

/** A webhook delivery: pending (no attempt yet) → retrying → delivered | failed. */
export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'failed';

/** A group created behind a pending id: pending → created | failed. */
export type PendingGroupStatus = 'pending' | 'created' | 'failed';

/** A phone-exists-batch job run in the background. */
export type PhoneCheckJobStatus = 'running' | 'done' | 'failed';

/** What happened to an account, for running servers to apply: a Client-Token rotation or a deletion. */
/** 'key': an API key was revoked or rotated (025), so every node drops its cached keys. */
export type AccountChangeKind = 'rotate' | 'delete' | 'key';

interface AccountsTable {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
}

interface InstancesTable {
  id: string;
  account_id: string;
  name: string;
  token_hash: string;
  status: InstanceStatus;
  status_reason: string | null;
  status_since: number;
  phone: string | null;
  lid: string | null;
  antiban: Flag;
  disable_enqueue_when_disconnected: Flag;
  list_mode: ListMode;
  /** send-kinds (007): closing line of numbered-text lists; null = the default wording. */
  list_reply_hint: string | null;
  notify_sent_by_me: Flag;
  webhook_secret: string;
  webhook_secret_previous: string | null;
  created_at: number;
  paired_at: number | null;
  /** 009: mark received messages read once committed (update-auto-read-message). */
  auto_read_message: Generated<Flag>;
  /** 009: also status posts (update-auto-read-status; needs auto_read_message). */
  auto_read_status: Generated<Flag>;
  /** 009: reject incoming calls (update-call-reject-auto). */
  call_reject_auto: Generated<Flag>;
  /** 009: sent to a caller whose call was rejected; null = nothing sent. */
  call_reject_message: string | null;
  /** 011: the instance's proxy (src/net/proxy.ts), credentials included; null = none. */
  proxy_url: string | null;
  /** 011: use proxy_url (Z-API's `enable`); without a URL it has no effect. */
  proxy_enabled: Generated<Flag>;
  /** 013: import the phone's history at pairing (opt-in). */
  history_import: Generated<Flag>;
  /** 013: days of history imported (messages older are dropped). */
  history_days: Generated<number>;
  /** 013: imported messages also go to the received webhook, marked `fromHistory`. */
  history_webhook: Generated<Flag>;
  /** 018: the node that runs the instance's session (cluster mode); null = none yet. */
  owner_node: string | null;
  /** 018: that node's incarnation (one per process start): what the fence compares. */
  owner_incarnation: string | null;
  /** 018: raised by every change of owner. */
  owner_epoch: Generated<number>;
}

export type ClusterNodeState = 'up' | 'leaving';

/** `Idempotency-Key` of sends (migration 026): the message a key names, for 24 hours. */
interface SendIdempotencyKeysTable {
  instance_id: string;
  key: string;
  request_hash: string;
  zaap_id: string;
  message_id: string;
  created_at: number;
}

/** Received media in PostgreSQL (migration 025, media/database-store.ts): a file, then its chunks. */
interface MediaBlobsTable {
  sha256: string;
  size: number;
  chunks: number;
  stored_at: number;
}

interface MediaBlobChunksTable {
  sha256: string;
  seq: number;
  bytes: Buffer;
}

/** 019 (PostgreSQL only): outgoing media shared by the nodes of a cluster. */
interface OutgoingMediaBlobsTable {
  sha256: string;
  bytes: Buffer;
  size: number;
  stored_at: number;
}

interface ClusterNodesTable {
  node_id: string;
  incarnation: string;
  url: string;
  started_at: number;
  heartbeat_at: number;
  lease_until: number;
  state: ClusterNodeState;
}

interface InstanceStatusHistoryTable {
  id: Generated<number>;
  instance_id: string;
  status: InstanceStatus;
  reason: string | null;
  at: number;
}

interface WebhooksTable {
  instance_id: string;
  kind: WebhookKind;
  url: string;
  disabled_reason: string | null;
  updated_at: number;
}

interface AuthCredsTable {
  instance_id: string;
  creds: string;
  updated_at: number;
}

interface AuthKeysTable {
  instance_id: string;
  type: string;
  key_id: string;
  value: string;
}

interface MessagesTable {
  seq: Generated<number>;
  zaap_id: string;
  instance_id: string;
  message_id: string;
  phone: string;
  kind: OutgoingKind;
  payload: string;
  delay_message: number | null;
  delay_typing: number | null;
  state: MessageState;
  /** The network's view once sent (monotonic). */
  wa_status: MessageStatus | null;
  error: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
  /** While a failed attempt waits for its retry: not before this time (006-sending). */
  next_attempt_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** Machine-readable code of the last failure, reported with `error` (006-sending). */
  error_code: ColumnType<string | null, string | null | undefined, string | null>;
  /** Bytes of the stored outgoing media files the message references (008-quotas); 0 for none. */
  media_bytes: ColumnType<number, number | undefined, number>;
  /** Not sent before this time (ms, on the gateway's clock); null = as soon as its turn comes (020-scheduled-sends). */
  scheduled_at: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A Client-Token rotation or an account deletion, for running servers to apply (008-quotas). */
interface AccountChangesTable {
  seq: Generated<number>;
  account_id: string;
  kind: AccountChangeKind;
  /** delete: JSON array of the account's instance ids. */
  instance_ids: string | null;
  at: number;
}

interface PendingGroupsTable {
  id: string;
  instance_id: string;
  status: PendingGroupStatus;
  group_id: string | null;
  invite_link: string | null;
  phones_not_added: string | null;
  error: string | null;
  request: string;
  created_at: number;
  updated_at: number;
}

interface EventsTable {
  seq: Generated<number>;
  id: string;
  instance_id: string;
  kind: string;
  payload: string;
  created_at: number;
}

/** One webhook delivery: an event on its way to one URL (003-webhooks). */
interface WebhookDeliveriesTable {
  seq: Generated<number>;
  id: string;
  event_id: string;
  instance_id: string;
  /** The webhook kind whose URL this delivery targets. */
  kind: WebhookKind;
  url: string;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  /** When the next attempt is due (ms, on the gateway's clock); null once delivered or failed. */
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** Phone-existence answers of the network, shared by every instance (002-engine). */
interface PhoneChecksTable {
  phone: string;
  exists: Flag;
  output_phone: string;
  lid: string | null;
  checked_at: number;
}

/** phone-exists-batch jobs too large to answer in the request's time (012-phone-check-jobs). */
interface PhoneCheckJobsTable {
  id: string;
  instance_id: string;
  status: PhoneCheckJobStatus;
  /** JSON array of the request's numbers, in input order. */
  phones: string;
  total: number;
  done: Generated<number>;
  /** JSON array of the answers, once done. */
  results: string | null;
  error: string | null;
  created_at: number;
  finished_at: number | null;
}

/** Recent messages an instance sent or received, as the engine needs them again (002-engine). */
interface WaMessagesTable {
  instance_id: string;
  message_id: string;
  remote_jid: string;
  from_me: Flag;
  participant: string | null;
  /** The message content, serialised by the engine. */
  message: string;
  /** What the engine needs to map answers back (interactive lists), JSON. */
  meta: string | null;
  created_at: number;
}

/** Numbers an instance has talked to, for the anti-ban strategy's "stranger" test (004-sender). */
interface InstanceContactsTable {
  instance_id: string;
  phone: string;
  inbound_at: number | null;
  outbound_at: number | null;
  cold_at: number | null;
}

/** The anti-ban strategy's pause after a restriction signal (004-sender). */
interface AntibanStateTable {
  instance_id: string;
  paused_until: number | null;
  pause_reason: string | null;
  restrictions: ColumnType<number, number | undefined, number>;
  last_restriction_at: number | null;
  updated_at: number;
}

/** A network message an instance has reported as an event: at most one event per id (005-receiving). */
interface InboundMessagesTable {
  instance_id: string;
  message_id: string;
  received_at: number;
}

type MediaFileStatus = 'pending' | 'stored' | 'failed';

/** A media file a received message carries (005-receiving). */
interface MediaFilesTable {
  id: string;
  instance_id: string;
  message_id: string;
  kind: string;
  mimetype: string;
  file_name: string | null;
  status: MediaFileStatus;
  sha256: string | null;
  size: number | null;
  error: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  source: string;
  created_at: number;
  expires_at: number;
}

/** Secrets the gateway makes for itself (the media link key), shared by every node (005-receiving). */
interface GatewaySecretsTable {
  name: string;
  value: string;
  created_at: number;
}

export interface DB {
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  audit_head: AuditHeadTable;
  accounts: AccountsTable;
  instances: InstancesTable;
  instance_status_history: InstanceStatusHistoryTable;
  webhooks: WebhooksTable;
  auth_creds: AuthCredsTable;
  auth_keys: AuthKeysTable;
  messages: MessagesTable;
  account_changes: AccountChangesTable;
  pending_groups: PendingGroupsTable;
  events: EventsTable;
  instance_contacts: InstanceContactsTable;
  antiban_state: AntibanStateTable;
  webhook_deliveries: WebhookDeliveriesTable;
  phone_checks: PhoneChecksTable;
  phone_check_jobs: PhoneCheckJobsTable;
  wa_messages: WaMessagesTable;
  inbound_messages: InboundMessagesTable;
  media_files: MediaFilesTable;
  gateway_secrets: GatewaySecretsTable;
  chats: ChatsTable;
  contacts: ContactsTable;
  chat_messages: ChatMessagesTable;
  labels: LabelsTable;
  label_chats: LabelChatsTable;
  cluster_nodes: ClusterNodesTable;
  outgoing_media_blobs: OutgoingMediaBlobsTable;
  opt_outs: OptOutsTable;
  opt_out_settings: OptOutSettingsTable;
  campaigns: CampaignsTable;
  campaign_recipients: CampaignRecipientsTable;
  campaign_notices: CampaignNoticesTable;
  event_sinks: EventSinksTable;
  media_blobs: MediaBlobsTable;
  media_blob_chunks: MediaBlobChunksTable;
  send_idempotency_keys: SendIdempotencyKeysTable;
  event_filters: EventFiltersTable;
  event_pull_cursors: EventPullCursorsTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type AuditRow = Selectable<AuditLogTable>;
export type InstanceRow = Selectable<InstancesTable>;
export type NewInstanceRow = Insertable<InstancesTable>;
export type InstancePatch = Updateable<InstancesTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessageRow = Insertable<MessagesTable>;
export type PendingGroupRow = Selectable<PendingGroupsTable>;
export type EventRow = Selectable<EventsTable>;
export type WaMessageRow = Selectable<WaMessagesTable>;
export type MediaFileRow = Selectable<MediaFilesTable>;
export type PhoneCheckRow = Selectable<PhoneChecksTable>;
export type PhoneCheckJobRow = Selectable<PhoneCheckJobsTable>;
export type AntibanStateRow = Selectable<AntibanStateTable>;
export type ChatRow = Selectable<ChatsTable>;
export type ContactRow = Selectable<ContactsTable>;
export type ChatMessageRow = Selectable<ChatMessagesTable>;
export type LabelRow = Selectable<LabelsTable>;
export type OptOutRow = Selectable<OptOutsTable>;
export type OptOutSettingsRow = Selectable<OptOutSettingsTable>;
export type CampaignRow = Selectable<CampaignsTable>;
export type CampaignRecipientRow = Selectable<CampaignRecipientsTable>;
export type CampaignNoticeRow = Selectable<CampaignNoticesTable>;
export type NewCampaignNotice = Insertable<CampaignNoticesTable>;
