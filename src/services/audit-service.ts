// The audit trail (docs/api-keys.md, "Audit trail"): who changed what, when, from where, with a
// redacted before and after; entries hash-chained in the store (store/audit-repo.ts) and pruned
// after the retention period.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { AuditEntry, AuditFilter, ChainBreak } from '../store/audit-repo.js';
import type { Store } from '../store/index.js';

/** Who made a change, and through which request. */
export interface AuditActor {
  accountId: string | null;
  /** 'client-token', 'key:<id>' or 'cli'. */
  actor: string;
  address: string | null;
  requestId: string | null;
}

export type { AuditEntry, ChainBreak };

/** Keys whose values are secrets: never written to the trail. */
const SECRET_KEY = /token|secret|password|passwd|^key$|apikey|authorization|credential/i;

/** A copy of `value` with secrets replaced by "[redacted]" and credentials in URLs removed. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return '[…]';
  if (typeof value === 'string') {
    // user:password@ in a URL (proxies) is a credential.
    const noUserinfo = value.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/i, '$1[redacted]@');
    // A long value (media as a data URI or base64) is cut: the trail records changes, not content.
    return noUserinfo.length > 300 ? `${noUserinfo.slice(0, 100)}… (${noUserinfo.length} characters)` : noUserinfo;
  }
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1);
    return out;
  }
  return value;
}

const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 60 * 60_000;

export class AuditService {
  private pruner: PeriodicTask | null = null;

  constructor(
    private readonly store: Pick<Store, 'audit'>,
    private readonly clock: Clock,
    private readonly retentionDays: number,
  ) {}

  /** Appends one entry; `before` and `after` are redacted here, whoever calls. */
  async record(who: AuditActor, action: string, target: string | null, before: unknown, after: unknown): Promise<AuditEntry> {
    const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(redact(v)));
    return this.store.audit.append({ at: this.clock.now(), ...who, action, target, before: json(before), after: json(after) });
  }

  list(filter: AuditFilter): Promise<AuditEntry[]> {
    return this.store.audit.list(filter);
  }

  verify(): Promise<{ entries: number; breaks: ChainBreak[] }> {
    return this.store.audit.verify();
  }

  /** Deletes the entries older than the retention period (the chain stays checkable from its anchor). */
  prune(): Promise<number> {
    return this.store.audit.prune(this.clock.now() - this.retentionDays * DAY_MS);
  }

  /** Prunes now and then hourly. */
  startPruning(log: Logger): void {
    this.pruner ??= new PeriodicTask(this.clock, {
      everyMs: PRUNE_EVERY_MS,
      firstAfterMs: 0,
      run: async () => {
        await this.prune();
      },
      onError: (err) => log.warn({ err }, 'pruning the audit trail failed'),
    });
    this.pruner.start();
  }

  /** Stops pruning; resolves once a prune under way has ended (the store closes next). */
  async stopPruning(): Promise<void> {
    await this.pruner?.stop();
  }
}
