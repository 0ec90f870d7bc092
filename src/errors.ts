// Every error a client can be answered with, in one module: the domain errors and their factories
// (the only place a DomainError is made), and the stable codes the HTTP layer puts on the wire
// beside `error` and `message` (docs/errors.md lists each code with its status and meaning).
// Only src/http/error-handler.ts knows the HTTP statuses.

/** The category of a domain error: what src/http/error-handler.ts turns into an HTTP status. */
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
  | 'no_owner'
  | 'key_reused';

/**
 * The code each factory below puts on the wire (UPPER_SNAKE, never renamed once released: clients
 * branch on it where the Z-API `error` strings are shared, e.g. three different 429s), with its
 * category.
 */
const CATEGORY_OF = {
  INVALID_INPUT: 'invalid_input',
  INVALID_CLIENT_TOKEN: 'unauthorized_client',
  INVALID_INSTANCE_TOKEN: 'unauthorized_instance',
  INSTANCE_NOT_FOUND: 'instance_not_found',
  NOT_FOUND: 'not_found',
  QR_CODE_UNAVAILABLE: 'qr_unavailable',
  INSTANCE_NOT_CONNECTED: 'not_connected',
  INSTANCE_UNAVAILABLE: 'no_owner',
  NETWORK_REFUSED: 'network_refused',
  NOT_SUPPORTED: 'network_refused',
  RATE_LIMITED: 'rate_limited',
  QUEUE_FULL: 'queue_full',
  COMMAND_TIMEOUT: 'command_timeout',
  CONFLICT: 'conflict',
  MEDIA_LINK_INVALID: 'forbidden',
  MEDIA_UNAVAILABLE: 'upstream_unavailable',
  DISK_FULL: 'disk_full',
  BUSINESS_ACCOUNT_REQUIRED: 'not_business',
  INSTANCE_LIMIT_REACHED: 'forbidden',
  ACCOUNT_QUEUE_FULL: 'queue_full',
  EVENT_STREAM_LIMIT_REACHED: 'rate_limited',
  PHONE_CHECK_JOB_LIMIT_REACHED: 'rate_limited',
  RECIPIENT_OPTED_OUT: 'forbidden',
  KEY_SCOPE_MISSING: 'forbidden',
  KEY_ADDRESS_REFUSED: 'forbidden',
  KEY_INSTANCE_REFUSED: 'forbidden',
  KEY_RATE_LIMITED: 'rate_limited',
  IDEMPOTENCY_KEY_REUSED: 'key_reused',
} as const satisfies Record<string, DomainErrorCode>;

export type DomainErrorWireCode = keyof typeof CATEGORY_OF;
export const DOMAIN_ERROR_CODES = Object.keys(CATEGORY_OF) as readonly DomainErrorWireCode[];

/** The category of a domain error code (so its status: src/http/error-handler.ts `statusOf`). */
export function categoryOf(code: DomainErrorWireCode): DomainErrorCode {
  return CATEGORY_OF[code];
}

/** Codes of the errors the HTTP layer answers itself, for requests that never reach a use case. */
export const REQUEST_ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_REQUEST',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_REFUSED',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'REQUEST_TIMEOUT',
  'INTERNAL_ERROR',
] as const;
export type RequestErrorCode = (typeof REQUEST_ERROR_CODES)[number];

/** Every code an error response can carry (the `code` enum of the OpenAPI ErrorBody). */
export type ErrorCode = DomainErrorWireCode | RequestErrorCode;
export const ERROR_CODES: readonly ErrorCode[] = [...DOMAIN_ERROR_CODES, ...REQUEST_ERROR_CODES];

export class DomainError extends Error {
  /** The category, which picks the HTTP status; `wireCode` is the finer code the client sees. */
  readonly code: DomainErrorCode;
  readonly retryAfterSeconds: number | undefined;

  constructor(
    readonly wireCode: DomainErrorWireCode,
    message: string,
    readonly detail?: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.code = CATEGORY_OF[wireCode];
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

export const errors = {
  invalidInput: (detail: string) => new DomainError('INVALID_INPUT', 'Invalid request', detail),
  unauthorizedClient: () => new DomainError('INVALID_CLIENT_TOKEN', 'Unauthorized', 'Invalid Client-Token'),
  unauthorizedInstance: () => new DomainError('INVALID_INSTANCE_TOKEN', 'Unauthorized', 'Invalid instanceToken'),
  instanceNotFound: () => new DomainError('INSTANCE_NOT_FOUND', 'Instance not found'),
  notFound: (what = 'Not found') => new DomainError('NOT_FOUND', what),
  /** `detail` says the actual reason (already connected, or why the network gave no QR) beside Z-API's string. */
  qrUnavailable: (detail?: string) =>
    new DomainError('QR_CODE_UNAVAILABLE', 'QR code not available. Instance may already be connected or QR expired.', detail),
  notConnected: () => new DomainError('INSTANCE_NOT_CONNECTED', 'Instance not connected'),
  /** Cluster mode: no live node runs the instance's session right now (a failover or handover). */
  noOwner: (retryAfterSeconds: number) =>
    new DomainError('INSTANCE_UNAVAILABLE', 'Instance unavailable', 'no node of the cluster runs this instance right now (a failover or handover is under way); try again', { retryAfterSeconds }),
  networkRefused: (reason: string, cause?: unknown) =>
    new DomainError('NETWORK_REFUSED', 'Unable to process request', reason, { cause }),
  /** A Z-API endpoint a linked device (the engine) cannot perform: an honest refusal, never a fake success (docs/contract.md §11). */
  notSupported: (reason: string) => new DomainError('NOT_SUPPORTED', 'Unable to process request', reason),
  rateLimited: (retryAfterSeconds: number) =>
    new DomainError('RATE_LIMITED', 'Too many requests', undefined, { retryAfterSeconds }),
  queueFull: (retryAfterSeconds: number) =>
    new DomainError('QUEUE_FULL', 'Too many requests', 'instance queue is full', { retryAfterSeconds }),
  commandTimeout: () => new DomainError('COMMAND_TIMEOUT', 'Worker command timeout'),
  conflict: (message: string, detail?: string) => new DomainError('CONFLICT', message, detail),
  /** An API key without the scope the route declares (src/http/scopes.ts). */
  keyScopeMissing: (scope: string) => new DomainError('KEY_SCOPE_MISSING', 'Forbidden', `this API key lacks the ${scope} scope`),
  /** An API key used from a client address outside its ranges. */
  keyAddressRefused: () => new DomainError('KEY_ADDRESS_REFUSED', 'Forbidden', 'this API key may not be used from this address'),
  /** An API key limited to some instances, used on another (or on an account-wide route). */
  keyInstanceRefused: () => new DomainError('KEY_INSTANCE_REFUSED', 'Forbidden', 'this API key may not reach this instance'),
  /** The API key's own request rate limit. */
  keyRateLimited: (retryAfterSeconds: number) => new DomainError('KEY_RATE_LIMITED', 'Too many requests', 'this API key\'s rate limit', { retryAfterSeconds }),
  /** A signed link that is wrong or out of date: never the file. */
  forbidden: (detail: string) => new DomainError('MEDIA_LINK_INVALID', 'Forbidden', detail),
  /** The network could not give us what was asked now (a media download failed); try again later. */
  upstreamUnavailable: (detail: string, retryAfterSeconds: number) =>
    new DomainError('MEDIA_UNAVAILABLE', 'Media not available', detail, { retryAfterSeconds }),
  /** A write failed for want of space (the store's disk, or PostgreSQL's): nothing of it was stored. */
  diskFull: (cause: unknown) =>
    new DomainError('DISK_FULL', 'Insufficient Storage', 'the disk is full: nothing was stored; try again once space has been freed', { cause }),
  /** A WhatsApp Business endpoint on an instance paired with a personal WhatsApp account. */
  notBusiness: () =>
    new DomainError('BUSINESS_ACCOUNT_REQUIRED', 'WhatsApp Business account required', 'this works only on an instance paired with a WhatsApp Business account; this one is a personal WhatsApp account'),
  /** A direct send to a number on the account's opt-out list while the account is in strict mode (docs/contract.md §12). */
  optedOut: (phone: string) =>
    new DomainError('RECIPIENT_OPTED_OUT', 'Forbidden', `phone: ${phone} opted out of this account's messages, and the account's opt-out mode is strict; nothing was queued`),
  /** The account has as many instances as it may (ZAPGATE_MAX_INSTANCES_PER_ACCOUNT). */
  tooManyInstances: (limit: number) =>
    new DomainError('INSTANCE_LIMIT_REACHED', 'Forbidden', `instance limit reached: an account may have ${limit} instances (delete one first)`),
  /** The account's queued messages hold as many bytes as they may (ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT). */
  queuedBytesFull: (queued: number, adding: number, limit: number, retryAfterSeconds: number) =>
    new DomainError(
      'ACCOUNT_QUEUE_FULL',
      'Too many requests',
      `the account's queued messages hold ${queued} bytes; ${adding} more would pass the limit of ${limit} bytes (wait for messages to be sent)`,
      { retryAfterSeconds },
    ),
  /** The account holds as many event streams open as it may (each is a long-lived connection). */
  tooManyEventStreams: (limit: number) =>
    new DomainError('EVENT_STREAM_LIMIT_REACHED', 'Too many requests', `this account already has ${limit} event streams open (close one, or resume later with Last-Event-ID)`, { retryAfterSeconds: 5 }),
  /** The instance runs as many phone-exists-batch jobs as it may at once. */
  tooManyPhoneCheckJobs: (limit: number) =>
    new DomainError('PHONE_CHECK_JOB_LIMIT_REACHED', 'Too many requests', `this instance already has ${limit} phone-exists-batch jobs running: wait for one to finish`, { retryAfterSeconds: 30 }),
  /** A send's Idempotency-Key already names another request's message (within its 24 hours). */
  idempotencyKeyReused: () =>
    new DomainError('IDEMPOTENCY_KEY_REUSED', 'Unprocessable request', 'Idempotency-Key: this key was used for a different request within the last 24 hours; nothing was queued (use a new key for a new message)'),
} as const;

/** Whether `err` is (or wraps) a write that failed for want of space. */
export function isDiskFull(err: unknown): boolean {
  return err instanceof DomainError && err.code === 'disk_full';
}
