// Broker sinks' settings per scope (023-event-sinks): an instance, or an account's default.
import type { Kysely } from 'kysely';
import { SINK_KINDS, type SinkKind, type SinkSettings } from '../domain/event-sink.js';
import type { DB } from './schema.js';

/** The settings one instance may resolve a sink from: its own row and its account's. */
export interface ScopedSinks {
  instance: ReadonlyMap<SinkKind, SinkSettings>;
  account: ReadonlyMap<SinkKind, SinkSettings>;
}

/** The scope key of an account's default sinks. */
export function accountScope(accountId: string): string {
  return `account:${accountId}`;
}

function isKind(kind: string): kind is SinkKind {
  return (SINK_KINDS as readonly string[]).includes(kind);
}

export class SinksRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Sets one scope's sink, or with null forgets it (the wider scope applies again). */
  async set(scope: string, kind: SinkKind, settings: SinkSettings | null, at: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('event_sinks').where('scope', '=', scope).where('kind', '=', kind).execute();
      if (settings === null) return;
      await trx
        .insertInto('event_sinks')
        .values({ scope, kind, enabled: settings.enabled ? 1 : 0, url: settings.url, exchange: settings.exchange, prefix: settings.prefix, updated_at: at })
        .execute();
    });
  }

  /** Every scope's sinks among `scopes`, by scope then kind. */
  async read(scopes: readonly string[]): Promise<Map<string, Map<SinkKind, SinkSettings>>> {
    const out = new Map<string, Map<SinkKind, SinkSettings>>();
    if (scopes.length === 0) return out;
    const rows = await this.db.selectFrom('event_sinks').selectAll().where('scope', 'in', [...new Set(scopes)]).execute();
    for (const r of rows) {
      if (!isKind(r.kind)) continue;
      const byKind = out.get(r.scope) ?? new Map<SinkKind, SinkSettings>();
      byKind.set(r.kind, { enabled: r.enabled === 1, url: r.url, exchange: r.exchange, prefix: r.prefix });
      out.set(r.scope, byKind);
    }
    return out;
  }

  /** The instance's own sinks and its account's, for each instance id given. */
  async forInstances(instanceIds: readonly string[]): Promise<Map<string, ScopedSinks>> {
    const out = new Map<string, ScopedSinks>();
    if (instanceIds.length === 0) return out;
    const owners = await this.db.selectFrom('instances').select(['id', 'account_id']).where('id', 'in', [...new Set(instanceIds)]).execute();
    const rows = await this.read([...owners.map((o) => o.id), ...owners.map((o) => accountScope(o.account_id))]);
    const none = new Map<SinkKind, SinkSettings>();
    for (const o of owners) out.set(o.id, { instance: rows.get(o.id) ?? none, account: rows.get(accountScope(o.account_id)) ?? none });
    return out;
  }
}
