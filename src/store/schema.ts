// The database schema as one type: row types everywhere are derived from it, never re-typed.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/** Booleans are stored as 0/1 in every dialect so one set of queries serves SQLite and PostgreSQL. */
export type Flag = number;

export interface AccountsTable {
  id: string;
  name: string;
  token_hash: string;
  created_at: number;
}

export interface InstancesTable {
  id: string;
  account_id: string;
  name: string;
  token_hash: string;
  status: string;
  status_reason: string | null;
  status_since: number;
  phone: string | null;
  lid: string | null;
  antiban: Flag;
  disable_enqueue_when_disconnected: Flag;
  list_mode: string;
  notify_sent_by_me: Flag;
  webhook_secret: string;
  webhook_secret_previous: string | null;
  created_at: number;
  paired_at: number | null;
}

export interface InstanceStatusHistoryTable {
  id: Generated<number>;
  instance_id: string;
  status: string;
  reason: string | null;
  at: number;
}

export interface WebhooksTable {
  instance_id: string;
  kind: string;
  url: string;
  disabled_reason: string | null;
  updated_at: number;
}

export interface AuthCredsTable {
  instance_id: string;
  creds: string;
  updated_at: number;
}

export interface AuthKeysTable {
  instance_id: string;
  type: string;
  key_id: string;
  value: string;
}

export interface MessagesTable {
  seq: Generated<number>;
  zaap_id: string;
  instance_id: string;
  message_id: string;
  phone: string;
  kind: string;
  payload: string;
  delay_message: number | null;
  delay_typing: number | null;
  /** queued → in_flight → sent | failed (cancelled rows are deleted). */
  state: string;
  /** The network's view once sent: SENT, RECEIVED, READ, PLAYED (monotonic). */
  wa_status: string | null;
  error: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
}

export interface PendingGroupsTable {
  id: string;
  instance_id: string;
  status: string;
  group_id: string | null;
  invite_link: string | null;
  phones_not_added: string | null;
  error: string | null;
  request: string;
  created_at: number;
  updated_at: number;
}

export interface EventsTable {
  seq: Generated<number>;
  id: string;
  instance_id: string;
  kind: string;
  payload: string;
  created_at: number;
}

/** One webhook delivery: an event on its way to one URL (003-webhooks). */
export interface WebhookDeliveriesTable {
  seq: Generated<number>;
  id: string;
  event_id: string;
  instance_id: string;
  /** The webhook kind (received, message_status, …) whose URL this delivery targets. */
  kind: string;
  url: string;
  /** pending (no attempt yet) → retrying → delivered | failed. */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  /** Real wall-clock ms when the next attempt is due; null once delivered or failed. */
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** Phone-existence answers of the network, shared by every instance (002-engine). */
export interface PhoneChecksTable {
  phone: string;
  exists: Flag;
  output_phone: string;
  lid: string | null;
  checked_at: number;
}

/** Recent messages an instance sent or received, as the engine needs them again (002-engine). */
export interface WaMessagesTable {
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
export interface InstanceContactsTable {
  instance_id: string;
  phone: string;
  inbound_at: number | null;
  outbound_at: number | null;
  cold_at: number | null;
}

/** The anti-ban strategy's pause after a restriction signal (004-sender). */
export interface AntibanStateTable {
  instance_id: string;
  paused_until: number | null;
  pause_reason: string | null;
  restrictions: ColumnType<number, number | undefined, number>;
  last_restriction_at: number | null;
  updated_at: number;
}

export interface DB {
  accounts: AccountsTable;
  instances: InstancesTable;
  instance_status_history: InstanceStatusHistoryTable;
  webhooks: WebhooksTable;
  auth_creds: AuthCredsTable;
  auth_keys: AuthKeysTable;
  messages: MessagesTable;
  pending_groups: PendingGroupsTable;
  events: EventsTable;
  instance_contacts: InstanceContactsTable;
  antiban_state: AntibanStateTable;
  webhook_deliveries: WebhookDeliveriesTable;
  phone_checks: PhoneChecksTable;
  wa_messages: WaMessagesTable;
}

export type AccountRow = Selectable<AccountsTable>;
export type InstanceRow = Selectable<InstancesTable>;
export type NewInstanceRow = Insertable<InstancesTable>;
export type InstancePatch = Updateable<InstancesTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessageRow = Insertable<MessagesTable>;
export type PendingGroupRow = Selectable<PendingGroupsTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WaMessageRow = Selectable<WaMessagesTable>;
export type PhoneCheckRow = Selectable<PhoneChecksTable>;
export type AntibanStateRow = Selectable<AntibanStateTable>;
