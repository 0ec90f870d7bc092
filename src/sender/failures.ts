// What the lane does with a send that did not go through. Every failure lands in exactly one
// class, so no path can requeue a message without counting it against its budget unless the
// link itself was down (then it waits for the link, not for a retry).
import { DomainError } from '../errors.js';
import { SendFailure, type SendErrorCode } from '../domain/send-failure.js';

type FailureOutcome =
  /** The link was down: back to the head of the queue, the attempt not counted. */
  | { kind: 'disconnected' }
  /** Refused while the anti-ban strategy paused the instance: waits out the pause. */
  | { kind: 'restricted' }
  /** Retrying cannot help: fail now. */
  | { kind: 'permanent'; reason: string; code: SendErrorCode }
  /** May pass: retry with backoff while the budget lasts. */
  | { kind: 'transient'; reason: string; code: SendErrorCode };

interface FailureContext {
  /** The transport reports the instance connected right after the failure. */
  connected: boolean;
  /** A restriction signal arrived during this send and the strategy is on. */
  restricted: boolean;
}

const NOT_ON_WHATSAPP = /not on whatsapp|no such user|item-not-found|\(404\)/i;

export function classifyFailure(err: unknown, ctx: FailureContext): FailureOutcome {
  if (err instanceof SendFailure) {
    return { kind: err.permanent ? 'permanent' : 'transient', reason: err.reason, code: err.code };
  }
  if (err instanceof DomainError) {
    switch (err.code) {
      case 'not_connected':
        // A "closed link" while the session still reports itself open is not a disconnection
        // (Baileys reports a failed media upload with a link-like status): it counts.
        return ctx.connected ? { kind: 'transient', reason: 'the link failed during the send', code: 'TIMEOUT' } : { kind: 'disconnected' };
      case 'network_refused': {
        if (ctx.restricted) return { kind: 'restricted' };
        const reason = err.detail ?? err.message;
        return { kind: 'permanent', reason, code: NOT_ON_WHATSAPP.test(reason) ? 'NOT_ON_WHATSAPP' : 'REFUSED' };
      }
      case 'command_timeout':
        return { kind: 'transient', reason: 'the network did not answer in time', code: 'TIMEOUT' };
      default:
        return { kind: 'transient', reason: err.detail ?? err.message, code: 'UNKNOWN' };
    }
  }
  return { kind: 'transient', reason: 'Unable to process request', code: 'UNKNOWN' };
}

/** Protocol ms before attempt `attempts + 1`: doubling from `baseMs`, ±20 % jitter, capped. */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number, capMs = 5 * 60_000): number {
  const raw = Math.min(capMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return raw * (0.8 + 0.4 * random());
}
