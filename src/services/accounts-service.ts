// Accounts and Client-Tokens: creation, bootstrap on first start, rotation, authentication.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { hashToken, newToken, newUuid } from '../ids.js';
import type { Store } from '../store/index.js';
import type { AccountRow } from '../store/schema.js';

export interface AccountSummary {
  id: string;
  name: string;
  createdAt: number;
}

export interface CreatedAccount extends AccountSummary {
  /** Shown once; only its hash is stored. */
  clientToken: string;
}

export class AccountsService {
  /** Authenticated accounts by token hash: the hot path must not hit the database per request. */
  private readonly byHash = new Map<string, { account: AccountRow; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly cacheTtlMs = 5_000,
  ) {}

  async create(name: string, clientToken: string = newToken()): Promise<CreatedAccount> {
    const row: AccountRow = { id: newUuid(), name, token_hash: hashToken(clientToken), created_at: this.clock.now() };
    await this.store.accounts.create(row);
    return { id: row.id, name, createdAt: row.created_at, clientToken };
  }

  /**
   * On an empty database, creates the first account. Returns it (with its token) only when it was
   * created now, so the caller can print the token exactly once.
   */
  async bootstrap(presetToken: string | undefined): Promise<CreatedAccount | null> {
    if ((await this.store.accounts.count()) > 0) return null;
    return this.create('default', presetToken);
  }

  async list(): Promise<AccountSummary[]> {
    return (await this.store.accounts.list()).map(summary);
  }

  async rotate(id: string): Promise<CreatedAccount> {
    const account = await this.store.accounts.findById(id);
    if (!account) throw errors.notFound('Account not found');
    const clientToken = newToken();
    await this.store.accounts.setTokenHash(id, hashToken(clientToken));
    this.byHash.clear();
    return { ...summary(account), clientToken };
  }

  async delete(id: string): Promise<void> {
    if (!(await this.store.accounts.delete(id))) throw errors.notFound('Account not found');
    this.byHash.clear();
  }

  /**
   * authenticate() without a promise when the token's account is cached, as it is for nearly every
   * request (bench/enqueue); undefined when the cache cannot answer. Throws 401 without a token.
   */
  authenticateCached(clientToken: string | undefined): AccountRow | undefined {
    if (!clientToken) throw errors.unauthorizedClient();
    const cached = this.byHash.get(hashToken(clientToken));
    return cached && cached.until > this.clock.now() ? cached.account : undefined;
  }

  /** Resolves a presented Client-Token to its account, or throws 401. */
  async authenticate(clientToken: string | undefined): Promise<AccountRow> {
    if (!clientToken) throw errors.unauthorizedClient();
    // Lookup by hash is safe against timing: the attacker cannot steer the hash prefix.
    const tokenHash = hashToken(clientToken);
    const cached = this.byHash.get(tokenHash);
    const now = this.clock.now();
    if (cached && cached.until > now) return cached.account;
    const account = await this.store.accounts.findByTokenHash(tokenHash);
    if (!account) throw errors.unauthorizedClient();
    if (this.byHash.size > 10_000) this.byHash.clear();
    this.byHash.set(tokenHash, { account, until: now + this.cacheTtlMs });
    return account;
  }
}

function summary(a: AccountRow): AccountSummary {
  return { id: a.id, name: a.name, createdAt: a.created_at };
}
