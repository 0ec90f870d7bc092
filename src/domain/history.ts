// History import at pairing (013-history-sync), as the API and the use cases see it: the settings
// and their bounds. The engine's import itself lives in sessions/inbound/history-import.ts.
import type { Instance } from './instance.js';

export interface HistorySettings {
  enabled: boolean;
  days: number;
  webhook: boolean;
}

/** Longest window accepted (the setting's bound). */
export const HISTORY_MAX_DAYS = 365;
export const HISTORY_DEFAULT_DAYS = 7;

export function historySettingsOf(instance: Pick<Instance, 'historyImport' | 'historyDays' | 'historyWebhook'>): HistorySettings {
  return { enabled: instance.historyImport, days: instance.historyDays, webhook: instance.historyWebhook };
}
