// What a lane decides about the message at the head of its queue, drawn once per message: the gap
// before it, its "typing…" time, and what the anti-ban strategy needs to know of it (lane.ts).
import type { AntibanSettings } from '../config.js';
import type { OutgoingMessage } from '../domain/outgoing.js';
import type { QueueHead } from '../store/messages-repo.js';
import type { AntibanTraits } from './antiban-memory.js';
import { contentKey, humanGapMs, typingMs, zapiGapMs, type Random } from './pacing.js';

/** What the lane decided about the message at the head of the queue (drawn once per message). */
export interface Plan extends AntibanTraits {
  seq: number;
  antiban: boolean;
  /** The message to send; null for a large payload (read at send time) or an unreadable one. */
  message: OutgoingMessage | null;
  large: boolean;
  unreadable: boolean;
  /** Protocol ms after the previous send (or the enqueue) before this one may go. */
  gapMs: number;
  typingMs: number;
}

interface PlanContext {
  /** false (ZAPGATE_PACING=off): no gaps and no typing. */
  readonly pacing: boolean;
  readonly settings: AntibanSettings;
  readonly random: Random;
  /** The anti-ban strategy is on for the instance. */
  readonly antiban: boolean;
  payloadOf(seq: number): Promise<string | undefined>;
  isStranger(phone: string): Promise<boolean>;
}

/** The queued message, or null when it cannot be read (sendOne fails it with a DeliveryCallback error). */
export function parsePayload(payload: string | null | undefined): OutgoingMessage | null {
  try {
    return payload ? (JSON.parse(payload) as OutgoingMessage) : null;
  } catch {
    return null;
  }
}


export async function planHead(head: QueueHead, ctx: PlanContext): Promise<Plan> {
  const { pacing, settings: s, random, antiban } = ctx;
  const large = head.payload === null;
  // A large payload is read now only when the strategy needs its content, and not kept.
  const message = large ? (antiban ? parsePayload(await ctx.payloadOf(head.seq)) : null) : parsePayload(head.payload);
  const stranger = antiban && (await ctx.isStranger(head.phone));
  return {
    seq: head.seq,
    phone: head.phone,
    antiban,
    message: large ? null : message,
    large,
    unreadable: !large && message === null,
    gapMs: !pacing ? 0 : antiban ? humanGapMs(head.delay_message, s, random) : zapiGapMs(head.delay_message, random),
    typingMs: !pacing ? 0 : head.delay_typing !== null ? head.delay_typing * 1000 : antiban && message ? typingMs(message.content, s, random) : 0,
    stranger,
    strangerSpacingMs: pacing && stranger ? s.strangerGapMs * (1 + random()) : 0,
    contentKey: antiban && message ? contentKey(message.content) : null,
  };
}
