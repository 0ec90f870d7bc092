// When a scheduled send leaves (docs/contract.md §12): `scheduledAt` as ISO 8601 with an explicit
// offset (a time without one would be read in whichever zone the server runs), or epoch ms.
import { errors } from '../errors.js';

/** A time this far in the past is still accepted (the client's clock may lag): it leaves at once. */
export const SCHEDULE_PAST_SKEW_MS = 5_000;
/** The latest a message may be scheduled: a year ahead. */
export const SCHEDULE_MAX_AHEAD_MS = 366 * 24 * 3_600_000;

const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Parses `scheduledAt` and checks it against `now`: epoch ms (a number or a string of digits) or ISO 8601 with an offset. */
export function parseScheduledAt(raw: string | number, now: number, field = 'scheduledAt'): number {
  let at: number;
  if (typeof raw === 'number' || /^\d{1,16}$/.test(raw)) {
    at = Number(raw);
    if (!Number.isSafeInteger(at)) throw errors.invalidInput(`${field}: must be epoch milliseconds (an integer) or ISO 8601 with an offset`);
  } else if (ISO_WITH_OFFSET.test(raw)) {
    at = Date.parse(raw);
    if (!Number.isFinite(at)) throw errors.invalidInput(`${field}: not a valid date: ${raw}`);
  } else {
    throw errors.invalidInput(`${field}: must be epoch milliseconds or ISO 8601 with an offset (e.g. 2025-01-31T09:00:00-03:00)`);
  }
  if (at < now - SCHEDULE_PAST_SKEW_MS) throw errors.invalidInput(`${field}: ${new Date(at).toISOString()} is in the past`);
  if (at > now + SCHEDULE_MAX_AHEAD_MS) throw errors.invalidInput(`${field}: ${new Date(at).toISOString()} is more than a year ahead`);
  return at;
}
