// Event filters per instance and target (027-event-filters-pull): `webhooks`, or `sink:<kind>`.
import type { Kysely } from 'kysely';
import { normaliseFilter, parseFilter, type EventFilter } from '../domain/event-filter.js';
import type { DB } from './schema.js';

export class EventFiltersRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Sets one target's filter; an empty one removes the row (everything passes). */
  async set(instanceId: string, target: string, filter: EventFilter, at: number): Promise<void> {
    const f = normaliseFilter(filter);
    const empty = f.messageFilters.length + f.callbackTypeFilters.length + f.includeChats.length + f.excludeChats.length === 0;
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('event_filters').where('instance_id', '=', instanceId).where('target', '=', target).execute();
      if (!empty) await trx.insertInto('event_filters').values({ instance_id: instanceId, target, filter: JSON.stringify(f), updated_at: at }).execute();
    });
  }

  /** Each instance's filters by target (instances without any are absent). */
  async forInstances(instanceIds: readonly string[]): Promise<Map<string, Map<string, EventFilter>>> {
    const out = new Map<string, Map<string, EventFilter>>();
    if (instanceIds.length === 0) return out;
    const rows = await this.db.selectFrom('event_filters').select(['instance_id', 'target', 'filter']).where('instance_id', 'in', [...new Set(instanceIds)]).execute();
    for (const r of rows) {
      const byTarget = out.get(r.instance_id) ?? new Map<string, EventFilter>();
      byTarget.set(r.target, parseFilter(r.filter));
      out.set(r.instance_id, byTarget);
    }
    return out;
  }
}
