// Whether the store can write: a write that fails for want of space (SQLITE_FULL, ENOSPC,
// PostgreSQL's disk_full) starts a "disk full" episode; it ends with a committed write once no write
// has failed for space for QUIET_MS. The quiet time matters because a nearly full disk still takes
// small writes (SQLite reuses its WAL, PostgreSQL fills free space in a page) while larger ones fail:
// without it the state would flap with every small success. Listeners hear each change once, so the
// log says "disk full" once per episode, not once per failed write.

type StorageListener = (full: boolean, cause: unknown) => void;

/** How long writes must have stopped failing for space before a success ends the episode. */
const QUIET_MS = 5_000;

export class StorageHealth {
  private isFull = false;
  private lastFailure = -Infinity;
  private readonly listeners: StorageListener[] = [];

  constructor(
    /** The gateway's clock (src/clock.ts). */
    private readonly now: () => number,
    private readonly quietMs = QUIET_MS,
  ) {}

  /** True from a write refused for space until the episode ends (see above). */
  get full(): boolean {
    return this.isFull;
  }

  onChange(listener: StorageListener): void {
    this.listeners.push(listener);
  }

  writeFailedForSpace(cause: unknown): void {
    this.lastFailure = this.now();
    if (this.isFull) return;
    this.isFull = true;
    for (const l of this.listeners) l(true, cause);
  }

  /** Called after a write committed; cheap when nothing is wrong (a boolean test on the hot path). */
  writeSucceeded(): void {
    if (!this.isFull || this.now() - this.lastFailure < this.quietMs) return;
    this.isFull = false;
    for (const l of this.listeners) l(false, undefined);
  }
}
