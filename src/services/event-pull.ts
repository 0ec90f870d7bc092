// The pull API (docs/contract.md §5b): an instance's stored events one at a time, oldest first, each
// until it is acknowledged (Green API's receive-then-delete model, on the outbox's events). No
// visibility timeout: the head is returned to every poll until someone acknowledges it, so an
// unacknowledged event comes again on the next poll and no event is skipped or reordered.
import type { Cancel, Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { EventPullRepo } from '../store/event-pull-repo.js';
import type { StreamEvent } from '../store/events-repo.js';
import type { EventStreamHub } from './event-stream.js';

/** The longest a poll may wait (s): below proxies' usual idle timeouts. */
export const MAX_PULL_WAIT_S = 30;
/** Re-read this often while waiting: a commit on another node of a cluster wakes nobody here. */
const REREAD_MS = 1_000;

export class EventPullService {
  constructor(
    private readonly repo: Pick<EventPullRepo, 'head' | 'ack'>,
    private readonly hub: Pick<EventStreamHub, 'onCommit'>,
    private readonly clock: Clock,
  ) {}

  /**
   * The instance's oldest unacknowledged event, waiting up to `waitS` seconds for one: a guard (the
   * consumer's HTTP request), never scaled. Null when none came, or when `signal` aborts.
   */
  async next(instanceId: string, waitS: number, signal?: AbortSignal): Promise<StreamEvent | null> {
    const waitMs = Math.min(Math.max(0, waitS), MAX_PULL_WAIT_S) * 1000;
    let head: StreamEvent | null = null;
    const found = async (): Promise<boolean> => (head = await this.repo.head(instanceId)) !== null;
    if (waitMs === 0) {
      await found();
      return head;
    }
    // Subscribed before the first read, so a commit between the read and the wait is not missed.
    const changed = (wake: () => void): Cancel => {
      const off = this.hub.onCommit(instanceId, wake);
      let reread: Cancel = () => undefined;
      const tick = (): void => {
        wake();
        reread = this.clock.setGuard(REREAD_MS, tick);
      };
      reread = this.clock.setGuard(REREAD_MS, tick);
      return () => {
        off();
        reread();
      };
    };
    try {
      await this.clock.waitUntil(found, waitMs, { changed, ...(signal ? { signal } : {}) });
    } catch (err) {
      // The consumer went away: nobody is waiting for the answer.
      if (signal?.aborted === true) return null;
      throw err;
    }
    return head;
  }

  /** Acknowledges the head event; repeating an ack is harmless; acking any other event is refused. */
  async ack(instanceId: string, id: string): Promise<void> {
    switch (await this.repo.ack(instanceId, id, this.clock.now())) {
      case 'acked':
      case 'already':
        return;
      case 'unknown':
        throw errors.notFound('No such event of this instance (never stored, or past the retention)');
      case 'not-next':
        throw errors.conflict('Not the next event: acknowledge events in order, the one GET events/next returned first');
    }
  }
}
