// Retention of the receive side: received media files whose retention ended are deleted (the row,
// then the bytes once no other row references them), files no row references (a crash between the
// download and its row) are removed, and reported message ids older than the network could ever
// redeliver are forgotten, and so are sends' Idempotency-Keys past their 24 hours. Runs on the
// gateway's clock (a time-lapse run sees retention pass) in small batches.
import { PeriodicTask, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { DeliveriesRepo } from '../store/deliveries-repo.js';
import type { MediaRepo } from '../store/media-repo.js';
import type { MessagesRepo } from '../store/messages-repo.js';
import { IDEMPOTENCY_KEY_MS } from '../store/messages-enqueue.js';
import type { MediaStore } from './store.js';

/** Protocol ms between sweeps. */
const EVERY_MS = 60 * 60_000;
const BATCH = 500;
/** WhatsApp keeps messages for an offline device about 30 days; ids are remembered longer. */
const ONCE_KEY_KEEP_MS = 45 * 24 * 60 * 60_000;

export class MediaSweeper {
  private readonly task: PeriodicTask;
  /** Files no row named at the last sweep. */
  private unnamed = new Set<string>();

  constructor(
    private readonly store: { media: Pick<MediaRepo, 'expired' | 'remove' | 'referenced' | 'addresses'>; deliveries: Pick<DeliveriesRepo, 'pruneOnceKeys'>; messages: Pick<MessagesRepo, 'pruneIdempotencyKeys'> },
    private readonly files: MediaStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.task = new PeriodicTask(clock, {
      everyMs: EVERY_MS,
      firstAfterMs: 0,
      run: async () => {
        await this.sweep();
      },
      onError: (err) => {
        this.metrics.loggedFailures.inc({ component: 'media' });
        this.log.error({ err }, 'media retention sweep failed');
      },
    });
  }

  start(): void {
    this.task.start();
  }

  /**
   * No further sweep starts, and the one under way has ended when this resolves: the gateway closes
   * the store and the data dir may be removed next (a sweep outliving close re-created `media/tmp`
   * inside a demo's data dir as it was being deleted).
   */
  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One full sweep; resolves with what it removed. */
  async sweep(): Promise<{ files: number; ids: number }> {
    let files = 0;
    for (;;) {
      const expired = await this.store.media.expired(this.clock.now(), BATCH);
      if (expired.length === 0) break;
      await this.store.media.remove(expired.map((r) => r.id));
      for (const sha of new Set(expired.map((r) => r.sha256).filter((s): s is string => !!s))) {
        if (!(await this.store.media.referenced(sha))) {
          await this.files.remove(sha);
          files++;
        }
      }
      if (expired.length < BATCH) break;
    }
    // Bytes no row names: a download that finished as its row was deleted, or a crash in between.
    // Removed only when the previous sweep saw them unnamed too: a file is stored a moment before
    // its row names it, and with a shared store that moment may be on another node, mid-sweep here.
    const known = await this.store.media.addresses();
    const unnamed = new Set<string>();
    for (const sha of await this.files.list()) {
      if (known.has(sha)) continue;
      if (!this.unnamed.has(sha)) {
        unnamed.add(sha);
        continue;
      }
      await this.files.remove(sha);
      files++;
    }
    this.unnamed = unnamed;
    let ids = 0;
    const before = this.clock.now() - ONCE_KEY_KEEP_MS;
    for (let n = BATCH; n === BATCH; ids += n) n = await this.store.deliveries.pruneOnceKeys(before, BATCH);
    await this.store.messages.pruneIdempotencyKeys(this.clock.now() - IDEMPOTENCY_KEY_MS);
    return { files, ids };
  }
}
