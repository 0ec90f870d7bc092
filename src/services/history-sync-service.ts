// History sync at pairing (013-history-sync): the per-instance opt-in, the import window and the
// webhook switch. Stored on the instance; the session reads them when it opens a link (the opt-in)
// and when each history chunk arrives (window, webhook), so a value set on a fresh instance applies
// to its pairing. The phone sends its history once per pairing: set after it, the value applies to
// the next pairing of the instance.
import { errors } from '../errors.js';
import { HISTORY_MAX_DAYS, historySettingsOf, type HistorySettings } from '../domain/history.js';
import type { InstanceChanges } from '../domain/instance.js';
import type { InstancesRepo } from '../store/instances-repo.js';

type HistorySyncView = HistorySettings;

interface HistorySyncUpdate {
  enabled: boolean;
  days?: number | undefined;
  webhook?: boolean | undefined;
}

/** What HistorySyncService needs of the store (the SQL store implements it): the instance's settings. */
interface HistorySyncStore {
  readonly instances: Pick<InstancesRepo, 'find' | 'change'>;
}

export class HistorySyncService {
  constructor(
    private readonly store: HistorySyncStore,
    /** Told after each change (the instances service drops its cached row). */
    private readonly changed: (instanceId: string) => void = () => {},
  ) {}

  async get(instanceId: string): Promise<HistorySyncView> {
    const instance = await this.store.instances.find(instanceId);
    if (!instance) throw errors.instanceNotFound();
    return historySettingsOf(instance);
  }

  /** Omitted `days` and `webhook` keep their stored values. */
  async update(instanceId: string, u: HistorySyncUpdate): Promise<HistorySyncView> {
    if (u.days !== undefined && (!Number.isInteger(u.days) || u.days < 1 || u.days > HISTORY_MAX_DAYS)) {
      throw errors.invalidInput(`days: must be an integer from 1 to ${HISTORY_MAX_DAYS}`);
    }
    const changes: InstanceChanges = { historyImport: u.enabled, historyDays: u.days, historyWebhook: u.webhook };
    if (!(await this.store.instances.change(instanceId, changes))) throw errors.instanceNotFound();
    this.changed(instanceId);
    return this.get(instanceId);
  }
}
