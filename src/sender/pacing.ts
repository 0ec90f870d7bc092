// The pacing rules as pure functions of a message, the settings and a random source: Z-API's gaps
// and the anti-ban strategy's human-like gaps, typing times, caps, warm-up and pause escalation.
// All durations here are protocol milliseconds; the lane converts them with the clock's scale.
import { createHash } from 'node:crypto';
import type { AntibanSettings } from '../config.js';
import { sendKindsTypedLength, type OutgoingContent } from '../domain/outgoing.js';

export type Random = () => number;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** Z-API: `delayMessage` seconds exactly, else a random gap of 1–3 s. */
export function zapiGapMs(delayMessageSeconds: number | null, random: Random): number {
  if (delayMessageSeconds !== null) return delayMessageSeconds * 1000;
  return 1000 + random() * 2000;
}

/**
 * Anti-ban: a person thinks before each message; the user's own `delayMessage` is honoured when it
 * is longer, never shortened below the human gap.
 */
export function humanGapMs(delayMessageSeconds: number | null, s: AntibanSettings, random: Random): number {
  const think = s.minGapMs + random() * (s.maxGapMs - s.minGapMs);
  return Math.max(think, delayMessageSeconds === null ? 0 : delayMessageSeconds * 1000);
}

/** What a person would type for this content (captions and list texts count; media does not). */
function typedLength(c: OutgoingContent): number {
  switch (c.type) {
    case 'text':
      return c.message.length;
    case 'image':
      return c.caption?.length ?? 0;
    case 'sticker':
      return 0;
    case 'location':
      return (c.title?.length ?? 0) + (c.address?.length ?? 0);
    case 'option-list':
      return c.message.length + c.title.length + c.options.reduce((n, o) => n + o.title.length + o.description.length, 0);
    case 'button-list':
      return c.message.length + c.buttons.reduce((n, b) => n + b.label.length, 0);
    // Media sends: only a caption is typed.
    case 'audio':
    case 'ptv':
      return 0;
    case 'video':
    case 'gif':
    case 'document':
      return c.caption?.length ?? 0;
    default:
      return sendKindsTypedLength(c);
  }
}

/** "typing…" for as long as the text takes at the configured speed, ±25 %, between 1 s and the cap. */
export function typingMs(c: OutgoingContent, s: AntibanSettings, random: Random): number {
  const base = (typedLength(c) / s.typingCharsPerSecond) * 1000;
  const jittered = base * (0.75 + random() * 0.5);
  return Math.min(s.maxTypingMs, Math.max(1000, jittered));
}

/** Identical content is recognised by a hash of the normalised content (never altered). */
export function contentKey(c: OutgoingContent): string {
  return createHash('sha256').update(JSON.stringify(c)).digest('base64url');
}

/**
 * A newly paired number starts at `warmupStart` of the stranger caps and reaches them linearly
 * after `warmupDays`. `ageMs` is protocol time since pairing (null: not known → just paired).
 */
export function warmupFactor(ageMs: number | null, s: AntibanSettings): number {
  if (s.warmupDays <= 0) return 1;
  const days = Math.max(0, ageMs ?? 0) / DAY_MS;
  return Math.min(1, s.warmupStart + (1 - s.warmupStart) * (days / s.warmupDays));
}

interface StrangerCaps {
  perHour: number;
  perDay: number;
}

/** The caps for first messages to strangers now, after the warm-up ramp (0 = no cap; never below 1). */
export function strangerCaps(factor: number, s: AntibanSettings): StrangerCaps {
  const scaled = (cap: number): number => (cap <= 0 ? 0 : Math.max(1, Math.floor(cap * factor)));
  return { perHour: scaled(s.strangersPerHour), perDay: scaled(s.strangersPerDay) };
}

/**
 * Earliest time another cold first message may go out, given when the previous ones went out
 * (ascending). Times are in one unit; `hour`/`day` are the window lengths in that unit and
 * `spacing` the minimum distance from the latest one.
 */
export function strangerReadyAt(
  coldSends: readonly number[],
  caps: StrangerCaps,
  windows: { hour: number; day: number },
  spacing: number,
): number {
  let ready = 0;
  const last = coldSends[coldSends.length - 1];
  if (last !== undefined) ready = last + spacing;
  const windowed = (cap: number, length: number): number => {
    if (cap <= 0 || coldSends.length < cap) return 0;
    // The cap-th most recent send must leave the window first.
    const oldestThatCounts = coldSends[coldSends.length - cap] as number;
    return oldestThatCounts + length;
  };
  return Math.max(ready, windowed(caps.perHour, windows.hour), windowed(caps.perDay, windows.day));
}

/**
 * Earliest time this content may go to `phone` when the same content already went to other
 * recipients within the last hour (`sends` ascending by time).
 */
export function identicalReadyAt(
  sends: readonly { phone: string; at: number }[],
  phone: string,
  cap: number,
  hour: number,
): number {
  if (cap <= 0) return 0;
  const recipients = new Map<string, number>();
  for (const s of sends) recipients.set(s.phone, s.at);
  if (recipients.has(phone) || recipients.size < cap) return 0;
  // Wait until enough distinct recipients have left the window (each keeps its latest time).
  const times = [...recipients.values()].sort((a, b) => a - b);
  return (times[times.length - cap] as number) + hour;
}

/**
 * How long to pause after a restriction signal: `pauseMs`, doubled for each further restriction
 * within a day of the previous one, up to `maxPauseMs`. Returns the pause and the new streak.
 */
export function pauseAfterRestriction(
  previous: { restrictions: number; lastRestrictionAt: number | null } | undefined,
  sinceLastMs: number | null,
  s: AntibanSettings,
): { pauseMs: number; restrictions: number } {
  const streak = previous && sinceLastMs !== null && sinceLastMs < DAY_MS ? previous.restrictions + 1 : 1;
  return { pauseMs: Math.min(s.maxPauseMs, s.pauseMs * 2 ** (streak - 1)), restrictions: streak };
}
