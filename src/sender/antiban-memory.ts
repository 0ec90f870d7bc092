// What one instance's lane remembers for the anti-ban strategy: who is no stranger, when the cold
// first messages and identical contents went out (the caps look back an hour and a day), and the
// pause after a restriction. Persistent parts live in the store; this keeps them at hand per lane.
import { STATUS_TARGET } from '../domain/phone.js';
import type { Clock } from '../clock.js';
import type { AntibanSettings } from '../config.js';
import type { AntibanPause, AntibanRepo } from '../store/antiban-repo.js';
import { DAY_MS, HOUR_MS, identicalReadyAt, pauseAfterRestriction, strangerCaps, strangerReadyAt, warmupFactor } from './pacing.js';

/** What the strategy needs to know about the message at the head of the queue. */
export interface AntibanTraits {
  phone: string;
  /** A first message to a number that never wrote and was never written to. */
  stranger: boolean;
  /** Protocol ms of extra spacing after the previous cold message (jitter drawn once). */
  strangerSpacingMs: number;
  contentKey: string | null;
}

const KNOWN_LIMIT = 10_000;
const IDENTICAL_KEYS_LIMIT = 1_000;

export class AntibanMemory {
  private pause: AntibanPause | undefined;
  private coldSends: number[] = [];
  private readonly identical = new Map<string, { phone: string; at: number }[]>();
  /** Numbers already written to: saves a read and a write per message. */
  private readonly known = new Set<string>();
  /** The governor's window: the latest settled sends, true for one the network refused. */
  private outcomes: boolean[] = [];

  constructor(
    private readonly instanceId: string,
    private readonly repo: Pick<AntibanRepo, 'pause' | 'savePause' | 'coldSendsSince' | 'isStranger' | 'recordOutbound'>,
    private readonly clock: Clock,
    private readonly settings: AntibanSettings,
  ) {}

  /** Reads the pause, and the last day of cold sends when the strategy is on. */
  async load(strategyOn: boolean): Promise<void> {
    this.pause = await this.repo.pause(this.instanceId);
    if (strategyOn) this.coldSends = await this.repo.coldSendsSince(this.instanceId, this.clock.now() - DAY_MS);
  }

  /** When the pause ends (ms on the clock), or null. */
  pausedUntil(now: number): number | null {
    const until = this.pause?.pausedUntil;
    return until !== null && until !== undefined && until > now ? until : null;
  }

  async isStranger(phone: string): Promise<boolean> {
    return isContactAddress(phone) && !this.known.has(phone) && this.repo.isStranger(this.instanceId, phone);
  }

  /** The earliest time (ms on the clock) the caps, spacing and identical-content limit allow this message. */
  readyAt(m: AntibanTraits, pairedAt: number | null, now: number): number {
    const s = this.settings;
    let ready = 0;
    if (m.stranger) {
      const dayAgo = now - DAY_MS;
      while (this.coldSends.length > 0 && (this.coldSends[0] as number) < dayAgo) this.coldSends.shift();
      const age = pairedAt === null ? null : now - pairedAt;
      const caps = strangerCaps(warmupFactor(age, s), s);
      ready = strangerReadyAt(this.coldSends, caps, { hour: HOUR_MS, day: DAY_MS }, m.strangerSpacingMs);
    }
    if (m.contentKey) {
      const sends = (this.identical.get(m.contentKey) ?? []).filter((x) => x.at > now - HOUR_MS);
      this.identical.set(m.contentKey, sends);
      ready = Math.max(ready, identicalReadyAt(sends, m.phone, s.identicalPerHour, HOUR_MS));
    }
    return ready;
  }

  /** Records a message that left: the number is known from now on; cold sends and contents are counted. */
  async sent(m: AntibanTraits, at: number): Promise<void> {
    if (isContactAddress(m.phone) && !this.known.has(m.phone)) {
      // Recorded whether the strategy is on or not, so turning it on later knows who is a stranger.
      await this.repo.recordOutbound({ instanceId: this.instanceId, phone: m.phone, at });
      if (this.known.size >= KNOWN_LIMIT) this.known.clear();
      this.known.add(m.phone);
    }
    if (m.stranger) this.coldSends.push(at);
    if (m.contentKey) {
      const sends = this.identical.get(m.contentKey);
      if (sends) sends.push({ phone: m.phone, at });
      else this.identical.set(m.contentKey, [{ phone: m.phone, at }]);
      // Personalised campaigns leave one key per message: drop those that left the window.
      if (this.identical.size > IDENTICAL_KEYS_LIMIT) {
        const cutoff = at - HOUR_MS;
        for (const [key, list] of this.identical) if ((list[list.length - 1]?.at ?? 0) < cutoff) this.identical.delete(key);
      }
    }
  }

  /**
   * The governor (docs/contract.md §12): records a settled send and answers the failure ratio when
   * the last `failureWindow` sends cross `maxFailureRatio` (the window then starts afresh, so one
   * bad stretch pauses once), else null.
   */
  settled(refused: boolean): { ratio: number; window: number } | null {
    const { failureWindow: window, maxFailureRatio: max } = this.settings;
    if (window <= 0 || max <= 0) return null;
    this.outcomes.push(refused);
    if (this.outcomes.length > window) this.outcomes.shift();
    if (this.outcomes.length < window) return null;
    const ratio = this.outcomes.filter(Boolean).length / window;
    if (ratio < max) return null;
    this.outcomes = [];
    return { ratio, window };
  }

  /**
   * A restriction signal: pauses (longer for each further one within a day) and stores why.
   * Returns the new pause, or null when already paused (several signals for one restriction).
   */
  async restrict(reason: string): Promise<{ until: number; pauseMs: number; restrictions: number } | null> {
    const now = this.clock.now();
    const previous = this.pause;
    if (this.pausedUntil(now) !== null) return null;
    const sinceLast = previous?.lastRestrictionAt ? now - previous.lastRestrictionAt : null;
    const { pauseMs, restrictions } = pauseAfterRestriction(previous, sinceLast, this.settings);
    const until = now + pauseMs;
    this.pause = { pausedUntil: until, reason, restrictions, lastRestrictionAt: now };
    await this.repo.savePause(this.instanceId, this.pause, now);
    return { until, pauseMs, restrictions };
  }
}

/** A 1:1 address (a number or a @lid): groups and channels are never strangers. */
function isContactAddress(phone: string): boolean {
  return !phone.endsWith('-group') && !phone.endsWith('@newsletter') && phone !== STATUS_TARGET;
}
