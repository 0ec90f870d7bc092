// Accounts and Client-Tokens: creation, bootstrap on first start, rotation, authentication.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Account } from '../domain/account.js';
import { errors } from '../errors.js';
import { hashToken, newToken, newUuid } from '../ids.js';
import type { Store } from '../store/index.js';

interface AccountSummary {
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
  private readonly byHash = new Map<string, { account: Account; until: number }>();
  /** Bumped whenever the cache is dropped for a change. */
  private epoch = 0;

  constructor(
    private readonly store: Pick<Store, 'accounts'>,
    private readonly clock: Clock,
    private readonly cacheTtlMs = 5_000,
  ) {}

  async create(name: string, clientToken: string = newToken()): Promise<CreatedAccount> {
    const id = newUuid();
    const createdAt = this.clock.now();
    await this.store.accounts.create({ id, name, token_hash: hashToken(clientToken), created_at: createdAt });
    return { id, name, createdAt, clientToken };
  }

  /**
   * On an empty database, creates the first account. Returns it (with its token) only when it was
   * created now, so the caller can print the token exactly once.
   */
  async bootstrap(presetToken: string | undefined): Promise<CreatedAccount | null> {
    if ((await this.store.accounts.count()) > 0) return null;
    // Checked again under a lock: cluster nodes starting together must not each create one.
    const id = newUuid();
    const createdAt = this.clock.now();
    const clientToken = presetToken ?? newToken();
    if (!(await this.store.accounts.createFirst({ id, name: 'default', token_hash: hashToken(clientToken), created_at: createdAt }))) return null;
    return { id, name: 'default', createdAt, clientToken };
  }

  async list(): Promise<AccountSummary[]> {
    return (await this.store.accounts.all()).map(summary);
  }

  async rotate(id: string): Promise<CreatedAccount> {
    const account = await this.store.accounts.find(id);
    if (!account) throw errors.notFound('Account not found');
    const clientToken = newToken();
    // Recorded with the change, so running servers (this command may run in another process) drop
    // the old token at their next poll (watch()).
    if (!(await this.store.accounts.rotateToken(id, hashToken(clientToken), this.clock.now()))) throw errors.notFound('Account not found');
    this.byHash.clear();
    return { ...summary(account), clientToken };
  }

  /** Deletes the account and its instances; running servers close the instances' sessions (watch()). */
  async delete(id: string): Promise<void> {
    if (!(await this.store.accounts.deleteRecorded(id, this.clock.now()))) throw errors.notFound('Account not found');
    this.byHash.clear();
  }

  // Account changes made elsewhere take effect at once. The CLI changes accounts from another
  // process. The authentication cache stays (it is what keeps the send-accept path free of a
  // database read per request: bench/enqueue); instead the server polls the account_changes log
  // every `intervalMs` — one indexed read that finds nothing nearly always — and drops its cache
  // when anything changed, so a rotated or deleted Client-Token is refused within one interval.
  private watcher: PeriodicTask | null = null;
  private lastSeq = 0;
  /** Told of every change found (API keys drop their cache: services/api-keys-service.ts). */
  private readonly changeListeners: (() => void)[] = [];

  onChange(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  /** Seqs applied recently: PostgreSQL may commit a lower seq after a higher one, so a window is re-read. */
  private readonly applied = new Set<number>();

  /** Starts polling; `deleted` is told the instances of each deleted account (to close their sessions). */
  async watch(deleted: (instanceIds: string[]) => Promise<void>, intervalMs = 100, onError?: (err: unknown) => void): Promise<void> {
    this.lastSeq = await this.store.accounts.lastChange();
    // One poll at a time (a PeriodicTask's runs never overlap): a slow or unreachable database must not pile polls up.
    this.watcher = new PeriodicTask(this.clock, { everyMs: intervalMs, timing: 'guard', run: () => this.poll(deleted), onError: (err) => onError?.(err) });
    this.watcher.start();
  }

  /** Stops polling; resolves once the poll under way has ended. */
  async unwatch(): Promise<void> {
    await this.watcher?.stop();
    this.watcher = null;
  }

  private async poll(deleted: (instanceIds: string[]) => Promise<void>): Promise<void> {
    const WINDOW = 16;
    const changes = (await this.store.accounts.changesAfter(Math.max(0, this.lastSeq - WINDOW))).filter((c) => !this.applied.has(c.seq));
    if (changes.length === 0) return;
    this.epoch++;
    this.byHash.clear();
    for (const listener of this.changeListeners) listener();
    for (const c of changes) {
      this.applied.add(c.seq);
      this.lastSeq = Math.max(this.lastSeq, c.seq);
      if (c.kind === 'delete' && c.instanceIds.length > 0) await deleted(c.instanceIds);
    }
    for (const seq of this.applied) if (seq <= this.lastSeq - WINDOW) this.applied.delete(seq);
  }

  /**
   * authenticate() without a promise when the token's account is cached, as it is for nearly every
   * request (bench/enqueue); undefined when the cache cannot answer. Throws 401 without a token.
   */
  authenticateCached(clientToken: string | undefined): Account | undefined {
    if (!clientToken) throw errors.unauthorizedClient();
    const cached = this.byHash.get(hashToken(clientToken));
    return cached && cached.until > this.clock.now() ? cached.account : undefined;
  }

  /** Resolves a presented Client-Token to its account, or throws 401. */
  async authenticate(clientToken: string | undefined): Promise<Account> {
    if (!clientToken) throw errors.unauthorizedClient();
    // Lookup by hash is safe against timing: the attacker cannot steer the hash prefix.
    const tokenHash = hashToken(clientToken);
    const cached = this.byHash.get(tokenHash);
    const now = this.clock.now();
    if (cached && cached.until > now) return cached.account;
    const epoch = this.epoch;
    const account = await this.store.accounts.findByToken(tokenHash);
    if (!account) throw errors.unauthorizedClient();
    // A read that raced a change (rotation, deletion) may hold the old row: answer it, never cache it.
    if (epoch !== this.epoch) return account;
    if (this.byHash.size > 10_000) this.byHash.clear();
    this.byHash.set(tokenHash, { account, until: now + this.cacheTtlMs });
    return account;
  }
}

function summary(a: Account): AccountSummary {
  return { id: a.id, name: a.name, createdAt: a.createdAt };
}
