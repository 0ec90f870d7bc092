// A number's health (docs/contract.md §12): what the network told the engine about the instance's
// recent sends and connection, as rolling figures over the last day. Pure: the store counts, this
// turns the counts into the figures and ratios GET …/health and the metrics show.

/** Messages of the window by how far they got: one row per (state, wa_status, error_code). */
export interface MessageTally {
  state: string;
  waStatus: string | null;
  errorCode: string | null;
  error: string | null;
  n: number;
}

export interface SendFigures {
  /** Messages that left (the network acknowledged them). */
  sent: number;
  /** Of those, delivered to the recipient's phone (read included). */
  delivered: number;
  read: number;
  /** Messages the network refused or that could not be sent. */
  failed: number;
  /** delivered / sent, read / sent, failed / (sent + failed); null when there is nothing to divide. */
  deliveredRatio: number | null;
  readRatio: number | null;
  failedRatio: number | null;
  /** The failures by code, most frequent first, each with the latest reason. */
  failures: { code: string; count: number; reason: string | null }[];
}

/** Failures that are no sign of the number's health: the gateway's or the user's own doing. */
const NOT_THE_NETWORK = new Set(['CANCELLED', 'OPTED_OUT']);

export function sendFigures(tally: readonly MessageTally[]): SendFigures {
  let sent = 0;
  let delivered = 0;
  let read = 0;
  let failed = 0;
  const failures = new Map<string, { count: number; reason: string | null }>();
  for (const t of tally) {
    if (t.state === 'sent') {
      sent += t.n;
      if (t.waStatus === 'RECEIVED' || t.waStatus === 'READ' || t.waStatus === 'PLAYED') delivered += t.n;
      if (t.waStatus === 'READ' || t.waStatus === 'PLAYED') read += t.n;
    } else if (t.state === 'failed' && !NOT_THE_NETWORK.has(t.errorCode ?? '')) {
      failed += t.n;
      const code = t.errorCode ?? 'UNKNOWN';
      const f = failures.get(code) ?? { count: 0, reason: null };
      f.count += t.n;
      f.reason ??= t.error;
      failures.set(code, f);
    }
  }
  const ratio = (a: number, b: number): number | null => (b === 0 ? null : Math.round((a / b) * 1000) / 1000);
  return {
    sent,
    delivered,
    read,
    failed,
    deliveredRatio: ratio(delivered, sent),
    readRatio: ratio(read, sent),
    failedRatio: ratio(failed, sent + failed),
    failures: [...failures].map(([code, f]) => ({ code, ...f })).sort((a, b) => b.count - a.count),
  };
}

/** Statuses that mean the number is not connected (domain/instance.ts's statuses). */
export const DISCONNECTED_STATUSES = ['disconnected', 'logged_out', 'banned', 'replaced'] as const;

/**
 * The reason of a new instance's first status (`disconnected`, never connected yet): its first
 * history row, which is no lost connection and is left out of the disconnections.
 */
export const CREATED_REASON = 'created';

/**
 * How a dropped link's status reason starts (`connecting`, "connection lost: <detail>; reconnecting
 * in …"): the session reconnects by itself, so the status never reads `disconnected`, yet the
 * number lost its connection.
 */
export const CONNECTION_LOST = 'connection lost';

export interface StatusChange {
  status: string;
  reason: string | null;
  at: number;
}

export interface Disconnections {
  status: string;
  reason: string | null;
  count: number;
  last: number;
}

/**
 * Times the number lost its connection, by status and reason, latest first, from its status changes
 * in order (`before`: the status just before them). A drop the session reconnects from counts once,
 * as `disconnected` with its cause (the retries of one outage do not add up, and the reason loses
 * its changing "reconnecting in …" tail); a new instance's first status does not count.
 */
export function disconnectionsOf(changes: readonly StatusChange[], before: string | null): Disconnections[] {
  const groups = new Map<string, Disconnections>();
  let prev = before;
  for (const c of changes) {
    let status: string | null = null;
    let reason = c.reason;
    if ((DISCONNECTED_STATUSES as readonly string[]).includes(c.status)) status = c.reason === CREATED_REASON ? null : c.status;
    else if (c.status === 'connecting' && prev === 'connected' && c.reason?.startsWith(CONNECTION_LOST)) {
      status = 'disconnected';
      reason = c.reason.split(';')[0]!;
    }
    prev = c.status;
    if (status === null) continue;
    const key = `${status}\u0000${reason ?? ''}`;
    const g = groups.get(key) ?? { status, reason, count: 0, last: c.at };
    g.count++;
    g.last = Math.max(g.last, c.at);
    groups.set(key, g);
  }
  return [...groups.values()].sort((a, b) => b.last - a.last);
}

/** Counts of `times` per day, for the last `days` days ending with the day of `now` (oldest first). */
export function perDay(times: readonly number[], now: number, dayMs: number, days: number): number[] {
  const out = new Array<number>(days).fill(0);
  for (const t of times) {
    const back = Math.floor((now - t) / dayMs);
    if (back >= 0 && back < days) out[days - 1 - back]! += 1;
  }
  return out;
}
