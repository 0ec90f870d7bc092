// Removes stored outgoing media (src/media/outgoing-store.ts) once no waiting message references it:
// soon after something may have released a file (a media message sent or failed, a queue cleared,
// an instance or account deleted), and every few minutes for whatever else (a crash between a
// file's write and its message's commit, a deletion made by another process).
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MessagesRepo } from '../store/messages-repo.js';
import { mediaRefsIn, type OutgoingMediaStore } from './outgoing-store.js';

/** Wall ms between the periodic sweeps, and the delay that gathers releases into one sweep. */
const EVERY_MS = 5 * 60_000;
const SOON_MS = 200;

export class OutgoingMediaSweeper {
  private timer: NodeJS.Timeout | null = null;
  private soonTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private stopped = true;

  constructor(
    private readonly messages: Pick<MessagesRepo, 'waitingMediaPayloads'>,
    private readonly files: OutgoingMediaStore,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  start(): void {
    this.stopped = false;
    this.soon();
    this.timer = setInterval(() => this.soon(), EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.timer = this.soonTimer = null;
    await this.running;
  }

  /** Something may have released a file: sweep shortly (releases close together share one sweep). */
  soon(): void {
    if (this.stopped || this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = null;
      this.run();
    }, SOON_MS);
    this.soonTimer.unref();
  }

  /** Resolves when no sweep is running (tests). */
  idle(): Promise<void> {
    return this.running;
  }

  private run(): void {
    this.running = this.running.then(async () => {
      try {
        const removed = await this.files.sweep(async () => {
          const keep = new Set<string>();
          for (const payload of await this.messages.waitingMediaPayloads()) for (const sha of mediaRefsIn(payload).keys()) keep.add(sha);
          return keep;
        });
        if (removed > 0) this.log.debug({ removed }, 'outgoing media no longer queued removed');
      } catch (err) {
        this.metrics.loggedFailures.inc({ component: 'media' });
        this.log.error({ err }, 'outgoing media sweep failed');
      }
    });
  }
}
