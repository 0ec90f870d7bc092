// Broker sinks' settings (docs/contract.md §5b): per instance and per account, over the
// environment's default. URLs are checked like webhook URLs (the address guard) when set, and only
// ever shown masked.
import type { Clock } from '../clock.js';
import { maskSinkUrl, resolveSink, SINK_KINDS, sinkUrlProblem, type SinkKind, type SinkScope, type SinkSettings } from '../domain/event-sink.js';
import { errors } from '../errors.js';
import type { AddressGuard } from '../net/address-guard.js';
import { accountScope, type SinksRepo } from '../store/sinks-repo.js';

/** A sink as the API shows it: the URL masked. */
export interface SinkView {
  kind: SinkKind;
  enabled: boolean;
  url: string;
  exchange: string | null;
  prefix: string;
  /** Where the setting in force comes from. */
  scope: SinkScope;
  /** Outbox side: whether the last publish was confirmed (`up`), failed (`down`), or none was tried (`unused`). */
  health: 'unused' | 'up' | 'down';
  lastError: string | null;
}

export interface SinkInput {
  /** The broker URL; "" forgets this scope's setting (the wider one applies again). */
  value: string;
  enabled?: boolean;
  exchange?: string;
  prefix?: string;
}

/** What the service needs of the outbox: forget cached settings; each sink's health. */
export interface SinkRuntime {
  forget(instanceId?: string): void;
  health(): ReadonlyMap<SinkKind, { state: 'unused' | 'up' | 'down'; lastError: string | null }>;
}

export class SinksService {
  constructor(
    private readonly store: Pick<SinksRepo, 'set' | 'read'>,
    private readonly guard: AddressGuard,
    private readonly clock: Clock,
    private readonly defaults: Partial<Record<SinkKind, SinkSettings>>,
    private readonly runtime: SinkRuntime,
  ) {}

  /** The sinks in force for an instance (its own, else its account's, else the environment's). */
  async forInstance(instance: { id: string; accountId: string }): Promise<SinkView[]> {
    const rows = await this.store.read([instance.id, accountScope(instance.accountId)]);
    return this.views([['instance', rows.get(instance.id)], ['account', rows.get(accountScope(instance.accountId))]]);
  }

  /** The account's default sinks (over the environment's). */
  async forAccount(accountId: string): Promise<SinkView[]> {
    const rows = await this.store.read([accountScope(accountId)]);
    return this.views([['account', rows.get(accountScope(accountId))]]);
  }

  async setForInstance(instanceId: string, kind: SinkKind, input: SinkInput): Promise<void> {
    await this.store.set(instanceId, kind, await this.settings(kind, input), this.clock.now());
    this.runtime.forget(instanceId);
  }

  async setForAccount(accountId: string, kind: SinkKind, input: SinkInput): Promise<void> {
    await this.store.set(accountScope(accountId), kind, await this.settings(kind, input), this.clock.now());
    this.runtime.forget();
  }

  /** The kinds of sink this gateway has published to since it started, and how the last publish went. */
  health(): { kind: SinkKind; state: 'up' | 'down'; lastError: string | null }[] {
    const out: { kind: SinkKind; state: 'up' | 'down'; lastError: string | null }[] = [];
    for (const [kind, h] of this.runtime.health()) if (h.state !== 'unused') out.push({ kind, state: h.state, lastError: h.lastError });
    return out;
  }

  /** The row to store, or null to forget it; refused input changes nothing. */
  private async settings(kind: SinkKind, input: SinkInput): Promise<SinkSettings | null> {
    const enabled = input.enabled ?? true;
    if (input.value === '') {
      // An off switch needs no URL; "" with nothing else forgets the setting.
      return enabled ? null : { enabled: false, url: '', exchange: '', prefix: '' };
    }
    const problem = sinkUrlProblem(kind, input.value);
    if (problem !== null) throw errors.invalidInput(`value: ${problem}`);
    const decision = await this.guard.checkHost(new URL(input.value).hostname);
    if (!decision.ok) throw errors.invalidInput(`value: ${decision.reason}`);
    return { enabled, url: input.value, exchange: kind === 'rabbitmq' ? (input.exchange ?? 'zapgate') : '', prefix: input.prefix ?? 'zapgate' };
  }

  private views(scopes: readonly (readonly [SinkScope, ReadonlyMap<SinkKind, SinkSettings> | undefined])[]): SinkView[] {
    const health = this.runtime.health();
    const out: SinkView[] = [];
    for (const kind of SINK_KINDS) {
      const resolved = resolveSink([...scopes.map(([scope, byKind]) => [scope, byKind?.get(kind)] as const), ['environment', this.defaults[kind]]]);
      if (resolved === null) continue;
      const h = health.get(kind);
      out.push({
        kind,
        enabled: resolved.settings.enabled,
        url: maskSinkUrl(resolved.settings.url),
        exchange: kind === 'rabbitmq' ? resolved.settings.exchange : null,
        prefix: resolved.settings.prefix,
        scope: resolved.scope,
        health: h?.state ?? 'unused',
        lastError: h?.lastError ?? null,
      });
    }
    return out;
  }
}
