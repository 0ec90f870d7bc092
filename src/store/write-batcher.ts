// Commits every write that arrives in the same event-loop tick in one transaction:
// with synchronous=FULL each commit costs an fsync, so batching is what makes durable accepts fast
// (measured by bench/enqueue).

export type BatchFlush<T, R> = (items: readonly T[]) => Promise<readonly R[]>;

export class WriteBatcher<T, R> {
  private pending: { item: T; resolve: (r: R) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly flushFn: BatchFlush<T, R>,
    private readonly maxBatch = 500,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= this.maxBatch) this.schedule(true);
      else this.schedule(false);
    });
  }

  private schedule(now: boolean): void {
    if (this.scheduled && !now) return;
    this.scheduled = true;
    const run = (): void => {
      this.scheduled = false;
      const batch = this.pending;
      if (batch.length === 0) return;
      this.pending = [];
      // Batches run one after another so the order of commits follows the order of arrival.
      this.running = this.running.then(async () => {
        try {
          const results = await this.flushFn(batch.map((b) => b.item));
          batch.forEach((b, i) => b.resolve(results[i] as R));
        } catch (err) {
          for (const b of batch) b.reject(err);
        }
      });
    };
    if (now) run();
    else setImmediate(run);
  }

  /** Resolves once everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.scheduled) {
      await new Promise((r) => setImmediate(r));
    }
    await this.running;
  }
}
