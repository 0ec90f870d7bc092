// API keys: an account's narrower credentials beside its full-power Client-Token (docs/api-keys.md).

/**
 * What a key may do. Each route declares the one scope it needs (src/http/scopes.ts); `admin`
 * holds every other scope, the others hold only themselves:
 * - read: look (instances, chats, contacts, groups, queue, status, event streams);
 * - send: act in conversations (send, react, forward, delete or pin messages, chat state, the queue);
 * - manage: configure an instance (pairing, restart, logout, settings, webhooks, proxy, profile,
 *   privacy, groups and communities administration, newsletters, business data);
 * - admin: keys, instances created and deleted, instance tokens, the account, the audit trail.
 */
export const SCOPES = ['read', 'send', 'manage', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What a route needs: a scope; `any` for a route every credential of the account may use, an
 * instance-limited key too (GET /keys/me: what the key itself may do); or `public` for the few
 * routes that take no token at all.
 */
export type RouteScope = Scope | 'any' | 'public';

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  /** `zk_` and the first characters: shown in listings to tell keys apart (not a secret). */
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  /** null: every instance of the account. */
  readonly instanceIds: readonly string[] | null;
  /** null: any client address. */
  readonly cidrs: readonly string[] | null;
  /** Requests per second for this key (null: the account's limit only). */
  readonly rateLimit: number | null;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  readonly createdAt: number;
}

/** Whether a key with `scopes` may use a route that needs `needed`. */
export function scopeAllows(scopes: readonly Scope[], needed: RouteScope): boolean {
  return needed === 'public' || needed === 'any' || scopes.includes('admin') || scopes.includes(needed);
}

/** Whether the key may be used at `now` (neither revoked nor expired). */
export function keyLive(key: ApiKey, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}
