// The pull API (docs/contract.md §5b): an instance's stored events one at a time, oldest first, each
// until it is acknowledged (Green API's receive-then-delete model, on the outbox's events). No
// visibility timeout: the head is returned to every poll until someone acknowledges it, so an
// unacknowledged event comes again on the next poll and no event is skipped or reordered.
import type { Clock } from '../clock.js';
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
    private readonly hub: Pick<EventStreamHub, 'waitFor'>,
    private readonly clock: Clock,
  ) {}

  /** The instance's oldest unacknowledged event, waiting up to `waitS` seconds (real time) for one. */
  async next(instanceId: string, waitS: number, signal?: AbortSignal): Promise<StreamEvent | null> {
    const until = Date.now() + Math.min(Math.max(0, waitS), MAX_PULL_WAIT_S) * 1000;
    for (;;) {
      const left = until - Date.now();
      // Waiting is armed before reading, so a commit between the read and the wait is not missed.
      const woken = left > 0 ? this.hub.waitFor(instanceId, Math.min(left, REREAD_MS), signal) : null;
      const head = await this.repo.head(instanceId);
      if (head !== null || woken === null || signal?.aborted === true) return head;
      await woken;
    }
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
