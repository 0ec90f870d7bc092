// History sync at pairing (013-history-sync): the per-instance opt-in, the import window and the
// webhook switch. Stored on the instance; the session reads them when it opens a link (the opt-in)
// and when each history chunk arrives (window, webhook), so a value set on a fresh instance applies
// to its pairing. The phone sends its history once per pairing: set after it, the value applies to
// the next pairing of the instance.
import { errors } from '../errors.js';
import { HISTORY_MAX_DAYS, historySettingsOf, type HistorySettings } from '../sessions/inbound/history-import.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { InstancePatch } from '../store/schema.js';

type HistorySyncView = HistorySettings;

interface HistorySyncUpdate {
  enabled: boolean;
  days?: number | undefined;
  webhook?: boolean | undefined;
}

/** What HistorySyncService needs of the store (the SQL store implements it): the instance's settings. */
interface HistorySyncStore {
  readonly instances: Pick<InstancesRepo, 'findById' | 'update'>;
}

export class HistorySyncService {
  constructor(
    private readonly store: HistorySyncStore,
    /** Told after each change (the instances service drops its cached row). */
    private readonly changed: (instanceId: string) => void = () => {},
  ) {}

  async get(instanceId: string): Promise<HistorySyncView> {
    const row = await this.store.instances.findById(instanceId);
    if (!row) throw errors.instanceNotFound();
    return historySettingsOf(row);
  }

  /** Omitted `days` and `webhook` keep their stored values. */
  async update(instanceId: string, u: HistorySyncUpdate): Promise<HistorySyncView> {
    if (u.days !== undefined && (!Number.isInteger(u.days) || u.days < 1 || u.days > HISTORY_MAX_DAYS)) {
      throw errors.invalidInput(`days: must be an integer from 1 to ${HISTORY_MAX_DAYS}`);
    }
    const patch: InstancePatch = { history_import: u.enabled ? 1 : 0 };
    if (u.days !== undefined) patch.history_days = u.days;
    if (u.webhook !== undefined) patch.history_webhook = u.webhook ? 1 : 0;
    if (!(await this.store.instances.update(instanceId, patch))) throw errors.instanceNotFound();
    this.changed(instanceId);
    return this.get(instanceId);
  }
}
