// What a campaign is made of (docs/contract.md §12): its settings, its message template with
// per-recipient variables, the recipients as CSV, and the local clock its window, quiet hours and
// daily cap are read on.
import { errors } from '../errors.js';

export interface CampaignSettings {
  /** IANA time zone the quiet hours and days are read in. */
  timeZone: string;
  /** Not before / not after (wall-clock ms); null = from the start / until done. */
  startAt: number | null;
  endAt: number | null;
  /** Local times `HH:MM` between which nothing is queued (may wrap midnight); null = none. */
  quietHours: { from: string; to: string } | null;
  /** Messages per number per local day. */
  dailyCap: number;
  /** Protocol ms at least between two of the campaign's messages from one number (the lane's own pacing comes on top). */
  paceMs: number;
}

const VAR = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The variables a template uses. */
export function templateVars(template: string): string[] {
  return [...new Set([...template.matchAll(VAR)].map((m) => m[1]!))];
}

/** The template with the recipient's variables filled (`{{phone}}` is always there). */
export function fillTemplate(template: string, vars: Readonly<Record<string, string>>): string {
  return template.replace(VAR, (_all, name: string) => vars[name] ?? '');
}

/** CSV with a header row (RFC 4180 quoting); answers one object per data row, keyed by the header. */
export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  const src = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',' || c === ';') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && src[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((v) => v.trim() !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (quoted) throw errors.invalidInput('recipientsCsv: a quoted cell is not closed');
  row.push(cell);
  if (row.some((v) => v.trim() !== '')) rows.push(row);
  const [header, ...data] = rows;
  if (!header) throw errors.invalidInput('recipientsCsv: empty');
  const names = header.map((h) => h.trim());
  if (!names.includes('phone')) throw errors.invalidInput('recipientsCsv: the header row must name a `phone` column');
  return data.map((cells, r) => {
    if (cells.length > names.length) throw errors.invalidInput(`recipientsCsv: row ${r + 2} has more cells than the header`);
    return Object.fromEntries(names.map((n, i) => [n, (cells[i] ?? '').trim()]));
  });
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

export function checkClockTime(value: string, field: string): number {
  const m = HHMM.exec(value);
  if (!m) throw errors.invalidInput(`${field}: must be HH:MM (24 h)`);
  return Number(m[1]) * 60 + Number(m[2]);
}

export function checkTimeZone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    throw errors.invalidInput(`timeZone: unknown time zone ${tz}`);
  }
}

/** Milliseconds since local midnight in `tz` at the instant `ms`. */
export function msOfLocalDay(ms: number, tz: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: tz, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(ms));
  const get = (t: string): number => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return ((get('hour') * 60 + get('minute')) * 60 + get('second')) * 1000 + (ms % 1000);
}

/** Whether local time `ms` in `tz` falls in the quiet hours [from, to) (wrapping midnight when from > to). */
export function inQuietHours(ms: number, s: Pick<CampaignSettings, 'timeZone' | 'quietHours'>): boolean {
  if (!s.quietHours) return false;
  const minute = Math.floor(msOfLocalDay(ms, s.timeZone) / 60_000);
  const from = checkClockTime(s.quietHours.from, 'quietHours.from');
  const to = checkClockTime(s.quietHours.to, 'quietHours.to');
  return from <= to ? minute >= from && minute < to : minute >= from || minute < to;
}
