// The schema's tables of access and accountability (024-api-keys-audit): API keys and the
// hash-chained audit trail; part of store/schema.ts's DB.
import type { ColumnType } from 'kysely';

/** An account's API key (024-api-keys-audit); JSON arrays as text, NULL for no limit. */
export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  key_hash: string;
  prefix: string;
  scopes: string;
  instance_ids: string | null;
  cidrs: string | null;
  rate_limit: number | null;
  expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  revoked_at: ColumnType<number | null, number | null | undefined, number | null>;
  created_at: number;
  last_used_at: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One change an actor made, hash-chained (024-api-keys-audit). */
export interface AuditLogTable {
  seq: number;
  at: number;
  account_id: string | null;
  actor: string;
  address: string | null;
  request_id: string | null;
  action: string;
  target: string | null;
  before: string | null;
  after: string | null;
  prev_hash: string;
  hash: string;
}

/** The chain's newest seq and hash, and retention's anchor (one row, id 1). */
export interface AuditHeadTable {
  id: number;
  seq: number;
  hash: string;
  anchor_seq: number;
  anchor_hash: string;
}
