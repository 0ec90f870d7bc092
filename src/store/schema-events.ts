// The schema's tables of where events go besides webhooks (023-event-sinks, 027-event-filters-pull);
// part of store/schema.ts's DB.

/** A broker sink's settings at one scope: an instance id or `account:<id>` (023-event-sinks). */
export interface EventSinksTable {
  scope: string;
  kind: string;
  enabled: number;
  url: string;
  exchange: string;
  prefix: string;
  updated_at: number;
}

/** An instance's event filter for one target: `webhooks` or `sink:<kind>` (027-event-filters-pull). */
export interface EventFiltersTable {
  instance_id: string;
  target: string;
  /** JSON of domain/event-filter.ts's EventFilter. */
  filter: string;
  updated_at: number;
}

/** The pull API's ack position of an instance: the seq of the last acknowledged event (027). */
export interface EventPullCursorsTable {
  instance_id: string;
  acked_seq: number;
  acked_id: string;
  updated_at: number;
}
