// The store's part of /readyz: a node is not ready while another process may own its data (the owner
// lock was lost), while its disk is full (disk-watch.ts), or while the database does not answer.
import type { Logger } from '../logger.js';
import type { Database } from './database.js';
import type { DiskWatch } from './disk-watch.js';

export interface Readiness {
  ok: boolean;
  reason?: string;
}

/** Follows the owner lock (store/owner-lock.ts) from its acquisition on: its loss and its return are logged once each. */
export function watchOwnerLock(lock: { onChange(listener: (held: boolean, err?: Error) => void): void }, log: Logger): { readonly lost: boolean } {
  const state = { lost: false };
  lock.onChange((held, err) => {
    state.lost = !held;
    if (held) log.warn('the database owner lock is held again');
    else log.error({ err }, 'lost the database owner lock (its connection failed); not ready until it is held again');
  });
  return state;
}

export async function storeReadiness(database: Pick<Database, 'ping'>, lock: { readonly lost: boolean }, disk: Pick<DiskWatch, 'stillFull'>): Promise<Readiness> {
  if (lock.lost) return { ok: false, reason: 'database owner lock lost' };
  if (await disk.stillFull()) return { ok: false, reason: 'disk full' };
  try {
    await database.ping();
    return { ok: true };
  } catch {
    return { ok: false, reason: 'database unreachable' };
  }
}
