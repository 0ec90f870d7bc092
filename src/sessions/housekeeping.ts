// The engine's periodic housekeeping: remembered messages past their retention, and the stored
// copy of messages past the instance-wide retention settings, pruned every six hours.
import type { Clock } from '../clock.js';
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
  private cancel: (() => void) | null = null;
  private stopped = false;

  constructor(private readonly deps: HousekeepingDeps) {}

  start(): void {
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  private schedule(delayMs: number): void {
    const { store, clock, failed } = this.deps;
    this.cancel = clock.setTimer(delayMs, () => {
      store.waMessages
        .pruneOlderThan(clock.now() - MESSAGE_RETENTION_MS)
        .catch((err: unknown) => failed(err, 'prune remembered messages'))
        .then(() => this.pruneChatCopy())
        .catch((err: unknown) => failed(err, 'prune stored chat messages'))
        .finally(() => {
          if (!this.stopped) this.schedule(PRUNE_EVERY_MS);
        });
    });
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
