// The webhook dispatcher: runs delivery attempts with bounded concurrency, in order per lane
// (instance, URL), on the retry schedule, and records every outcome in the store.
//
// Ordering: a lane has at most one attempt in flight, and takes its deliveries earliest-due first,
// then in event order. So while a receiver is healthy it sees events in the order they happened.
// When an attempt fails, that delivery moves to its retry time and the next ones go ahead (rather
// than one bad event holding the URL hostage for 27 hours); receivers that need strict order sort
// by `momment` and de-duplicate by `webhook-id`.
//
// Broker sinks (docs/contract.md §5b) are lanes too, `sink:<kind>` in place of a URL, with one
// difference: their order is strict. A failed publish holds the lane until it is retried, so no later
// event overtakes it (a broker outage affects every event alike, so nothing is gained by going on),
// and the retry budget is counted from the event's commit, so after a long outage the events older
// than the schedule's span fail one after the other instead of each starting the schedule anew.
//
// Memory: the store is the queue. A lane keeps at most a small buffer of due deliveries; fresh ones
// are handed over in memory right after their commit while the lane is "synced" (every due row is
// in memory), and otherwise read back from the store in due order ("refill").
import { isDiskFull } from '../errors.js';
import type { Dispatcher } from 'undici';
import type { Clock } from '../clock.js';
import { sinkOfTarget, type SinkKind } from '../domain/event-sink.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { DeliveriesRepo, DeliveryOutcome, DueDelivery } from '../store/deliveries-repo.js';
import { attemptDelivery } from './attempt.js';
import { OutcomeLog } from './outcome-log.js';
import { nextDelayMs, nextSinkDelayMs, RETRY_DELAYS_MS } from './schedule.js';
import type { SinkAttemptResult } from './sinks/index.js';

type DeliveryStore = Pick<DeliveriesRepo, 'lanes' | 'due' | 'dueInOrder' | 'nextAttemptAt' | 'record' | 'failLane'>;

/** Publishes one delivery to a broker sink (sinks/index.ts). */
export interface SinkAttempts {
  attempt(kind: SinkKind, job: DueDelivery, now: number, signal: AbortSignal): Promise<SinkAttemptResult>;
}

/** A broker sink's retry budget: the whole schedule's span, counted from the event's commit (protocol ms). */
const SINK_BUDGET_MS = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);

export interface DispatcherSettings {
  /** Attempts in flight at once, across all lanes. */
  concurrency: number;
  /** Ms an attempt may take: a guard on the receiver (never scaled: it is a network wait). */
  timeoutMs: number;
  allowHttp: boolean;
  /** Deliveries a lane holds in memory; beyond that they wait in the store. */
  laneBuffer: number;
  /** Deliveries held in memory across all lanes. */
  maxBuffered: number;
  /** Rows read from the store per refill. */
  refillBatch: number;
}

interface DispatcherDeps {
  store: DeliveryStore;
  /** Disables every webhook kind of the instance whose URL is `url` (the receiver answered 410). */
  disableUrl(instanceId: string, url: string, reason: string): Promise<void>;
  clock: Clock;
  log: Logger;
  metrics: Metrics;
  agent: Dispatcher;
  settings: DispatcherSettings;
  /** Cluster mode: whether this node delivers the instance's events (its owner does). */
  owns?: (instanceId: string) => boolean;
  /** Broker sinks; without them a `sink:` lane's deliveries wait (a gateway built without sinks). */
  sinks?: SinkAttempts;
}

interface Lane {
  readonly key: string;
  readonly instanceId: string;
  readonly url: string;
  buffer: DueDelivery[];
  /** Every due delivery of this lane in the store is in `buffer` or already attempted. */
  synced: boolean;
  /** A step (attempt or refill) is running. */
  busy: boolean;
  queued: boolean;
  refilling: boolean;
  /** A fresh delivery was left in the store while a refill was running. */
  missed: boolean;
  /** When the lane's earliest not-yet-due delivery becomes due (ms on the clock). */
  wakeAt: number | null;
  cancelWake: (() => void) | null;
  /**
   * Deliveries attempted whose outcome is not committed yet (the store still shows them due), and
   * the commit each waits for. A refill skips them rather than waiting for the group commit.
   */
  writes: Map<string, Promise<void>>;
  /** Its attempt in flight, aborted when the instance is handed over. */
  attempt: AbortController | null;
  /** The instance went to another node: this lane does nothing more. */
  dropped: boolean;
  /** A broker sink's lane: strict order (see the top of this file). */
  readonly sink: SinkKind | null;
  /** Strict lane: its head failed and waits for its retry; nothing is attempted before the wake. */
  held: boolean;
  /** Strict lane: deliveries whose `retrying` outcome is not committed yet (a refill stops at them). */
  retrying: Set<string>;
}

// A store error while reading a lane: try again after this long, not in a tight loop.
const REFILL_BACKOFF_MS = 1_000;

export class DeliveryDispatcher {
  private readonly lanes = new Map<string, Lane>();
  private readonly ready: Lane[] = [];
  private readonly outcomes: OutcomeLog;
  private active = 0;
  private buffered = 0;
  private running = false;
  /** One controller per attempt in flight, aborted by stop(). */
  private readonly inFlight = new Set<AbortController>();
  private onIdle: (() => void) | null = null;

  constructor(private readonly deps: DispatcherDeps) {
    this.outcomes = new OutcomeLog(deps.clock, (items) => deps.store.record(items));
  }

  /** Resumes every delivery the store still holds (including attempts cut short by a crash). */
  async start(): Promise<void> {
    this.running = true;
    for (const head of await this.deps.store.lanes()) {
      if (!this.mine(head.instanceId)) continue;
      const lane = this.lane(head.instanceId, head.url, false);
      lane.synced = false;
      this.schedule(lane);
    }
    this.pump();
  }

  /** Fresh deliveries, already committed: the fast path that skips reading them back. */
  offer(jobs: readonly DueDelivery[]): void {
    if (!this.running) return; // start() finds them in the store
    const { laneBuffer, maxBuffered } = this.deps.settings;
    for (const job of jobs) {
      // Another node's instance (an event committed here while it had no owner): its owner reads it from the store.
      if (!this.mine(job.instanceId)) continue;
      const lane = this.lane(job.instanceId, job.url, true);
      if (lane.held) {
        // Read from the store after the head's retry, behind it.
        lane.synced = false;
        continue;
      }
      if (lane.synced && lane.buffer.length < laneBuffer && this.buffered < maxBuffered) {
        lane.buffer.push(job);
        this.buffered++;
      } else {
        lane.synced = false;
        if (lane.refilling) lane.missed = true;
      }
      this.schedule(lane);
    }
    this.pump();
  }

  /** Something changed in the store for this lane (a replayed delivery): read it again. */
  wake(instanceId: string, url: string): void {
    if (!this.running || !this.mine(instanceId)) return;
    const lane = this.lane(instanceId, url, false);
    lane.synced = false;
    if (lane.refilling) lane.missed = true;
    this.schedule(lane);
    this.pump();
  }

  /** Cluster mode: this node now delivers the instance's events, from what the store holds. */
  async acquire(instanceId: string): Promise<void> {
    if (!this.running) return;
    for (const head of await this.deps.store.lanes()) {
      if (head.instanceId !== instanceId) continue;
      const lane = this.lane(head.instanceId, head.url, false);
      lane.synced = false;
      this.schedule(lane);
    }
    this.pump();
  }

  /**
   * Cluster mode: the instance goes to another node. Its lanes stop; an attempt in flight is
   * abandoned (it stays due, and the next owner makes it); outcomes already known are committed.
   */
  async release(instanceId: string): Promise<void> {
    const mine = [...this.lanes.values()].filter((l) => l.instanceId === instanceId);
    for (const lane of mine) {
      lane.dropped = true;
      lane.attempt?.abort();
      lane.cancelWake?.();
      lane.cancelWake = null;
      this.buffered -= lane.buffer.length;
      lane.buffer = [];
      this.lanes.delete(lane.key);
    }
    // Steps under way finish (an aborted attempt at once, a store read soon), within the attempt's guard.
    await this.deps.clock.waitUntil(() => !mine.some((l) => l.busy), this.deps.settings.timeoutMs, { pollMs: 10 });
    await Promise.all(mine.flatMap((l) => [...l.writes.values()]));
    await this.outcomes.drain();
  }

  private mine(instanceId: string): boolean {
    return this.deps.owns?.(instanceId) ?? true;
  }

  /**
   * Cluster mode, every heartbeat: lanes of this node's instances that the store holds and memory
   * does not (an event another node committed while the instance had no owner) are read.
   */
  async rescan(): Promise<void> {
    if (!this.running) return;
    for (const head of await this.deps.store.lanes()) {
      if (!this.mine(head.instanceId) || this.lanes.has(`${head.instanceId}\u0000${head.url}`)) continue;
      const lane = this.lane(head.instanceId, head.url, false);
      lane.synced = false;
      this.schedule(lane);
    }
    this.pump();
  }

  /** Stops starting attempts, abandons those in flight (they stay due in the store), commits outcomes. */
  async stop(): Promise<void> {
    this.running = false;
    for (const c of this.inFlight) c.abort();
    for (const lane of this.lanes.values()) lane.cancelWake?.();
    if (this.active > 0) await new Promise<void>((resolve) => (this.onIdle = resolve));
    await this.outcomes.drain();
  }

  private lane(instanceId: string, url: string, fresh: boolean): Lane {
    // Reached only for instances this node runs (offer, wake and acquire check it).
    const key = `${instanceId}\u0000${url}`;
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      // A lane not in memory has nothing left in the store (it is only dropped once it had nothing),
      // so one created for fresh deliveries starts synced; any other starts by reading the store.
      lane = { key, instanceId, url, buffer: [], synced: fresh, busy: false, queued: false, refilling: false, missed: false, wakeAt: null, cancelWake: null, writes: new Map(), attempt: null, dropped: false, sink: sinkOfTarget(url), held: false, retrying: new Set() };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private schedule(lane: Lane): void {
    if (lane.busy || lane.queued || lane.dropped || lane.held) return;
    if (lane.buffer.length === 0 && lane.synced) return;
    lane.queued = true;
    this.ready.push(lane);
  }

  private pump(): void {
    while (this.running && this.active < this.deps.settings.concurrency) {
      const lane = this.ready.shift();
      if (lane === undefined) return;
      lane.queued = false;
      if (lane.dropped) continue;
      lane.busy = true;
      this.active++;
      void this.step(lane).then(() => {
        lane.busy = false;
        this.active--;
        this.settle(lane);
        if (this.active === 0 && this.onIdle !== null) this.onIdle();
        this.pump();
      });
    }
  }

  /** After a step: queue the lane again if it has work, forget it if it has nothing left at all. */
  private settle(lane: Lane): void {
    if (lane.buffer.length > 0 || !lane.synced) this.schedule(lane);
    // Kept while outcomes are pending: a failed write or a skipped row comes back to this lane.
    else if (lane.wakeAt === null && lane.writes.size === 0 && this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
  }

  private async step(lane: Lane): Promise<void> {
    try {
      const job = lane.buffer.shift();
      if (job === undefined) {
        if (!lane.synced) await this.refill(lane);
        return;
      }
      this.buffered--;
      await this.attempt(lane, job);
    } catch (err) {
      // Defensive: attempt() and refill() handle their own failures; anything else is a bug.
      this.deps.log.error({ err, instanceId: lane.instanceId }, 'webhook dispatcher step failed');
      this.deps.metrics.loggedFailures.inc({ component: 'outbox' });
      this.backOff(lane);
    }
  }

  private async refill(lane: Lane): Promise<void> {
    const { store, clock, settings } = this.deps;
    lane.refilling = true;
    lane.missed = false;
    try {
      // Taken before the read: an outcome committed after the read started is still skipped. No
      // attempt of this lane runs during a refill, so nothing joins the set meanwhile.
      const skip = new Map(lane.writes);
      const limit = settings.refillBatch + skip.size;
      const now = clock.now();
      let rows: DueDelivery[];
      let next: number | null;
      if (lane.sink === null) {
        rows = await store.due(lane.instanceId, lane.url, now, limit);
        next = rows.length < limit ? await store.nextAttemptAt(lane.instanceId, lane.url, now) : null;
      } else {
        const read = await store.dueInOrder(lane.instanceId, lane.url, now, limit);
        rows = read.due;
        next = read.headAt;
        // The head waits for its retry (after a restart, or a wake that came early): hold until then.
        if (next !== null) lane.held = true;
      }
      const fresh: DueDelivery[] = [];
      const skipped: Promise<void>[] = [];
      let cut = false;
      for (const r of rows) {
        const pending = skip.get(r.id);
        if (pending === undefined) fresh.push(r);
        else skipped.push(pending);
        // A strict lane stops at a delivery whose retry is not committed yet: nothing may pass it.
        if (pending !== undefined && lane.retrying.has(r.id)) {
          cut = true;
          break;
        }
      }
      // What the skipped rows become (delivered, or due at some later time) is known once their
      // outcomes are committed: read the lane again then.
      if (skipped.length > 0) void Promise.all(skipped).then(() => this.wake(lane.instanceId, lane.url));
      lane.buffer.push(...fresh);
      this.buffered += fresh.length;
      // Cut at a retry whose outcome is not committed yet: the lane is read again when it is (the
      // skipped writes' wake above), not at once — reading it again before that finds the same row
      // and, on SQLite, whose reads never yield, would spin without letting the write commit.
      lane.synced = cut || (rows.length < limit && !lane.missed);
      if (next !== null) this.setWake(lane, next);
    } catch (err) {
      // A full disk is logged once per episode by the store's watcher (store/disk-watch.ts), not per retry.
      this.deps.log[isDiskFull(err) ? 'debug' : 'error']({ err, instanceId: lane.instanceId }, 'reading webhook deliveries failed; retrying');
      this.deps.metrics.loggedFailures.inc({ component: 'outbox' });
      this.backOff(lane);
    } finally {
      lane.refilling = false;
    }
  }

  private async attempt(lane: Lane, job: DueDelivery): Promise<void> {
    const { clock, settings, metrics, log } = this.deps;
    const stop = new AbortController();
    this.inFlight.add(stop);
    lane.attempt = stop;
    if (lane.sink !== null) {
      const outcome = await this.publish(lane.sink, job, stop.signal).finally(() => {
        this.inFlight.delete(stop);
        lane.attempt = null;
      });
      this.settleSink(lane, lane.sink, job, outcome);
      return;
    }
    const result = await attemptDelivery(
      { webhookId: job.eventId, url: job.url, body: job.body, secrets: job.secrets },
      { dispatcher: this.deps.agent, clock, timeoutMs: settings.timeoutMs, allowHttp: settings.allowHttp, signal: stop.signal },
    ).finally(() => {
      this.inFlight.delete(stop);
      lane.attempt = null;
    });
    const at = clock.now();
    switch (result.outcome) {
      case 'aborted':
        // Shutting down: the row is still due in the store, so the attempt is made again after restart.
        return;
      case 'delivered':
        metrics.webhookDeliveries.inc({ result: 'delivered' });
        metrics.webhookLag.observe(Math.max(0, at - job.createdAt) / 1000);
        this.write(lane, { id: job.id, result: 'delivered', httpStatus: result.status, at });
        return;
      case 'gone':
        metrics.webhookDeliveries.inc({ result: 'gone' });
        await this.retire(lane, job, result.error, at);
        return;
      case 'failed': {
        const delay = nextDelayMs(job.attempts + 1, result.retryAfterMs);
        log.debug({ instanceId: job.instanceId, kind: job.kind, deliveryId: job.id, attempt: job.attempts + 1, error: result.error }, 'webhook attempt failed');
        if (delay === null) {
          metrics.webhookDeliveries.inc({ result: 'failed' });
          log.warn({ instanceId: job.instanceId, kind: job.kind, deliveryId: job.id, error: result.error }, 'webhook delivery failed after every retry');
          this.write(lane, { id: job.id, result: 'failed', httpStatus: result.status, error: result.error, at });
          return;
        }
        metrics.webhookDeliveries.inc({ result: 'retrying' });
        const nextAttemptAt = at + delay;
        this.write(lane, { id: job.id, result: 'retrying', httpStatus: result.status, error: result.error, nextAttemptAt, at });
        this.setWake(lane, nextAttemptAt);
        return;
      }
    }
  }

  private async publish(kind: SinkKind, job: DueDelivery, signal: AbortSignal): Promise<SinkAttemptResult> {
    if (this.deps.sinks === undefined) return { outcome: 'failed', error: 'this gateway has no broker sinks', final: false };
    return this.deps.sinks.attempt(kind, job, this.deps.clock.now(), signal);
  }

  /** A broker publish's outcome: recorded like a webhook's, but a failure holds the lane (strict order). */
  private settleSink(lane: Lane, sink: SinkKind, job: DueDelivery, result: SinkAttemptResult): void {
    const { clock, metrics, log } = this.deps;
    const at = clock.now();
    switch (result.outcome) {
      case 'aborted':
        return;
      case 'delivered':
        metrics.sinkPublishes.inc({ sink, result: 'delivered' });
        metrics.sinkLag.observe({ sink }, Math.max(0, at - job.createdAt) / 1000);
        this.write(lane, { id: job.id, result: 'delivered', httpStatus: null, at });
        return;
      case 'failed': {
        const delay = result.final ? null : nextSinkDelayMs(job.attempts + 1);
        log.debug({ instanceId: job.instanceId, sink, deliveryId: job.id, attempt: job.attempts + 1, error: result.error }, 'broker publish failed');
        if (delay === null || at - job.createdAt > SINK_BUDGET_MS) {
          metrics.sinkPublishes.inc({ sink, result: 'failed' });
          log.warn({ instanceId: job.instanceId, sink, deliveryId: job.id, error: result.error }, 'broker publish failed after every retry');
          this.write(lane, { id: job.id, result: 'failed', httpStatus: null, error: result.error, at });
          return;
        }
        metrics.sinkPublishes.inc({ sink, result: 'retrying' });
        const nextAttemptAt = at + delay;
        lane.retrying.add(job.id);
        this.write(lane, { id: job.id, result: 'retrying', httpStatus: null, error: result.error, nextAttemptAt, at });
        const p = lane.writes.get(job.id);
        void p?.finally(() => lane.retrying.delete(job.id));
        // Hold: what is buffered goes back to the store's order, read again after the retry.
        this.buffered -= lane.buffer.length;
        lane.buffer = [];
        lane.synced = false;
        lane.held = true;
        this.setWake(lane, nextAttemptAt);
        return;
      }
    }
  }

  /** 410 Gone: the URL is disabled and every delivery still queued for it fails now. */
  private async retire(lane: Lane, job: DueDelivery, error: string, at: number): Promise<void> {
    const { store, log, metrics } = this.deps;
    this.write(lane, { id: job.id, result: 'failed', httpStatus: 410, error, at });
    try {
      await Promise.all(lane.writes.values());
      await this.deps.disableUrl(job.instanceId, job.url, error);
      const failed = await store.failLane(job.instanceId, job.url, `${error}; webhook disabled`, at);
      this.buffered -= lane.buffer.length;
      lane.buffer = [];
      lane.synced = true;
      lane.cancelWake?.();
      lane.cancelWake = null;
      lane.wakeAt = null;
      log.warn({ instanceId: job.instanceId, kind: job.kind, failed }, 'webhook receiver answered 410 Gone; URL disabled');
    } catch (err) {
      // The next attempt at this URL gets 410 again and retires it then.
      log.error({ err, instanceId: job.instanceId }, 'disabling a gone webhook failed');
      metrics.loggedFailures.inc({ component: 'outbox' });
    }
  }

  private write(lane: Lane, outcome: DeliveryOutcome): void {
    const p: Promise<void> = this.outcomes.submit(outcome).then(
      () => undefined,
      (err: unknown) => {
        // The row keeps its old state in the store: read the lane again so it is attempted again.
        this.deps.log[isDiskFull(err) ? 'debug' : 'error']({ err, instanceId: lane.instanceId }, 'recording a webhook outcome failed');
        this.deps.metrics.loggedFailures.inc({ component: 'outbox' });
        if (lane.dropped) return; // handed over: the next owner reads the row as it is
        const again = this.lane(lane.instanceId, lane.url, false);
        again.synced = false;
        this.schedule(again);
        this.pump();
      },
    );
    lane.writes.set(outcome.id, p);
    void p.then(() => {
      if (lane.writes.get(outcome.id) === p) lane.writes.delete(outcome.id);
    });
  }

  /** After a store error: read the lane again once the backoff has passed, not in a tight loop. */
  private backOff(lane: Lane): void {
    // "synced" keeps settle() from queueing the lane now; the wake timer clears it.
    lane.synced = true;
    this.setWake(lane, this.deps.clock.now() + REFILL_BACKOFF_MS);
  }

  private setWake(lane: Lane, at: number): void {
    if (!this.running) return;
    if (lane.wakeAt !== null && lane.wakeAt <= at) return;
    lane.cancelWake?.();
    lane.wakeAt = at;
    const { clock } = this.deps;
    lane.cancelWake = clock.setTimer(Math.max(0, at - clock.now()), () => {
      lane.wakeAt = null;
      lane.cancelWake = null;
      lane.held = false;
      if (!this.running || lane.dropped) return;
      lane.synced = false;
      if (lane.refilling) lane.missed = true;
      this.schedule(lane);
      this.pump();
    });
  }
}
