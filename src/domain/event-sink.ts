// Event sinks (docs/contract.md §5b): message brokers the outbox publishes every reported event to,
// beside (or instead of) webhooks. What one is, how it is named in a delivery row, and how its
// connection URL is shown: never with its password.

export const SINK_KINDS = ['rabbitmq', 'nats'] as const;
export type SinkKind = (typeof SINK_KINDS)[number];

/** A sink's settings at one scope (an instance, an account, or the environment's default). */
export interface SinkSettings {
  /** false switches the sink off at this scope, hiding a wider scope's setting. */
  enabled: boolean;
  /** `amqp://` / `amqps://` (RabbitMQ) or `nats://` / `tls://` (NATS); may carry user and password. */
  url: string;
  /** RabbitMQ: the topic exchange published to (declared durable if missing). Unused by NATS. */
  exchange: string;
  /** First part of the routing key / subject: `<prefix>.<instanceId>.<eventType>`. */
  prefix: string;
}

/** Which scope a resolved sink comes from (GET shows it, so an override is never a surprise). */
export type SinkScope = 'instance' | 'account' | 'environment';

/**
 * A delivery row's `url` names where it goes: a webhook's https URL, or `sink:<kind>` for a broker
 * (the connection URL itself is resolved at each attempt, so its password is never copied into rows).
 */
const TARGET_PREFIX = 'sink:';

export function sinkTarget(kind: SinkKind): string {
  return TARGET_PREFIX + kind;
}

export function sinkOfTarget(target: string): SinkKind | null {
  if (!target.startsWith(TARGET_PREFIX)) return null;
  const kind = target.slice(TARGET_PREFIX.length);
  return (SINK_KINDS as readonly string[]).includes(kind) ? (kind as SinkKind) : null;
}

const SCHEMES: Record<SinkKind, readonly string[]> = { rabbitmq: ['amqp:', 'amqps:'], nats: ['nats:', 'tls:'] };

/** Why a sink URL cannot be used, or null. */
export function sinkUrlProblem(kind: SinkKind, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid URL';
  }
  if (!SCHEMES[kind].includes(url.protocol)) return `must start with ${SCHEMES[kind].map((s) => `${s}//`).join(' or ')}`;
  if (url.hostname === '') return 'has no host';
  return null;
}

/** The URL as it may be shown or logged: the password replaced by `****`. */
export function maskSinkUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = '****';
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}

/** A prefix or exchange name: dot-separated words, safe in routing keys and NATS subjects. */
export const SINK_NAME_PATTERN = '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$';

/** The first scope that sets the sink wins; a disabled one switches it off. */
export function resolveSink(
  scopes: readonly (readonly [SinkScope, SinkSettings | undefined])[],
): { settings: SinkSettings; scope: SinkScope } | null {
  for (const [scope, settings] of scopes) {
    if (settings === undefined) continue;
    return settings.enabled ? { settings, scope } : null;
  }
  return null;
}
