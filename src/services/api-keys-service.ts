// API keys (docs/api-keys.md): created, listed, rotated and revoked per account; authenticated by
// hash like Client-Tokens. The cache keeps the request path free of a database read; it is dropped
// whenever account_changes records a key change (AccountsService polls it every 100 ms on every
// node), and expiry is checked against the clock on every request, so a revoked or expired key
// stops working at once everywhere.
import type { Clock } from '../clock.js';
import type { Account } from '../domain/account.js';
import { keyLive, SCOPES, type ApiKey, type Scope } from '../domain/api-key.js';
import { parseCidr } from '../domain/cidr.js';
import { errors } from '../errors.js';
import { hashToken, newUuid } from '../ids.js';
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/index.js';

/** Every key starts so, which is how a presented credential is told from a Client-Token. */
export const KEY_PREFIX = 'zk_';

/** A key and the account it belongs to. */
export interface KeyHolder {
  key: ApiKey;
  account: Account;
}

export interface NewKeyInput {
  name: string;
  scopes: readonly string[];
  instanceIds?: readonly string[] | null;
  cidrs?: readonly string[] | null;
  rateLimit?: number | null;
  /** ms since the epoch. */
  expiresAt?: number | null;
}

/** A key as listings show it: never the secret. */
export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  instanceIds: string[] | null;
  cidrs: string[] | null;
  rateLimit: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  createdAt: number;
}

export interface CreatedKey extends KeyView {
  /** Shown once; only its hash is stored. */
  key: string;
}

export function keyView(k: ApiKey): KeyView {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    scopes: [...k.scopes],
    instanceIds: k.instanceIds && [...k.instanceIds],
    cidrs: k.cidrs && [...k.cidrs],
    rateLimit: k.rateLimit,
    expiresAt: k.expiresAt,
    revokedAt: k.revokedAt,
    createdAt: k.createdAt,
  };
}

export class ApiKeysService {
  private readonly byHash = new Map<string, { found: KeyHolder | null; until: number }>();
  private epoch = 0;

  constructor(
    private readonly store: Pick<Store, 'apiKeys' | 'instances' | 'accounts'>,
    private readonly clock: Clock,
    private readonly cacheTtlMs = 5_000,
  ) {}

  /** Drops every cached key: called when account_changes records a change (any node's). */
  forget(): void {
    this.epoch++;
    this.byHash.clear();
  }

  async create(accountId: string, input: NewKeyInput): Promise<CreatedKey> {
    const checked = await this.check(accountId, input);
    const secret = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
    const id = newUuid();
    const createdAt = this.clock.now();
    const prefix = secret.slice(0, 8);
    await this.store.apiKeys.create({ id, accountId, keyHash: hashToken(secret), prefix, createdAt, ...checked });
    return { id, prefix, createdAt, revokedAt: null, ...checked, scopes: [...checked.scopes], instanceIds: checked.instanceIds && [...checked.instanceIds], cidrs: checked.cidrs && [...checked.cidrs], key: secret };
  }

  async list(accountId: string | null): Promise<KeyView[]> {
    return (await this.store.apiKeys.list(accountId)).map(keyView);
  }

  async get(accountId: string | null, id: string): Promise<ApiKey> {
    const key = accountId === null ? await this.store.apiKeys.findAny(id) : await this.store.apiKeys.find(accountId, id);
    if (!key) throw errors.notFound('API key not found');
    return key;
  }

  /**
   * A new key with the same settings; the old one keeps working for `overlapSeconds` (0: stops now),
   * so clients can switch over without a gap.
   */
  async rotate(accountId: string | null, id: string, overlapSeconds: number): Promise<{ old: KeyView; created: CreatedKey }> {
    const old = await this.get(accountId, id);
    const now = this.clock.now();
    if (!keyLive(old, now)) throw errors.conflict('API key not active', 'a revoked or expired key cannot be rotated');
    const created = await this.create(old.accountId, {
      name: old.name,
      scopes: old.scopes,
      instanceIds: old.instanceIds,
      cidrs: old.cidrs,
      rateLimit: old.rateLimit,
      expiresAt: old.expiresAt,
    });
    const until = Math.min(old.expiresAt ?? Infinity, now + overlapSeconds * 1000);
    await this.store.apiKeys.end(old, 'expires_at', until, now);
    this.forget();
    return { old: { ...keyView(old), expiresAt: until }, created };
  }

  async revoke(accountId: string | null, id: string): Promise<KeyView> {
    const key = await this.get(accountId, id);
    const now = this.clock.now();
    if (key.revokedAt === null) await this.store.apiKeys.end(key, 'revoked_at', now, now);
    this.forget();
    return { ...keyView(key), revokedAt: key.revokedAt ?? now };
  }

  /** The live key `secret` names and its account (undefined: none, revoked or expired), from the cache; 'miss' when it cannot say. */
  authenticateCached(secret: string): KeyHolder | undefined | 'miss' {
    const cached = this.byHash.get(hashToken(secret));
    const now = this.clock.now();
    if (!cached || cached.until <= now) return 'miss';
    return cached.found && keyLive(cached.found.key, now) ? cached.found : undefined;
  }

  async authenticate(secret: string): Promise<KeyHolder | undefined> {
    // Lookup by hash is safe against timing: the presenter cannot steer the hash (as for Client-Tokens).
    const keyHash = hashToken(secret);
    const epoch = this.epoch;
    const key = await this.store.apiKeys.findByHash(keyHash);
    const account = key && (await this.store.accounts.find(key.accountId));
    const found = key && account ? { key, account } : null;
    const now = this.clock.now();
    // A read that raced a change may hold the old row: answer it, never cache it.
    if (epoch === this.epoch) {
      if (this.byHash.size > 10_000) this.byHash.clear();
      this.byHash.set(keyHash, { found, until: now + this.cacheTtlMs });
    }
    return found && keyLive(found.key, now) ? found : undefined;
  }

  private async check(accountId: string, input: NewKeyInput): Promise<Omit<NewKeyInput, 'scopes'> & { scopes: Scope[]; instanceIds: string[] | null; cidrs: string[] | null; rateLimit: number | null; expiresAt: number | null }> {
    const name = input.name.trim();
    if (name === '' || name.length > 100) throw errors.invalidInput('name: 1 to 100 characters');
    const scopes = [...new Set(input.scopes)];
    if (scopes.length === 0) throw errors.invalidInput('scopes: at least one of read, send, manage, admin');
    for (const s of scopes) if (!(SCOPES as readonly string[]).includes(s)) throw errors.invalidInput(`scopes: unknown scope ${JSON.stringify(s)} (read, send, manage, admin)`);
    let instanceIds: string[] | null = null;
    if (input.instanceIds) {
      instanceIds = [...new Set(input.instanceIds)];
      if (instanceIds.length === 0) throw errors.invalidInput('instanceIds: leave it out for every instance, or name at least one');
      for (const id of instanceIds) {
        const inst = await this.store.instances.find(id);
        if (!inst || inst.accountId !== accountId) throw errors.invalidInput(`instanceIds: no instance ${id} in this account`);
      }
    }
    let cidrs: string[] | null = null;
    if (input.cidrs) {
      cidrs = input.cidrs.map((c) => c.trim());
      if (cidrs.length === 0) throw errors.invalidInput('cidrs: leave it out for any address, or name at least one range');
      for (const c of cidrs) if (!parseCidr(c)) throw errors.invalidInput(`cidrs: ${JSON.stringify(c)} is not an address range (e.g. 203.0.113.0/24, 2001:db8::/32)`);
    }
    const rateLimit = input.rateLimit ?? null;
    if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1)) throw errors.invalidInput('rateLimit: a whole number of requests per second, at least 1');
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && expiresAt <= this.clock.now()) throw errors.invalidInput('expiresAt: must be in the future');
    return { name, scopes: scopes as Scope[], instanceIds, cidrs, rateLimit, expiresAt };
  }
}
