// Event filters (docs/contract.md §5b): an instance's filter for its webhook URLs (Z-API's
// update-filters) and one per broker sink. The outbox reads them at each commit, so a change applies
// to the next event committed; events already committed keep their deliveries.
import type { Clock } from '../clock.js';
import { NO_FILTER, normaliseFilter, WEBHOOKS_TARGET, type EventFilter } from '../domain/event-filter.js';
import { SINK_KINDS, sinkTarget, type SinkKind } from '../domain/event-sink.js';
import type { EventFiltersRepo } from '../store/event-filters-repo.js';

export interface EventFiltersView {
  webhooks: EventFilter;
  sinks: Record<SinkKind, EventFilter>;
}

export class EventFiltersService {
  constructor(
    private readonly store: Pick<EventFiltersRepo, 'set' | 'forInstances'>,
    private readonly clock: Clock,
  ) {}

  async get(instanceId: string): Promise<EventFiltersView> {
    const byTarget = (await this.store.forInstances([instanceId])).get(instanceId);
    const of = (target: string): EventFilter => byTarget?.get(target) ?? NO_FILTER;
    return {
      webhooks: of(WEBHOOKS_TARGET),
      sinks: Object.fromEntries(SINK_KINDS.map((k) => [k, of(sinkTarget(k))])) as Record<SinkKind, EventFilter>,
    };
  }

  /** Replaces the webhooks' filter (absent lists are empty, as Z-API's body replaces the whole setting). */
  async setForWebhooks(instanceId: string, filter: Partial<EventFilter>): Promise<void> {
    await this.store.set(instanceId, WEBHOOKS_TARGET, normaliseFilter(filter), this.clock.now());
  }

  async setForSink(instanceId: string, kind: SinkKind, filter: Partial<EventFilter>): Promise<void> {
    await this.store.set(instanceId, sinkTarget(kind), normaliseFilter(filter), this.clock.now());
  }
}
