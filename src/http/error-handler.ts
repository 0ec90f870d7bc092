// The one place where errors become HTTP responses: domain codes → statuses, framework errors → 4xx,
// anything else → 500 with the request id (never a stack trace or a secret). Every body carries a
// stable `code` beside the contract's `error` and `message` (docs/errors.md).
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, errors, type DomainErrorCode, type ErrorCode } from '../errors.js';
import { ownerlessRetryAfter } from './ownerless.js';

const STATUS: Record<DomainErrorCode, number> = {
  invalid_input: 400,
  unauthorized_client: 401,
  unauthorized_instance: 401,
  instance_not_found: 404,
  not_found: 404,
  qr_unavailable: 404,
  not_connected: 409,
  conflict: 409,
  network_refused: 422,
  rate_limited: 429,
  queue_full: 429,
  command_timeout: 504,
  forbidden: 403,
  upstream_unavailable: 502,
  disk_full: 507,
  not_business: 403,
  no_owner: 503,
  key_reused: 422,
};

export interface ErrorBody {
  error: string;
  message?: string;
  code: ErrorCode;
}

/** The HTTP status of a domain error category (docs/errors.md lists it for each code). */
export function statusOf(category: DomainErrorCode): number {
  return STATUS[category];
}

export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Cluster mode: "not connected" from an instance no live node runs is a hand-over, not an offline number.
  const ownerless = err instanceof DomainError && err.code === 'not_connected' ? ownerlessRetryAfter(request) : undefined;
  if (ownerless !== undefined) err = errors.noOwner(ownerless);
  if (err instanceof DomainError) {
    if (err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds));
    return send(reply, STATUS[err.code], err.wireCode, err.message, err.detail);
  }
  const fe = err as FastifyError;
  if (fe.validation) {
    return send(reply, 400, 'VALIDATION_FAILED', 'Invalid request', describeValidation(fe));
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return send(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported Media Type', 'send the body as application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return send(reply, 413, 'PAYLOAD_TOO_LARGE', 'Payload Too Large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', 'body: must not be empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', 'body: malformed JSON');
    case 'FST_ERR_BAD_URL':
      return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', 'path: malformed percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', 'path: a segment is longer than 200 characters');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', 'content-length does not match the body');
    default:
      break;
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    // Malformed JSON and other client mistakes detected by the framework.
    const message = fe.code === 'FST_ERR_CTP_INVALID_JSON' || fe instanceof SyntaxError ? 'body: malformed JSON' : undefined;
    if (fe.statusCode === 400) return send(reply, 400, 'MALFORMED_REQUEST', 'Invalid request', message);
    return send(reply, fe.statusCode, 'REQUEST_REFUSED', 'Request refused', message);
  }
  request.log.error({ err }, 'unhandled error');
  return send(reply, 500, 'INTERNAL_ERROR', 'Unable to process request');
}

function send(reply: FastifyReply, status: number, code: ErrorCode, error: string, message?: string): FastifyReply {
  const body: ErrorBody = message === undefined ? { error, code } : { error, message, code };
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/** Turns Ajv's first error into "<field>: <what is wrong>". */
function describeValidation(err: FastifyError): string {
  const first = err.validation?.[0];
  if (!first) return err.message;
  const where = (err.validationContext ?? 'body') as string;
  const path = first.instancePath
    .split('/')
    .filter(Boolean)
    .map((seg) => (/^\d+$/.test(seg) ? `[${seg}]` : `.${seg}`))
    .join('')
    .replace(/^\./, '');
  const params = first.params as { missingProperty?: string; allowedValues?: unknown[] };
  if (first.keyword === 'required' && params.missingProperty) {
    return `${path ? `${path}.` : ''}${params.missingProperty}: is required`;
  }
  return `${path || where}: ${first.message ?? 'is invalid'}`;
}
