// Authentication hooks, in the contract's order: Client-Token (401) → rate limit (429) →
// instance of this account (404) → instanceToken (401). Runs before body parsing and validation.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { AccountsService } from '../services/accounts-service.js';
import type { InstancesService } from '../services/instances-service.js';
import type { AccountRow, InstanceRow } from '../store/schema.js';
import type { RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: AccountRow | null;
    instance: InstanceRow | null;
  }
}

export function clientTokenOf(request: FastifyRequest): string | undefined {
  const raw = request.headers['client-token'];
  return Array.isArray(raw) ? raw[0] : raw;
}

export function accountHook(accounts: AccountsService, limiter: RateLimiter) {
  return async function authenticateAccount(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const account = await accounts.authenticate(clientTokenOf(request));
    const wait = limiter.take(account.id);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw errors.rateLimited(wait);
    }
    request.account = account;
  };
}

export function instanceHook(instances: InstancesService) {
  return async function authenticateInstance(request: FastifyRequest): Promise<void> {
    const params = request.params as { instanceId?: string; instanceToken?: string };
    const account = request.account;
    if (!account) throw errors.unauthorizedClient();
    request.instance = await instances.resolve(account.id, params.instanceId ?? '', params.instanceToken ?? '');
  };
}

/** The authenticated instance of an instance-scoped request. */
export function instanceOf(request: FastifyRequest): InstanceRow {
  if (!request.instance) throw errors.instanceNotFound();
  return request.instance;
}

export function accountOf(request: FastifyRequest): AccountRow {
  if (!request.account) throw errors.unauthorizedClient();
  return request.account;
}
