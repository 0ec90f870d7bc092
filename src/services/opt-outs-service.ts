// Opt-outs (docs/contract.md §12): the account's list of numbers that asked to hear no more, its
// settings, and the watch on received messages. The watch must not slow the receive path: a
// received text is compared in memory with every keyword any account uses, and only a match reads
// the store (the instance's account and settings) and writes the opt-out.
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import { DEFAULT_OPT_OUT_CONFIRMATION, DEFAULT_OPT_OUT_KEYWORDS, MAX_KEYWORD_CHARS, normalizeKeyword } from '../domain/opt-out.js';
import type { GatewayEvent } from '../events/types.js';
import type { Instance } from '../domain/instance.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { OptOutsRepo } from '../store/opt-outs-repo.js';
import type { OptOutRow } from '../store/schema.js';

export interface OptOutSettings {
  keywords: string[];
  /** Whether `keywords` are the defaults (the account set none). */
  defaultKeywords: boolean;
  /** '' = nothing is sent. */
  confirmation: string;
  strict: boolean;
}

export interface OptOutView {
  phone: string;
  source: 'keyword' | 'api';
  instanceId: string | null;
  keyword: string | null;
  created: number;
}

/** What the watch needs to send the confirmation (MessagesService, wired in services/index.ts). */
export interface ConfirmationSender {
  sendConfirmation(instance: Instance, phone: string, text: string): Promise<unknown>;
}

interface OptOutsDeps {
  store: { optOuts: OptOutsRepo; instances: Pick<InstancesRepo, 'find'> };
  clock: Clock;
  log: Logger;
  metrics?: Pick<Metrics, 'loggedFailures'>;
}

/** Settings are read once per account and kept: they change only through this service. */
const SETTINGS_CACHE_MS = 60_000;

export class OptOutsService {
  private readonly settingsCache = new Map<string, { settings: OptOutSettings; until: number }>();
  /** Every keyword of every account, normalised: the in-memory first test of a received text. */
  private known = new Set(DEFAULT_OPT_OUT_KEYWORDS.map(normalizeKeyword));
  private sender: ConfirmationSender | null = null;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly deps: OptOutsDeps) {}

  /** Loads the keywords the accounts set (start-up). */
  async load(): Promise<void> {
    for (const list of await this.deps.store.optOuts.allKeywordLists()) for (const k of JSON.parse(list) as string[]) this.known.add(normalizeKeyword(k));
  }

  attachSender(sender: ConfirmationSender): void {
    this.sender = sender;
  }

  async settings(accountId: string): Promise<OptOutSettings> {
    const now = this.deps.clock.now();
    const hit = this.settingsCache.get(accountId);
    if (hit && hit.until > now) return hit.settings;
    const row = await this.deps.store.optOuts.settings(accountId);
    const keywords = row?.keywords ? (JSON.parse(row.keywords) as string[]) : null;
    const settings: OptOutSettings = {
      keywords: keywords ?? [...DEFAULT_OPT_OUT_KEYWORDS],
      defaultKeywords: keywords === null,
      confirmation: row?.confirmation ?? DEFAULT_OPT_OUT_CONFIRMATION,
      strict: row?.strict === 1,
    };
    for (const k of settings.keywords) this.known.add(normalizeKeyword(k));
    this.settingsCache.set(accountId, { settings, until: now + SETTINGS_CACHE_MS });
    return settings;
  }

  /** `keywords: null` restores the defaults; `confirmation: null` the default text, '' none. */
  async updateSettings(accountId: string, patch: { keywords?: string[] | null; confirmation?: string | null; strict?: boolean }): Promise<OptOutSettings> {
    const current = await this.settings(accountId);
    if (patch.keywords) {
      patch.keywords.forEach((k, i) => {
        const n = normalizeKeyword(k);
        if (n === '' || n.length > MAX_KEYWORD_CHARS) throw errors.invalidInput(`keywords[${i}]: must hold letters or digits, at most ${MAX_KEYWORD_CHARS} characters`);
      });
    }
    const keywords = patch.keywords === undefined ? (current.defaultKeywords ? null : current.keywords) : patch.keywords;
    const confirmation = patch.confirmation === undefined ? current.confirmation : patch.confirmation;
    await this.deps.store.optOuts.saveSettings({
      account_id: accountId,
      keywords: keywords === null ? null : JSON.stringify(keywords),
      confirmation: confirmation === DEFAULT_OPT_OUT_CONFIRMATION ? null : confirmation,
      strict: (patch.strict ?? current.strict) ? 1 : 0,
      updated_at: this.deps.clock.now(),
    });
    this.settingsCache.delete(accountId);
    return this.settings(accountId);
  }

  async list(accountId: string, pageSize: number, after: string | null): Promise<{ optOuts: OptOutView[]; next: string | null }> {
    const rows = await this.deps.store.optOuts.list(accountId, pageSize + 1, after);
    const page = rows.slice(0, pageSize);
    return { optOuts: page.map(view), next: rows.length > pageSize ? (page[page.length - 1]?.phone ?? null) : null };
  }

  /** The whole list as CSV (phone, source, instanceId, keyword, created as ISO 8601), read a page at a time. */
  async *csv(accountId: string): AsyncGenerator<string> {
    yield 'phone,source,instanceId,keyword,created\n';
    for (let after: string | null = null; ; ) {
      const rows = await this.deps.store.optOuts.list(accountId, 1000, after);
      if (rows.length === 0) return;
      yield rows.map((r) => [r.phone, r.source, r.instance_id ?? '', r.keyword ?? '', new Date(Number(r.created_at)).toISOString()].map(csvCell).join(',')).join('\n') + '\n';
      after = rows[rows.length - 1]!.phone;
    }
  }

  /** Adds numbers through the API; answers how many were not on the list yet. */
  async add(accountId: string, phones: readonly string[]): Promise<number> {
    const parsed = phones.map((p, i) => parsePhone(p, `phones[${i}]`));
    let added = 0;
    for (const phone of new Set(parsed)) {
      if (await this.deps.store.optOuts.add({ account_id: accountId, phone, source: 'api', instance_id: null, keyword: null, created_at: this.deps.clock.now() })) added++;
    }
    return added;
  }

  async remove(accountId: string, rawPhone: string): Promise<void> {
    if (!(await this.deps.store.optOuts.remove(accountId, parsePhone(rawPhone)))) throw errors.notFound('Phone not in the opt-out list');
  }

  /** Strict mode: a direct send to an opted-out number is refused (403). One read only when strict is on. */
  async assertDirectSend(accountId: string, phone: string): Promise<void> {
    if (!(await this.settings(accountId)).strict) return;
    if (await this.deps.store.optOuts.has(accountId, phone)) throw errors.optedOut(phone);
  }

  /**
   * Received events, once committed (received-tap.ts): a 1:1 text from someone else that is, as a
   * whole, a keyword. Synchronous and allocation-light for every other message.
   */
  readonly onReceived = (instanceId: string, events: readonly GatewayEvent[]): void => {
    for (const e of events) {
      if (e.type !== 'ReceivedCallback' || e.fromMe || e.isGroup || !e.text) continue;
      const text = e.text.message;
      if (text.length > MAX_KEYWORD_CHARS * 2) continue;
      const keyword = normalizeKeyword(text);
      if (!this.known.has(keyword)) continue;
      const work = this.optOut(instanceId, e.phone, text, keyword).catch((err: unknown) => {
        this.deps.log.error({ err, instanceId }, 'opt-out: could not record');
        this.deps.metrics?.loggedFailures.inc({ component: 'campaigns' });
      });
      this.pending.add(work);
      void work.finally(() => this.pending.delete(work));
    }
  };

  /** Resolves once the opt-outs under way are recorded (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.pending]);
  }

  private async optOut(instanceId: string, rawPhone: string, text: string, keyword: string): Promise<void> {
    // A hidden number (`@lid`) cannot be matched against a recipient list: nothing to record.
    if (!/^\d+$/.test(rawPhone)) return;
    const instance = await this.deps.store.instances.find(instanceId);
    if (!instance) return;
    const settings = await this.settings(instance.accountId);
    if (!settings.keywords.some((k) => normalizeKeyword(k) === keyword)) return;
    const row: OptOutRow = { account_id: instance.accountId, phone: rawPhone, source: 'keyword', instance_id: instanceId, keyword: text.slice(0, MAX_KEYWORD_CHARS * 2), created_at: this.deps.clock.now() };
    if (!(await this.deps.store.optOuts.add(row))) return; // already on the list: confirmed before
    this.deps.log.info({ instanceId }, 'opt-out: a number asked to receive no more messages');
    if (settings.confirmation !== '' && this.sender) await this.sender.sendConfirmation(instance, rawPhone, settings.confirmation);
  }
}

function view(r: OptOutRow): OptOutView {
  return { phone: r.phone, source: r.source, instanceId: r.instance_id, keyword: r.keyword, created: Number(r.created_at) };
}

/** A CSV cell: quoted when it holds a comma, quote or line break; a leading =+-@ is neutralised (spreadsheet formulas). */
export function csvCell(value: string): string {
  const v = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}
