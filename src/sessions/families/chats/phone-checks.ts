// phone-exists(-batch): answers from the shared cache when fresh, the rest asked of the network in
// small chunks with a pause between them (a burst of 50,000 lookups is what gets numbers banned).
import type { Clock } from '../../../clock.js';
import { errors } from '../../../errors.js';
import type { PhoneChecksRepo } from '../../../store/phone-checks-repo.js';
import type { PhoneCheckRow } from '../../../store/schema.js';
import { phoneJid, userOf } from '../../jids.js';
import { openSocket, withTimeout } from '../../engine-call.js';
import type { PhoneCheck } from '../../port.js';
import type { LiveSession } from '../../live-session.js';

export interface PhoneCheckOptions {
  /** How long an answer stays valid, protocol ms. */
  ttlMs: number;
  chunkSize: number;
  /** Pause between chunks, protocol ms. */
  chunkGapMs: number;
  commandTimeoutMs: number;
}

export const DEFAULT_PHONE_CHECKS: Omit<PhoneCheckOptions, 'commandTimeoutMs'> = { ttlMs: 24 * 60 * 60_000, chunkSize: 50, chunkGapMs: 500 };

/**
 * Brazilian mobile numbers exist with and without the 9th digit; the network answers with the
 * form it knows, which is matched back to the form asked.
 */
function phoneVariants(digits: string): string[] {
  const m = /^55(\d{2})(\d{8,9})$/.exec(digits);
  if (!m) return [digits];
  const [, area, rest] = m as unknown as [string, string, string];
  if (rest.length === 9 && rest.startsWith('9')) return [digits, `55${area}${rest.slice(1)}`];
  if (rest.length === 8) return [digits, `55${area}9${rest}`];
  return [digits];
}

export async function checkPhones(
  session: LiveSession,
  phones: readonly string[],
  cache: PhoneChecksRepo,
  clock: Clock,
  options: PhoneCheckOptions,
): Promise<PhoneCheck[]> {
  const unique = [...new Set(phones)];
  const known = await cache.findFresh(unique, clock.now() - options.ttlMs);
  const missing = unique.filter((p) => !known.has(p));
  for (let i = 0; i < missing.length; i += options.chunkSize) {
    const chunk = missing.slice(i, i + options.chunkSize);
    const found = await paced(session, clock, options.chunkGapMs, () => {
      const { sock } = openSocket(session);
      return withTimeout({ clock, commandTimeoutMs: options.commandTimeoutMs }, async () => {
        const r = await sock.onWhatsApp(...chunk.map(phoneJid));
        // Baileys answers `undefined` when the query times out: that is not "nobody exists".
        if (r === undefined) throw errors.commandTimeout();
        return r;
      });
    });
    const existing = new Map<string, string>();
    for (const f of found) if (f.exists) existing.set(userOf(f.jid), f.jid);
    const rows: PhoneCheckRow[] = [];
    const now = clock.now();
    for (const phone of chunk) {
      const hit = phoneVariants(phone).map((v) => existing.get(v)).find((j) => j !== undefined);
      const lid = hit ? await lidOf(session, hit) : null;
      const row: PhoneCheckRow = { phone, exists: hit ? 1 : 0, output_phone: hit ? userOf(hit) : phone, lid, checked_at: now };
      rows.push(row);
      known.set(phone, row);
    }
    await cache.put(rows);
  }
  return phones.map((p) => {
    const row = known.get(p);
    const exists = row?.exists === 1;
    // Z-API answers the LID as an address (`<digits>@lid`); the cache keeps the digits.
    const lid = exists && row?.lid ? `${row.lid}@lid` : null;
    return { inputPhone: p, exists, outputPhone: exists ? (row?.output_phone ?? p) : p, lid };
  });
}

/**
 * The network sees one chunk query at a time per instance, `gapMs` apart, whoever asks: a batch in a
 * request, a job's slices, another batch at the same moment.
 */
const pacers = new WeakMap<LiveSession, Promise<void>>();
function paced<T>(session: LiveSession, clock: Clock, gapMs: number, query: () => Promise<T>): Promise<T> {
  const turn = pacers.get(session) ?? Promise.resolve();
  const run = turn.then(query);
  const rest = () => clock.sleep(gapMs);
  pacers.set(session, run.then(rest, rest));
  return run;
}

async function lidOf(session: LiveSession, jid: string): Promise<string | null> {
  const lid = await session.sock?.signalRepository.lidMapping.getLIDForPN(jid).catch(() => null);
  return lid ? userOf(lid) : null;
}

export interface PhoneChecksDeps {
  sessionOf(instanceId: string): LiveSession | undefined;
  cache: PhoneChecksRepo;
  clock: Clock;
  options: PhoneCheckOptions;
}

/** phone-exists over the instances' sessions: the SessionsPort's phone checks. */
export class PhoneChecks {
  constructor(private readonly deps: PhoneChecksDeps) {}

  check(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]> {
    const { session } = openSocket(this.deps.sessionOf(instanceId));
    return checkPhones(session, phones, this.deps.cache, this.deps.clock, this.deps.options);
  }

  /** How many of these numbers have no fresh answer in the cache. */
  async unchecked(phones: readonly string[]): Promise<number> {
    const unique = [...new Set(phones)];
    const known = await this.deps.cache.findFresh(unique, this.deps.clock.now() - this.deps.options.ttlMs);
    return unique.length - known.size;
  }
}
