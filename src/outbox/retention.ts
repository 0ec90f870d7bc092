// Retention: failed deliveries are kept 7 days for replay, delivered ones a short while for
// inspection; a periodic task on the clock deletes older ones, and their events, in small batches.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { DeliveriesRepo } from '../store/deliveries-repo.js';
import type { StreamEventsRepo } from '../store/events-repo.js';

export interface RetentionSettings {
  /** Protocol ms a failed delivery stays listable and replayable. */
  failedKeepMs: number;
  /** Protocol ms a delivered one stays listable. */
  deliveredKeepMs: number;
  /** Protocol ms between sweeps. */
  sweepEveryMs: number;
  /**
   * Protocol ms every event stays readable by the event stream (Last-Event-ID resumes within it),
   * whether or not a webhook took it; 0 = the stream is off and events live as long as their deliveries.
   */
  streamKeepMs?: number;
}

export const DEFAULT_RETENTION: RetentionSettings = {
  failedKeepMs: 7 * 24 * 60 * 60 * 1000,
  // Delivered rows are only useful to look at recently; a busy gateway would otherwise keep millions.
  deliveredKeepMs: 60 * 60 * 1000,
  sweepEveryMs: 60 * 60 * 1000,
  streamKeepMs: 0,
};

// Rows deleted per transaction, so a large sweep never holds the writer for long.
const SWEEP_BATCH = 1000;

export class RetentionSweeper {
  private readonly task: PeriodicTask;
  private stopped = true;

  constructor(
    private readonly store: Pick<DeliveriesRepo, 'sweep'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: Metrics,
    private readonly settings: RetentionSettings,
    /** Where events kept for the event stream alone are swept (with settings.streamKeepMs > 0). */
    private readonly streamStore: Pick<StreamEventsRepo, 'sweepUndelivered'> | null = null,
  ) {
    // The first sweep at start, then every sweepEveryMs.
    this.task = new PeriodicTask(clock, {
      everyMs: settings.sweepEveryMs,
      firstAfterMs: 0,
      run: async () => {
        await this.sweep();
      },
      onError: (err) => {
        // The next sweep tries again; nothing is lost by sweeping late.
        this.log.error({ err }, 'webhook retention sweep failed');
        this.metrics.loggedFailures.inc({ component: 'outbox' });
      },
    });
  }

  start(): void {
    this.stopped = false;
    this.task.start();
  }

  /** Cancels the next sweep; resolves once the one under way has finished (it stops between batches). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.task.stop();
  }

  /** Deletes everything past its retention now; returns how many deliveries went. */
  async sweep(): Promise<number> {
    const now = this.clock.now();
    const failedBefore = now - this.settings.failedKeepMs;
    const deliveredBefore = now - this.settings.deliveredKeepMs;
    const streamKeep = this.settings.streamKeepMs ?? 0;
    const eventsBefore = streamKeep > 0 ? now - streamKeep : Number.MAX_SAFE_INTEGER;
    let total = 0;
    for (;;) {
      const n = await this.store.sweep(failedBefore, deliveredBefore, SWEEP_BATCH, eventsBefore);
      total += n;
      if (n < SWEEP_BATCH || this.stopped) break;
    }
    const streamStore = this.streamStore;
    if (streamKeep > 0 && streamStore !== null) {
      // Events kept for the stream alone (no webhook took them, or their deliveries went before).
      let n: number;
      do n = await streamStore.sweepUndelivered(eventsBefore, SWEEP_BATCH);
      while (n === SWEEP_BATCH && !this.stopped);
    }
    return total;
  }
}
