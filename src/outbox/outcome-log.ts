// Group commit for attempt outcomes: with synchronous=FULL every commit is an fsync that blocks the
// event loop (0.8 ms on an idle disk, ~6 ms on a busy one in bench/webhooks.ts), so outcomes are
// gathered for up to 100 ms and committed together. Delaying them costs nothing in safety: an
// outcome lost in a crash only means one more delivery with the same webhook-id (at-least-once).
import type { Cancel, Clock } from '../clock.js';
import type { DeliveryOutcome } from '../store/deliveries-repo.js';

interface Pending {
  outcome: DeliveryOutcome;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class OutcomeLog {
  private pending: Pending[] = [];
  private cancelFlush: Cancel | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly record: (outcomes: readonly DeliveryOutcome[]) => Promise<void>,
    /** Ms an outcome may wait for others to share its commit: a guard (fsyncs take real time), never scaled. */
    private readonly windowMs = 100,
    private readonly maxBatch = 2_000,
  ) {}

  /** Resolves once the outcome is committed; rejects if its commit failed. */
  submit(outcome: DeliveryOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ outcome, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.flush();
      else this.cancelFlush ??= this.clock.setGuard(this.windowMs, () => this.flush());
    });
  }

  /** Commits whatever is pending now and waits for every commit so far. */
  async drain(): Promise<void> {
    this.flush();
    await this.running;
  }

  private flush(): void {
    this.cancelFlush?.();
    this.cancelFlush = null;
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    // One commit at a time, in submission order: a later outcome of the same delivery lands last.
    this.running = this.running.then(async () => {
      try {
        await this.record(batch.map((p) => p.outcome));
        for (const p of batch) p.resolve();
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    });
  }
}
