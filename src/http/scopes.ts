// What each route needs from an API key, declared once in the route's schema as
// `'x-zapgate-scope': 'read' | 'send' | 'manage' | 'admin' | 'any' | 'public'` (the same key lists it in
// the OpenAPI document), and the one check that enforces it with the key's other limits
// (docs/api-keys.md). The Client-Token passes every check: it is the account's full-power key.
import type { FastifyRequest } from 'fastify';
import { scopeAllows, type ApiKey, type RouteScope } from '../domain/api-key.js';
import { cidrMatcher } from '../domain/cidr.js';
import { errors } from '../errors.js';

declare module 'fastify' {
  interface FastifySchema {
    /** The scope an API key needs for this route (src/http/scopes.ts); every route declares one. */
    'x-zapgate-scope'?: RouteScope;
  }
}

/** The scope the request's route declares (undefined: none declared, so no key may use it). */
export function routeScope(request: FastifyRequest): RouteScope | undefined {
  return (request.routeOptions.schema as { 'x-zapgate-scope'?: RouteScope } | undefined)?.['x-zapgate-scope'];
}

const matchers = new WeakMap<ApiKey, (address: string) => boolean>();

/**
 * Throws unless `key` may make this request: from one of its address ranges (403), with the scope
 * the route declares (403), on one of its instances (403; an instance-limited key uses no
 * account-wide route but those open to `any` credential).
 */
export function enforceKey(request: FastifyRequest, key: ApiKey): void {
  if (key.cidrs) {
    let match = matchers.get(key);
    if (!match) matchers.set(key, (match = cidrMatcher(key.cidrs)));
    if (!match(request.ip)) throw errors.keyAddressRefused();
  }
  const needed = routeScope(request);
  if (needed === undefined) throw errors.keyScopeMissing('(undeclared)');
  if (!scopeAllows(key.scopes, needed)) throw errors.keyScopeMissing(needed);
  if (key.instanceIds && needed !== 'any') {
    const instanceId = (request.params as { instanceId?: string } | undefined)?.instanceId;
    if (instanceId === undefined || !key.instanceIds.includes(instanceId)) throw errors.keyInstanceRefused();
  }
}
