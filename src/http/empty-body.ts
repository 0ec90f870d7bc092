// An empty body is no body, whatever its Content-Type (docs/contract.md §1). Z-API clients that pass
// their values in the query string still send a POST, PUT or DELETE with `Content-Length: 0` (or none) and a form or
// JSON content type; Fastify would run that type's parser (415 for a form, 400 for JSON). Dropping
// the header before parsing lets such a request through as body-less, while a non-empty body of any
// type other than JSON still answers 415.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

export function emptyBodyIsNoBody(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const headers = request.headers;
  // Without Content-Length and Transfer-Encoding an HTTP/1.1 request has no body at all (some
  // clients send a DELETE that way, Content-Type and all).
  const length = headers['content-length'];
  if (headers['content-type'] !== undefined && headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    delete headers['content-type'];
  }
  done();
}
