// Commits every write that arrives in the same event-loop tick in one transaction:
// with synchronous=FULL each commit costs an fsync, so batching is what makes durable accepts fast
// (measured by bench/enqueue). While a commit is running (the fsync happens off the event loop with
// the sqlite-worker dialect), new writes gather and go together in the next one: a group commit.

type BatchFlush<T, R> = (items: readonly T[]) => Promise<readonly R[]>;

interface Waiting<T, R> {
  item: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export class WriteBatcher<T, R> {
  private pending: Waiting<T, R>[] = [];
  private scheduled = false;
  private flushing = false;
  /** The flush in progress (settles, never rejects), for drain(). */
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly flushFn: BatchFlush<T, R>,
    private readonly maxBatch = 500,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.flushing) return; // the running flush picks these up when it ends
      if (this.pending.length >= this.maxBatch) this.run();
      else this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.run();
    });
  }

  /** Flushes up to maxBatch waiting items; batches run one after another, in arrival order. */
  private run(): void {
    if (this.flushing || this.pending.length === 0) return;
    const batch = this.pending.length <= this.maxBatch ? this.pending : this.pending.slice(0, this.maxBatch);
    this.pending = batch === this.pending ? [] : this.pending.slice(this.maxBatch);
    this.flushing = true;
    this.current = this.flush(batch);
  }

  private async flush(batch: Waiting<T, R>[]): Promise<void> {
    try {
      const results = await this.flushFn(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i] as R));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
    this.flushing = false;
    // What gathered during the commit goes next; waiting one more tick adds this tick's arrivals.
    if (this.pending.length >= this.maxBatch) this.run();
    else if (this.pending.length > 0) this.schedule();
  }

  /** Resolves once everything submitted so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.pending.length > 0 || this.scheduled || this.flushing) {
      if (this.flushing) await this.current;
      else await new Promise((r) => setImmediate(r));
    }
  }
}
