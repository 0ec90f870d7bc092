// Number health (docs/contract.md §12): per instance, rolling figures over the last day from what
// the network told the engine — how far its messages got, why some failed, how many first
// contacts (strangers) it wrote to per day against the warm-up's cap, how often and why it lost
// its connection, and whether the anti-ban governor has paused it. GET …/health and the
// per-instance metrics read the same figures.
import type { Clock } from '../clock.js';
import type { AntibanSettings } from '../config.js';
import { perDay, sendFigures, type SendFigures } from '../domain/number-health.js';
import { errors } from '../errors.js';
import { DAY_MS, strangerCaps, warmupFactor } from '../sender/pacing.js';
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { HealthRepo } from '../store/health-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { NumberFigures } from '../metrics.js';

/** Days of first-contact counts shown (the warm-up's ramp is read day by day). */
const STRANGER_DAYS = 7;

/**
 * How long the per-instance gauges reuse one reading: a scrape costs a few indexed reads per
 * instance, so several scrapers (or a short scrape interval) over many instances must not multiply
 * them. The figures are a day's, so a minute's staleness changes nothing a dashboard shows.
 */
const FIGURES_TTL_MS = 60_000;

export interface NumberHealth {
  instanceId: string;
  phone: string | null;
  status: string;
  /** The rolling window: since this ms, one day long (protocol time). */
  since: number;
  messages: SendFigures;
  strangers: {
    /** First messages to numbers that never wrote and were never written to, in the window. */
    lastDay: number;
    /** The same per day, oldest first, the last entry being the current day. */
    perDay: number[];
    /** The warm-up: days since pairing, the fraction of the caps it allows today, and those caps. */
    warmup: { day: number | null; factor: number; capPerDay: number | null; capPerHour: number | null };
  };
  disconnections: { count: number; reasons: { status: string; reason: string | null; count: number; last: number }[] };
  governor: { enabled: boolean; paused: boolean; reason: string | null; until: number | null; restrictions: number };
}

export class HealthService {
  constructor(
    private readonly store: { health: HealthRepo; instances: Pick<InstancesRepo, 'find'>; antiban: Pick<AntibanRepo, 'pause' | 'coldSendsSince'> },
    private readonly clock: Clock,
    private readonly antiban: AntibanSettings,
  ) {}

  async of(instanceId: string): Promise<NumberHealth> {
    const inst = await this.store.instances.find(instanceId);
    if (!inst) throw errors.instanceNotFound();
    // Windows are on the gateway's clock, like the anti-ban caps: a time-lapse run sees days pass.
    const now = this.clock.now();
    const since = now - DAY_MS;
    const [tally, cold, lost, pause] = await Promise.all([
      this.store.health.messages(instanceId, since),
      this.store.antiban.coldSendsSince(instanceId, now - STRANGER_DAYS * DAY_MS),
      this.store.health.disconnections(instanceId, since),
      this.store.antiban.pause(instanceId),
    ]);
    const age = inst.pairedAt === null ? null : now - inst.pairedAt;
    const factor = warmupFactor(age, this.antiban);
    const caps = strangerCaps(factor, this.antiban);
    const days = perDay(cold, now, DAY_MS, STRANGER_DAYS);
    const until = pause?.pausedUntil ?? null;
    const paused = inst.antiban && until !== null && until > now;
    return {
      instanceId,
      phone: inst.phone,
      status: inst.status,
      since,
      messages: sendFigures(tally),
      strangers: {
        lastDay: cold.filter((t) => t >= since).length,
        perDay: days,
        warmup: {
          day: age === null ? null : Math.floor(age / DAY_MS),
          factor: Math.round(factor * 1000) / 1000,
          capPerDay: inst.antiban && caps.perDay > 0 ? caps.perDay : null,
          capPerHour: inst.antiban && caps.perHour > 0 ? caps.perHour : null,
        },
      },
      disconnections: { count: lost.reduce((n, d) => n + d.count, 0), reasons: lost },
      governor: {
        enabled: inst.antiban,
        paused,
        reason: paused ? (pause?.reason ?? null) : null,
        until: paused ? until : null,
        restrictions: pause?.restrictions ?? 0,
      },
    };
  }

  private cached: { at: number; figures: Promise<NumberFigures[]> } | null = null;

  /** Every instance's figures as the per-instance metrics show them (read at most once a minute). */
  figures(): Promise<NumberFigures[]> {
    const at = this.clock.now();
    if (!this.cached || at - this.cached.at >= FIGURES_TTL_MS) {
      const figures = this.readFigures();
      // A failed read is not kept: the next scrape tries again.
      figures.catch(() => {
        if (this.cached?.figures === figures) this.cached = null;
      });
      this.cached = { at, figures };
    }
    return this.cached.figures;
  }

  private async readFigures(): Promise<NumberFigures[]> {
    const out: NumberFigures[] = [];
    for (const id of await this.store.health.instanceIds()) {
      const h = await this.of(id).catch(() => null); // deleted between the listing and the read: not reported
      if (!h) continue;
      const { sent, delivered, read, failed } = h.messages;
      out.push({
        instanceId: id,
        sent,
        delivered,
        read,
        failed,
        firstContacts: h.strangers.lastDay,
        firstContactCap: h.strangers.warmup.capPerDay ?? 0,
        disconnections: h.disconnections.count,
        paused: h.governor.paused,
      });
    }
    return out;
  }
}
