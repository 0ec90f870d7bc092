// Authentication hooks, in the contract's order: Client-Token (401) → rate limit (429) →
// instance of this account (404) → instanceToken (401). Runs before body parsing and validation.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Account } from '../domain/account.js';
import type { ApiKey } from '../domain/api-key.js';
import type { Instance } from '../domain/instance.js';
import { errors } from '../errors.js';
import type { AccountsService } from '../services/accounts-service.js';
import { KEY_PREFIX, type ApiKeysService, type KeyHolder } from '../services/api-keys-service.js';
import type { InstancesService } from '../services/instances-service.js';
import type { RateLimiter } from './rate-limit.js';
import { enforceKey } from './scopes.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account | null;
    instance: Instance | null;
    /** The API key the request came with (null: the Client-Token). */
    apiKey: ApiKey | null;
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
  if (clientToken !== undefined) return clientToken;
  const authorization = request.headers.authorization;
  const bearer = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
  // Any route takes an API key as a bearer token; only partner routes take the Client-Token so.
  if (bearer !== undefined && (bearer.startsWith(KEY_PREFIX) || request.routeOptions.config.partner === true)) return bearer;
  return undefined;
}

// Callback-style hooks that answer from the services' caches without a promise, and fall back to
// the async lookup on a miss: these run on every request of the send-accept path (bench/enqueue).

export function accountHook(accounts: AccountsService, keys: ApiKeysService, limiter: RateLimiter, keyLimiter: KeyRateLimiter) {
  function admit(request: FastifyRequest, reply: FastifyReply, account: Account, key: ApiKey | null): void {
    if (key) {
      enforceKey(request, key);
      const keyWait = key.rateLimit === null ? 0 : keyLimiter(key.id, key.rateLimit);
      if (keyWait > 0) {
        reply.header('retry-after', String(keyWait));
        throw errors.keyRateLimited(keyWait);
      }
    }
    const wait = limiter.take(account.id);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw errors.rateLimited(wait);
    }
    request.account = account;
    request.apiKey = key;
  }
  return function authenticateAccount(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const token = accountTokenOf(request);
    // A key (zk_…) is looked up among keys first; a Client-Token that happens to start so still works.
    if (token?.startsWith(KEY_PREFIX)) {
      const resolved = (found: KeyHolder | undefined): Promise<void> | void => {
        if (found) return admit(request, reply, found.account, found.key);
        return accounts.authenticate(token).then((account) => admit(request, reply, account, null));
      };
      const cached = keys.authenticateCached(token);
      if (cached !== 'miss') {
        try {
          const r = resolved(cached);
          if (r) return void r.then(() => done(), done);
        } catch (err) {
          return done(err as Error);
        }
        return done();
      }
      keys
        .authenticate(token)
        .then(resolved)
        .then(() => done(), done);
      return;
    }
    let account: Account | undefined;
    try {
      account = accounts.authenticateCached(token);
      if (account) admit(request, reply, account, null);
    } catch (err) {
      return done(err as Error);
    }
    if (account) return done();
    accounts.authenticate(token).then((found) => {
      try {
        admit(request, reply, found, null);
      } catch (err) {
        return done(err as Error);
      }
      done();
    }, done);
  };
}

/** Takes one request from a key's own bucket at `rate` per second: 0, or the seconds to wait. */
export type KeyRateLimiter = (keyId: string, rate: number) => number;

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
