// The audit trail (024-api-keys-audit): entries appended under audit_head's row lock, each hashed
// with the previous entry's hash, so an edited, inserted or deleted row breaks the chain.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditRow, DB } from './schema.js';

export interface AuditEntryInput {
  at: number;
  accountId: string | null;
  actor: string;
  address: string | null;
  requestId: string | null;
  action: string;
  target: string | null;
  before: string | null;
  after: string | null;
}

export interface AuditEntry extends AuditEntryInput {
  seq: number;
  prevHash: string;
  hash: string;
}

export interface AuditFilter {
  accountId?: string;
  action?: string;
  actor?: string;
  target?: string;
  since?: number;
  until?: number;
  /** Entries with seq below this (paging backwards from the newest). */
  before?: number;
  limit: number;
}

export interface ChainBreak {
  seq: number;
  reason: string;
}

/** The hash of an entry: SHA-256 over the previous hash and the entry's fields, in a fixed order. */
export function entryHash(prevHash: string, seq: number, e: AuditEntryInput): string {
  const fields = [seq, e.at, e.accountId, e.actor, e.address, e.requestId, e.action, e.target, e.before, e.after];
  return createHash('sha256').update(prevHash).update('\n').update(JSON.stringify(fields)).digest('hex');
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    seq: Number(r.seq),
    at: Number(r.at),
    accountId: r.account_id,
    actor: r.actor,
    address: r.address,
    requestId: r.request_id,
    action: r.action,
    target: r.target,
    before: r.before,
    after: r.after,
    prevHash: r.prev_hash,
    hash: r.hash,
  };
}

export class AuditRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Appends one entry; the head's row lock orders appends from every node (PostgreSQL) or connection. */
  append(e: AuditEntryInput): Promise<AuditEntry> {
    return this.db.transaction().execute(async (trx) => {
      // The UPDATE takes the row lock first: a concurrent append waits here, then reads the new head.
      await trx.updateTable('audit_head').set((eb) => ({ seq: eb('seq', '+', 0) })).where('id', '=', 1).execute();
      const head = await trx.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
      const seq = Number(head.seq) + 1;
      const hash = entryHash(head.hash, seq, e);
      await trx
        .insertInto('audit_log')
        .values({ seq, at: e.at, account_id: e.accountId, actor: e.actor, address: e.address, request_id: e.requestId, action: e.action, target: e.target, before: e.before, after: e.after, prev_hash: head.hash, hash })
        .execute();
      await trx.updateTable('audit_head').set({ seq, hash }).where('id', '=', 1).execute();
      return { ...e, seq, prevHash: head.hash, hash };
    });
  }

  async list(f: AuditFilter): Promise<AuditEntry[]> {
    let q = this.db.selectFrom('audit_log').selectAll();
    if (f.accountId !== undefined) q = q.where('account_id', '=', f.accountId);
    if (f.action !== undefined) q = q.where('action', '=', f.action);
    if (f.actor !== undefined) q = q.where('actor', '=', f.actor);
    if (f.target !== undefined) q = q.where('target', '=', f.target);
    if (f.since !== undefined) q = q.where('at', '>=', f.since);
    if (f.until !== undefined) q = q.where('at', '<', f.until);
    if (f.before !== undefined) q = q.where('seq', '<', f.before);
    return (await q.orderBy('seq', 'desc').limit(f.limit).execute()).map(toEntry);
  }

  /**
   * Deletes entries older than `before`, keeping the chain checkable: the last deleted entry's seq
   * and hash become the anchor the first kept entry must follow.
   */
  prune(before: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await trx.updateTable('audit_head').set((eb) => ({ seq: eb('seq', '+', 0) })).where('id', '=', 1).execute();
      const last = await trx.selectFrom('audit_log').select(['seq', 'hash']).where('at', '<', before).orderBy('seq', 'desc').limit(1).executeTakeFirst();
      if (!last) return 0;
      const r = await trx.deleteFrom('audit_log').where('seq', '<=', Number(last.seq)).executeTakeFirst();
      await trx.updateTable('audit_head').set({ anchor_seq: Number(last.seq), anchor_hash: last.hash }).where('id', '=', 1).execute();
      return Number(r.numDeletedRows);
    });
  }

  /** Re-computes the chain from the anchor to the head; every break found (none: intact). */
  async verify(): Promise<{ entries: number; breaks: ChainBreak[] }> {
    const head = await this.db.selectFrom('audit_head').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    const breaks: ChainBreak[] = [];
    let prevSeq = Number(head.anchor_seq);
    let prevHash = head.anchor_hash;
    let entries = 0;
    const PAGE = 1000;
    for (;;) {
      const rows = await this.db.selectFrom('audit_log').selectAll().where('seq', '>', prevSeq).orderBy('seq').limit(PAGE).execute();
      for (const row of rows.map(toEntry)) {
        entries++;
        if (row.seq !== prevSeq + 1) breaks.push({ seq: row.seq, reason: `entries ${prevSeq + 1}-${row.seq - 1} are missing` });
        if (row.prevHash !== prevHash) breaks.push({ seq: row.seq, reason: 'its previous hash is not the hash of the entry before it' });
        if (entryHash(row.prevHash, row.seq, row) !== row.hash) breaks.push({ seq: row.seq, reason: 'its content does not match its hash (edited)' });
        prevSeq = row.seq;
        prevHash = row.hash;
      }
      if (rows.length < PAGE) break;
    }
    if (prevSeq !== Number(head.seq) || prevHash !== head.hash) {
      breaks.push({ seq: Number(head.seq), reason: `the newest entry is ${head.seq} but the log ends at ${prevSeq} (entries removed or edited)` });
    }
    return { entries, breaks };
  }
}
