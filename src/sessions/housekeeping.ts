// The engine's periodic housekeeping: remembered messages past their retention, and the stored
// copy of messages past the instance-wide retention settings, pruned every six hours.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Store } from '../store/index.js';
import { MESSAGE_RETENTION_MS } from './link/message-memory.js';

const PRUNE_EVERY_MS = 6 * 60 * 60_000;

export interface ChatRetentionSettings {
  maxAgeMs: number;
  maxPerChat: number;
}

export interface HousekeepingDeps {
  store: Pick<Store, 'waMessages' | 'chats'>;
  clock: Clock;
  retention?: ChatRetentionSettings | undefined;
  failed(err: unknown, what: string): void;
}

export class Housekeeping {
  private readonly task: PeriodicTask;

  constructor(private readonly deps: HousekeepingDeps) {
    // The first prune at start, then every six hours.
    this.task = new PeriodicTask(deps.clock, { everyMs: PRUNE_EVERY_MS, firstAfterMs: 0, run: () => this.prune(), onError: (err) => deps.failed(err, 'housekeeping') });
  }

  start(): void {
    this.task.start();
  }

  /** Cancels the next prune; resolves once the one under way (if any) has finished. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  private async prune(): Promise<void> {
    const { store, clock, failed } = this.deps;
    // Each part is tried whatever became of the other.
    await store.waMessages.pruneOlderThan(clock.now() - MESSAGE_RETENTION_MS).catch((err: unknown) => failed(err, 'prune remembered messages'));
    await this.pruneChatCopy().catch((err: unknown) => failed(err, 'prune stored chat messages'));
  }

  /** Applies the retention settings to the stored copy of messages; returns how many went. */
  async pruneChatCopy(): Promise<number> {
    const r = this.deps.retention;
    if (!r) return 0;
    const { store, clock } = this.deps;
    await store.chats.drain();
    let n = r.maxAgeMs > 0 ? await store.chats.pruneOlderThan(clock.now() - r.maxAgeMs) : 0;
    if (r.maxPerChat > 0) n += await store.chats.prunePerChat(r.maxPerChat);
    return n;
  }
}
