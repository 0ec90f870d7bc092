// What every broker publisher does, and how it reaches the broker: through the address guard, like
// a webhook (docs/contract.md §5b), so a sink cannot be aimed at a private address the operator did
// not allow (ZAPGATE_ALLOW_HOSTS).
import type { Clock } from '../../clock.js';
import type { AddressGuard } from '../../net/address-guard.js';

/** One event as a broker message: the webhook's exact body and its Standard Webhooks headers. */
export interface BrokerMessage {
  /** The event id: `message_id` (RabbitMQ), `Nats-Msg-Id` (NATS), `webhook-id`. */
  id: string;
  /** `<prefix>.<instanceId>.<eventType>`. */
  subject: string;
  body: string;
  headers: Readonly<Record<string, string>>;
  /** The event type (ReceivedCallback, …). */
  type: string;
  /** When this attempt is made (ms on the gateway's clock). */
  now: number;
}

/** One open connection to one broker URL. */
export interface BrokerPublisher {
  /** Resolves once the broker confirmed the message (publisher confirm, JetStream ack). */
  publish(message: BrokerMessage, timeoutMs: number): Promise<void>;
  /** The connection is gone: the next publish opens another. */
  readonly dead: boolean;
  close(): Promise<void>;
}

/** A broker's refusal or silence, with a message safe to record and show (no credentials). */
export class BrokerError extends Error {}

/**
 * The address to connect to for a broker URL's host, checked by the guard (the resolved address is
 * the one connected to, so a DNS answer cannot change between the check and the connection).
 */
export async function guardedAddress(guard: AddressGuard, url: URL): Promise<string> {
  const decision = await guard.checkHost(url.hostname);
  if (!decision.ok) throw new BrokerError(`address refused: ${decision.reason}`);
  const first = decision.addresses[0];
  if (first === undefined) throw new BrokerError(`address refused: host "${url.hostname}" has no address`);
  return first.address;
}

/** How a publisher reaches its broker: the address guard, and the clock that times its guards. */
export interface BrokerAccess {
  guard: AddressGuard;
  clock: Clock;
  /** Ms a connection may take to open: a guard on the broker, never scaled. */
  timeoutMs: number;
}

/** Rejects after `ms` (a guard) with `message`, unless `work` settles first. */
export function within<T>(clock: Clock, work: Promise<T>, ms: number, message: string): Promise<T> {
  return clock.withTimeout(work, ms, () => new BrokerError(message));
}

/** An error's message without anything of the URL that could carry a password. */
export function brokerReason(err: unknown): string {
  if (err instanceof BrokerError) return err.message;
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' || typeof e.code === 'number' ? String(e.code) : undefined;
  const message = String(e.message ?? err).replace(/\b[a-z]+:\/\/[^\s@/]*@/gi, (m) => m.replace(/\/\/[^@]*@/, '//****@'));
  return code === undefined ? message : `${message} (${code})`;
}
