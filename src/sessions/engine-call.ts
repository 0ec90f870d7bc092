// How every engine operation calls the network: on the instance's open socket ("not connected"
// otherwise), within the command timeout, with Baileys' failures turned into domain errors (a
// closed link is "not connected", a refusal carries the network's reason, a silent query is a
// command timeout).
import type { Clock } from '../clock.js';
import { DomainError, errors } from '../errors.js';
import { SendFailure } from '../domain/send-failure.js';
import type { LiveSession } from './live-session.js';
import type { WASocket } from './link/socket-config.js';

/** Status codes with which the network refuses a request, as opposed to a link that failed. */
const LINK_CODES = new Set([408, 428, 440, 500, 503, 515]);

/** The shape of Baileys' errors (@hapi/boom), read without depending on that package. */
export interface BoomLike extends Error {
  isBoom: true;
  output?: { statusCode?: number };
  data?: unknown;
}

export function isBoom(err: unknown): err is BoomLike {
  return err instanceof Error && (err as Partial<BoomLike>).isBoom === true;
}

/** Converts whatever Baileys threw into the domain's vocabulary. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (isBoom(err)) {
    // An <error code=…/> answer to a query: the network refused (Boom keeps the code in `data`).
    if (typeof err.data === 'number') return errors.networkRefused(`${err.message} (${err.data})`, err);
    const code = err.output?.statusCode;
    if (code === 408 && /timed? ?out/i.test(err.message)) return errors.commandTimeout();
    if ((code !== undefined && LINK_CODES.has(code)) || /connection (closed|lost|terminated)/i.test(err.message)) return errors.notConnected();
    return errors.networkRefused(`${err.message}${code ? ` (${code})` : ''}`, err);
  }
  return errors.networkRefused(err instanceof Error ? err.message : String(err), err);
}

/**
 * How long a command on the link may take: a guard on the network's answer (never scaled, since
 * the network does not answer faster in a time-lapse run), timed by the gateway's clock.
 */
export interface CommandLimit {
  readonly clock: Clock;
  readonly commandTimeoutMs: number;
}

/** Runs `fn`, failing with "Worker command timeout" once the limit's guard runs out. */
export async function withTimeout<T>(limit: CommandLimit, fn: () => Promise<T>): Promise<T> {
  try {
    return await limit.clock.withTimeout(fn(), limit.commandTimeoutMs, () => errors.commandTimeout());
  } catch (err) {
    throw toDomainError(err);
  }
}

/** The session and its socket when the link is open; "not connected" otherwise. */
export function openSocket(session: LiveSession | undefined): { session: LiveSession; sock: WASocket } {
  if (!session?.sock || !session.open) throw errors.notConnected();
  return { session, sock: session.sock };
}

/**
 * The media pipeline speaks the sender's language (SendFailure); a synchronous endpoint answers at
 * once: a payload that is not a usable image is the client's mistake (400), a URL that could not be
 * fetched is a refusal with its reason (422).
 */
export function mediaError(err: unknown): Error {
  if (!(err instanceof SendFailure)) return err instanceof Error ? err : new Error(String(err));
  if (err.code === 'MEDIA_INVALID' || err.code === 'MEDIA_TOO_LARGE') return errors.invalidInput(err.reason);
  return errors.networkRefused(err.reason, err);
}

/** Where an engine finds an instance's session, and how long its commands may take. */
export interface SessionCommandDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
}

/** The one way a feature engine runs a command on an instance's link. */
export interface SessionCommands {
  /** The instance's open session ("not connected" otherwise). */
  open(instanceId: string): LiveSession;
  /** Runs `fn` on the open socket within the command timeout; failures become domain errors. */
  run<T>(instanceId: string, fn: (sock: WASocket, session: LiveSession) => Promise<T>): Promise<T>;
}

export function sessionCommands(deps: SessionCommandDeps): SessionCommands {
  return {
    open: (instanceId) => openSocket(deps.sessionOf(instanceId)).session,
    run: (instanceId, fn) => {
      const { session, sock } = openSocket(deps.sessionOf(instanceId));
      return withTimeout(deps, () => fn(sock, session));
    },
  };
}
