// Authentication hooks, in the contract's order: Client-Token (401) → rate limit (429) →
// instance of this account (404) → instanceToken (401). Runs before body parsing and validation.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Account } from '../domain/account.js';
import type { Instance } from '../domain/instance.js';
import { errors } from '../errors.js';
import type { AccountsService } from '../services/accounts-service.js';
import type { InstancesService } from '../services/instances-service.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
    instance: Instance | null;
  }
  interface FastifyContextConfig {
    /** A Z-API partner route: the account's token may also come as `Authorization: Bearer` (docs/contract.md §3). */
    partner?: boolean;
  }
}

export function clientTokenOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['client-token'];
  return Array.isArray(raw) ? raw[0] : raw;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The account token a request presents: its `Client-Token`, or on a partner route (Z-API's partner
 * API sends the Partner-Token as `Authorization: Bearer <token>` and no Client-Token) the bearer
 * token. Either is then looked up by hash, like every token (docs/contract.md §3).
 */
export function accountTokenOf(request: FastifyRequest): string | undefined {
  const clientToken = clientTokenOf(request);
  if (clientToken !== undefined || request.routeOptions.config.partner !== true) return clientToken;
  const authorization = request.headers.authorization;
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

// Callback-style hooks that answer from the services' caches without a promise, and fall back to
// the async lookup on a miss: these run on every request of the send-accept path (bench/enqueue).

export function accountHook(accounts: AccountsService, limiter: RateLimiter) {
  function admit(request: FastifyRequest, reply: FastifyReply, account: Account): void {
    const wait = limiter.take(account.id);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw errors.rateLimited(wait);
    }
    request.account = account;
  }
  return function authenticateAccount(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const token = accountTokenOf(request);
    let account: Account | undefined;
    try {
      account = accounts.authenticateCached(token);
      if (account) admit(request, reply, account);
    } catch (err) {
      return done(err as Error);
    }
    if (account) return done();
    accounts.authenticate(token).then((found) => {
      try {
        admit(request, reply, found);
      } catch (err) {
        return done(err as Error);
      }
      done();
    }, done);
  };
}

export function instanceHook(instances: InstancesService) {
  return function authenticateInstance(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const params = request.params as { instanceId?: string; instanceToken?: string };
    const account = request.account;
    if (!account) return done(errors.unauthorizedClient());
    const instanceId = params.instanceId ?? '';
    const instanceToken = params.instanceToken ?? '';
    try {
      request.instance = instances.resolveCached(account.id, instanceId, instanceToken) ?? null;
    } catch (err) {
      return done(err as Error);
    }
    if (request.instance) return done();
    instances.resolve(account.id, instanceId, instanceToken).then((instance) => {
      request.instance = instance;
      done();
    }, done);
  };
}

/** The authenticated instance of an instance-scoped request. */
export function instanceOf(request: FastifyRequest): Instance {
  if (!request.instance) throw errors.instanceNotFound();
  return request.instance;
}

export function accountOf(request: FastifyRequest): Account {
  if (!request.account) throw errors.unauthorizedClient();
  return request.account;
}
