// The closed set of domain errors. Only src/http/error-handler.ts knows their HTTP statuses.

export type DomainErrorCode =
  | 'invalid_input'
  | 'unauthorized_client'
  | 'unauthorized_instance'
  | 'instance_not_found'
  | 'not_found'
  | 'qr_unavailable'
  | 'not_connected'
  | 'network_refused'
  | 'rate_limited'
  | 'queue_full'
  | 'command_timeout'
  | 'conflict'
  | 'forbidden'
  | 'upstream_unavailable'
  | 'disk_full'
  | 'not_business'
  | 'no_owner';

export class DomainError extends Error {
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    readonly detail?: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
  readonly retryAfterSeconds: number | undefined;
}

export const errors = {
  invalidInput: (detail: string) => new DomainError('invalid_input', 'Invalid request', detail),
  unauthorizedClient: () => new DomainError('unauthorized_client', 'Unauthorized', 'Invalid Client-Token'),
  unauthorizedInstance: () => new DomainError('unauthorized_instance', 'Unauthorized', 'Invalid instanceToken'),
  instanceNotFound: () => new DomainError('instance_not_found', 'Instance not found'),
  notFound: (what = 'Not found') => new DomainError('not_found', what),
  qrUnavailable: () =>
    new DomainError('qr_unavailable', 'QR code not available. Instance may already be connected or QR expired.'),
  notConnected: () => new DomainError('not_connected', 'Instance not connected'),
  /** Cluster mode: no live node runs the instance's session right now (a failover or handover). */
  noOwner: (retryAfterSeconds: number) =>
    new DomainError('no_owner', 'Instance unavailable', 'no node of the cluster runs this instance right now (a failover or handover is under way); try again', { retryAfterSeconds }),
  networkRefused: (reason: string, cause?: unknown) =>
    new DomainError('network_refused', 'Unable to process request', reason, { cause }),
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError('rate_limited', 'Too many requests', undefined, { retryAfterSeconds }),
  queueFull: (retryAfterSeconds: number) =>
    new DomainError('queue_full', 'Too many requests', 'instance queue is full', { retryAfterSeconds }),
  commandTimeout: () => new DomainError('command_timeout', 'Worker command timeout'),
  conflict: (message: string, detail?: string) => new DomainError('conflict', message, detail),
  /** A signed link that is wrong or out of date: never the file. */
  forbidden: (detail: string) => new DomainError('forbidden', 'Forbidden', detail),
  /** The network could not give us what was asked now (a media download failed); try again later. */
  upstreamUnavailable: (detail: string, retryAfterSeconds: number) =>
    new DomainError('upstream_unavailable', 'Media not available', detail, { retryAfterSeconds }),
  /** A write failed for want of space (the store's disk, or PostgreSQL's): nothing of it was stored. */
  diskFull: (cause: unknown) =>
    new DomainError('disk_full', 'Insufficient Storage', 'the disk is full: nothing was stored; try again once space has been freed', { cause }),
  /** A WhatsApp Business endpoint on an instance paired with a personal WhatsApp account. */
  notBusiness: () =>
    new DomainError('not_business', 'WhatsApp Business account required', 'this works only on an instance paired with a WhatsApp Business account; this one is a personal WhatsApp account'),
} as const;

/** Whether `err` is (or wraps) a write that failed for want of space. */
export function isDiskFull(err: unknown): boolean {
  return err instanceof DomainError && err.code === 'disk_full';
}
// ─── Per-account quotas (hardening #1) ───────────────────────────────────────────────────────
export const quotaErrors = {
  /** 403: the account has as many instances as it may (ZAPGATE_MAX_INSTANCES_PER_ACCOUNT). */
  tooManyInstances: (limit: number) =>
    new DomainError('forbidden', 'Forbidden', `instance limit reached: an account may have ${limit} instances (delete one first)`),
  /** 429: the account's queued messages hold as many bytes as they may (ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT). */
  queuedBytesFull: (queued: number, adding: number, limit: number, retryAfterSeconds: number) =>
    new DomainError(
      'queue_full',
      'Too many requests',
      `the account's queued messages hold ${queued} bytes; ${adding} more would pass the limit of ${limit} bytes (wait for messages to be sent)`,
      { retryAfterSeconds },
    ),
} as const;
// ─── end of per-account quotas ───────────────────────────────────────────────────────────────
