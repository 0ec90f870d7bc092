// The live event stream: the outbox's events, per instance or per account, in commit order, from a
// cursor (the last event id a consumer saw). The store is the only source: a commit only wakes the
// streams it concerns, and each stream reads what follows its own cursor, so a slow or reconnecting
// consumer gets every event once, in order, for as long as the outbox keeps it.
import { Gauge, type Registry } from 'prom-client';
import type { Cancel, Clock } from '../clock.js';
import { errors } from '../errors.js';
import type { LiveStream } from '../outbox/sink.js';
import type { StreamEvent, StreamEventsRepo } from '../store/events-repo.js';

export type { StreamEvent };

export interface EventStreamSettings {
  /** Streams one account may hold open at once (each is a long-lived HTTP connection). */
  maxPerAccount: number;
  /** Events read per query; a stream behind by more reads again at once. */
  batch: number;
  /**
   * A comment line is sent this often, so proxies and clients see a live connection: a guard
   * (their idle timeouts are wall-clock), never scaled.
   */
  heartbeatMs: number;
}

export const DEFAULT_EVENT_STREAM: EventStreamSettings = { maxPerAccount: 10, batch: 200, heartbeatMs: 15_000 };

export interface StreamScope {
  accountId: string;
  /** null: every instance of the account, including ones created after the stream opened. */
  instanceId: string | null;
}

/** Where a stream hands its events; resolves once the consumer can take more (back-pressure). */
type Deliver = (events: readonly StreamEvent[]) => Promise<void>;

export interface OpenStream {
  /** Stops reading; idempotent. */
  close(): void;
}

type Reads = Pick<StreamEventsRepo, 'lastSeq' | 'resumeAfter' | 'forInstance' | 'forAccount'>;

class Stream implements OpenStream {
  private cursor = 0;
  private pumping = false;
  private again = false;
  /** Until the cursor is known, a wake only notes that there is something to read. */
  private started = false;
  closed = false;

  constructor(
    readonly scope: StreamScope,
    private readonly reads: Reads,
    private readonly batch: number,
    private readonly deliver: Deliver,
    private readonly fail: (err: unknown) => void,
    private readonly onClose: (s: Stream) => void,
  ) {}

  async start(lastEventId: string | undefined): Promise<void> {
    const resumed = lastEventId === undefined ? null : await this.reads.resumeAfter(lastEventId);
    this.cursor = resumed ?? (await this.reads.lastSeq());
    this.started = true;
    this.wake();
  }

  /** Reads what follows the cursor; a wake during a read makes it read once more after. */
  wake(): void {
    if (this.closed) return;
    if (this.pumping || !this.started) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.pump().then(
      () => {
        this.pumping = false;
        // A wake that came after the last read but before this settled.
        if (this.again) this.wake();
      },
      (err: unknown) => {
        this.pumping = false;
        this.fail(err);
      },
    );
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      for (;;) {
        if (this.closed) return;
        const { accountId, instanceId } = this.scope;
        const rows = instanceId === null ? await this.reads.forAccount(accountId, this.cursor, this.batch) : await this.reads.forInstance(instanceId, this.cursor, this.batch);
        if (rows.length === 0 || this.closed) break;
        this.cursor = rows[rows.length - 1]!.seq;
        await this.deliver(rows);
        if (rows.length < this.batch) break;
      }
    } while (this.again && !this.closed);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}

export class EventStreamHub implements LiveStream {
  private readonly streams = new Set<Stream>();
  private readonly perAccount = new Map<string, number>();
  private readonly closers = new Map<Stream, () => void>();
  /** Long polls of the pull API (services/event-pull.ts) waiting for an instance's next commit. */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly reads: Reads,
    private readonly clock: Clock,
    private readonly settings: EventStreamSettings = DEFAULT_EVENT_STREAM,
  ) {}

  /** The outbox committed events of these instances. Cheap when no stream is open (the send path). */
  notify(instanceIds: ReadonlySet<string>): void {
    if (this.waiters.size > 0) for (const id of instanceIds) for (const wake of this.waiters.get(id) ?? []) wake();
    if (this.streams.size === 0) return;
    for (const s of this.streams) if (s.scope.instanceId === null || instanceIds.has(s.scope.instanceId)) s.wake();
  }

  get open(): number {
    return this.streams.size;
  }

  /** Calls `beat` every heartbeatMs until the returned function is called. */
  heartbeat(beat: () => void): Cancel {
    let cancel: Cancel | null = null;
    const arm = (): void => {
      cancel = this.clock.setGuard(this.settings.heartbeatMs, () => {
        if (cancel === null) return;
        beat();
        arm();
      });
    };
    arm();
    return () => {
      cancel?.();
      cancel = null;
    };
  }

  /**
   * Opens a stream after `lastEventId` (or from now). `ended` is called when the hub closes it on
   * its own (shutdown, a failed read): the transport should end its response then.
   */
  async openStream(scope: StreamScope, lastEventId: string | undefined, deliver: Deliver, ended: (err?: unknown) => void): Promise<OpenStream> {
    const count = this.perAccount.get(scope.accountId) ?? 0;
    if (count >= this.settings.maxPerAccount) throw errors.tooManyEventStreams(this.settings.maxPerAccount);
    this.perAccount.set(scope.accountId, count + 1);
    const stream = new Stream(
      scope,
      this.reads,
      this.settings.batch,
      deliver,
      (err) => {
        stream.close();
        ended(err);
      },
      (s) => this.forget(s),
    );
    // Registered before the cursor is read: a commit landing meanwhile wakes it, and nothing is missed.
    this.streams.add(stream);
    this.closers.set(stream, () => ended());
    try {
      await stream.start(lastEventId);
    } catch (err) {
      stream.close();
      throw err;
    }
    return stream;
  }

  /**
   * Calls `wake` at each of this node's commits of events of the instance, until the returned
   * function is called. A commit on another node does not call it: callers re-read on a short
   * period as well.
   */
  onCommit(instanceId: string, wake: () => void): Cancel {
    const set = this.waiters.get(instanceId) ?? new Set<() => void>();
    this.waiters.set(instanceId, set);
    const listener = (): void => wake();
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.waiters.get(instanceId) === set) this.waiters.delete(instanceId);
    };
  }

  /** Ends every stream (shutdown): consumers reconnect elsewhere or later with Last-Event-ID. */
  closeAll(): void {
    for (const s of [...this.streams]) {
      const ended = this.closers.get(s);
      s.close();
      ended?.();
    }
  }

  private forget(s: Stream): void {
    if (!this.streams.delete(s)) return;
    this.closers.delete(s);
    const left = (this.perAccount.get(s.scope.accountId) ?? 1) - 1;
    if (left > 0) this.perAccount.set(s.scope.accountId, left);
    else this.perAccount.delete(s.scope.accountId);
  }
}

/** zapgate_event_streams_open, read at each scrape. */
export function countOpenStreams(hub: Pick<EventStreamHub, 'open'>, registry: Registry): void {
  new Gauge({
    name: 'zapgate_event_streams_open',
    help: 'Event streams (GET /events) open now',
    registers: [registry],
    collect() {
      this.set(hub.open);
    },
  });
}
