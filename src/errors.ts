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
  | 'conflict';

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
  networkRefused: (reason: string, cause?: unknown) =>
    new DomainError('network_refused', 'Unable to process request', reason, { cause }),
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError('rate_limited', 'Too many requests', undefined, { retryAfterSeconds }),
  queueFull: (retryAfterSeconds: number) =>
    new DomainError('queue_full', 'Too many requests', 'instance queue is full', { retryAfterSeconds }),
  commandTimeout: () => new DomainError('command_timeout', 'Worker command timeout'),
  conflict: (message: string, detail?: string) => new DomainError('conflict', message, detail),
} as const;
