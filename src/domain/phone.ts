// Target addresses as the API accepts them, normalised once at the edge of the domain.
import { errors } from '../errors.js';

export type Target =
  | { kind: 'phone'; digits: string }
  | { kind: 'group'; groupDigits: string } // `<digits>` or legacy `<creator>-<timestamp>`
  | { kind: 'lid'; lid: string }
  /** A channel (`<digits>@newsletter`): posts go out as plaintext to its followers. */
  | { kind: 'newsletter'; id: string }
  /** The account's status (stories): only the status routes address it, never a `phone` field. */
  | { kind: 'status' };

const STRIP = /[+\s\-()]/g;

/** How a queued status post is addressed (the network's own jid for it). */
export const STATUS_TARGET = 'status@broadcast';

/** Parses a `phone` field: a number with country code, `<digits>-group`, `<digits>@lid` or a channel `<digits>@newsletter`. */
export function parseTarget(raw: string, field = 'phone'): Target {
  const value = raw.trim();
  // Groups are `<digits>` (current) or `<creator>-<timestamp>` (legacy groups, as Z-API spells them).
  const group = /^(\d{5,40}(?:-\d{6,12})?)(?:-group|@g\.us)$/.exec(value);
  if (group?.[1]) return { kind: 'group', groupDigits: group[1] };
  const lid = /^(\d{5,40})@lid$/.exec(value);
  if (lid?.[1]) return { kind: 'lid', lid: lid[1] };
  const channel = /^(\d{5,40})@newsletter$/.exec(value);
  if (channel?.[1]) return { kind: 'newsletter', id: channel[1] };
  return { kind: 'phone', digits: parsePhone(value, field) };
}

/** Parses a phone number with country code into digits (8–15 of them). */
export function parsePhone(raw: string, field = 'phone'): string {
  const digits = raw.trim().replace(STRIP, '');
  if (!/^\d{8,15}$/.test(digits)) {
    throw errors.invalidInput(`${field}: must be a phone number with country code (8-15 digits)`);
  }
  return digits;
}

/** Parses a group identifier `<digits>-group` (or a pending id, which callers resolve). */
export function parseGroupId(raw: string, field = 'phone'): string {
  const m = /^(\d{5,40}(?:-\d{6,12})?)(?:-group|@g\.us)$/.exec(raw.trim());
  if (!m?.[1]) throw errors.invalidInput(`${field}: must be a group id of the form <digits>-group`);
  return m[1];
}

export function formatTarget(t: Target): string {
  switch (t.kind) {
    case 'phone':
      return t.digits;
    case 'group':
      return `${t.groupDigits}-group`;
    case 'lid':
      return `${t.lid}@lid`;
    case 'newsletter':
      return `${t.id}@newsletter`;
    case 'status':
      return STATUS_TARGET;
  }
}
