// Removes stored outgoing media (src/media/outgoing-store.ts) once no waiting message references it:
// soon after something may have released a file (a media message sent or failed, a queue cleared,
// an instance or account deleted), and every few minutes for whatever else (a crash between a
// file's write and its message's commit, a deletion made by another process).
import { PeriodicTask, type Cancel, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MessagesRepo } from '../store/messages-repo.js';
import { mediaRefsIn, type OutgoingMediaStore } from './outgoing-store.js';

/** Ms between the periodic sweeps, and the delay that gathers releases into one sweep. */
const EVERY_MS = 5 * 60_000;
const SOON_MS = 200;

export class OutgoingMediaSweeper {
  private readonly task: PeriodicTask;
  private gathering: Cancel | null = null;

  constructor(
    private readonly messages: Pick<MessagesRepo, 'waitingMediaPayloads'>,
    private readonly files: OutgoingMediaStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {
    this.task = new PeriodicTask(clock, {
      everyMs: EVERY_MS,
      firstAfterMs: SOON_MS,
      run: () => this.sweep(),
      onError: (err) => {
        this.metrics.loggedFailures.inc({ component: 'media' });
        this.log.error({ err }, 'outgoing media sweep failed');
      },
    });
  }

  start(): void {
    this.task.start();
  }

  /** No further sweep starts, and the one under way has ended when this resolves. */
  async stop(): Promise<void> {
    this.gathering?.();
    this.gathering = null;
    await this.task.stop();
  }

  /** Something may have released a file: sweep shortly (releases close together share one sweep). */
  soon(): void {
    if (!this.task.started || this.gathering) return;
    this.gathering = this.clock.setTimer(SOON_MS, () => {
      this.gathering = null;
      this.task.soon();
    });
  }

  private async sweep(): Promise<void> {
    const removed = await this.files.sweep(async () => {
      const keep = new Set<string>();
      for (const payload of await this.messages.waitingMediaPayloads()) for (const sha of mediaRefsIn(payload).keys()) keep.add(sha);
      return keep;
    });
    if (removed > 0) this.log.debug({ removed }, 'outgoing media no longer queued removed');
  }
}
