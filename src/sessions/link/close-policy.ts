// What a closed socket means for the instance: the reconnect policy per close code
// (docs/whatsapp-protocol.md Part 1), as a pure function so every code is unit-tested.

export type CloseAction =
  /** 515 (restart required, always right after pairing): reconnect at once. */
  | { kind: 'reconnect-now' }
  /** 408/428/500/503 and anything unknown on a paired device: reconnect with backoff. */
  | { kind: 'backoff' }
  /** 401: the phone removed this device; wipe the credentials, a new QR is needed. */
  | { kind: 'logged-out' }
  /** 440: another client took the session over; do not fight it. */
  | { kind: 'replaced' }
  /** 403: the network refused the account. */
  | { kind: 'banned' }
  /** 411: multi-device mismatch; the credentials are useless, pair again. */
  | { kind: 're-pair' }
  /** The pairing session ended (QR refs exhausted, or a link lost before pairing finished). */
  | { kind: 'pairing-ended'; reason: string }
  /** We closed it ourselves (shutdown, restart, delete): nothing to do. */
  | { kind: 'intentional' };

interface CloseContext {
  /** The device holds a completed registration (it has been paired). */
  registered: boolean;
  /** The manager asked for this close. */
  intentional: boolean;
}

export const QR_REFS_ENDED = 'QR refs attempts ended';

export function classifyClose(code: number | undefined, message: string, ctx: CloseContext): CloseAction {
  if (ctx.intentional) return { kind: 'intentional' };
  if (code === 515) return { kind: 'reconnect-now' };
  if (code === 408 && message.includes(QR_REFS_ENDED)) return { kind: 'pairing-ended', reason: 'QR code expired' };
  if (code === 401) return ctx.registered ? { kind: 'logged-out' } : { kind: 'pairing-ended', reason: 'pairing refused by the network' };
  if (code === 440) return { kind: 'replaced' };
  if (code === 403) return { kind: 'banned' };
  if (code === 411) return { kind: 're-pair' };
  // The message says why (e.g. the instance's proxy refused the connection).
  if (!ctx.registered) return { kind: 'pairing-ended', reason: `connection lost while pairing (${code ?? 'no code'})${message ? `: ${message}` : ''}` };
  return { kind: 'backoff' };
}

export interface BackoffPolicy {
  /** First delay, protocol ms. */
  baseMs: number;
  /** Largest delay, protocol ms. */
  maxMs: number;
  /** ± fraction of the delay added at random, so a fleet does not reconnect in lockstep. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 5 * 60_000, jitter: 0.3 };

/** Delay before reconnect attempt `attempt` (1-based): base·2^(attempt-1), capped, jittered. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const exp = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)));
  const spread = exp * policy.jitter;
  return Math.max(0, Math.round(exp - spread + random() * 2 * spread));
}
