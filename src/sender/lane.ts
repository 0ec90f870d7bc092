// One instance's sender: takes the instance's queue from the store in FIFO order and hands each
// message to the engine after the gaps the pacing rules ask for. Exactly one lane exists per
// instance; lanes share nothing but the store, so a slow instance never holds up another.
import { isDiskFull } from '../errors.js';
import type { Clock } from '../clock.js';
import type { AntibanSettings } from '../config.js';
import type { OutgoingMessage } from '../domain/outgoing.js';
import type { EventSink } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';
import type { MessageTransport, RestrictionSignal } from '../sessions/port.js';
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import type { OptOutsRepo } from '../store/opt-outs-repo.js';
import type { MessagesRepo, QueueHead } from '../store/messages-repo.js';
import type { Semaphore } from '../convert/semaphore.js';
import { AntibanMemory } from './antiban-memory.js';
import { antibanPausedEvent, deliveryEvent } from './events.js';
import { classifyFailure, retryDelayMs } from './failures.js';
import { parsePayload, planHead, type Plan } from './plan.js';
import type { Random } from './pacing.js';

export interface SenderStore {
  readonly messages: MessagesRepo;
  readonly instances: InstancesRepo;
  readonly antiban: AntibanRepo;
  /** Scheduled and campaign messages to an opted-out number are skipped when they fall due. */
  readonly optOuts: Pick<OptOutsRepo, 'has'>;
}

export interface ResolvedSenderOptions {
  /** false (ZAPGATE_PACING=off, benchmarks only): no gaps and no typing at all; caps still hold. */
  readonly pacing: boolean;
  readonly antiban: AntibanSettings;
  readonly random: Random;
  /**
   * Attempts before a message whose send failed for a reason that may pass is given up. Attempts
   * are counted when claimed and persisted, so a message that crashes the process is bounded too.
   */
  readonly maxAttempts: number;
  /** Protocol ms before retrying after a transient failure (doubles per attempt, ±20 %). */
  readonly retryMs: number;
}

interface LaneDeps {
  readonly store: SenderStore;
  readonly transport: MessageTransport;
  readonly events: EventSink;
  readonly clock: Clock;
  readonly log: Logger;
  readonly metrics: Metrics | undefined;
  readonly options: ResolvedSenderOptions;
  /** Shared by every lane: how many large payloads (data URIs) may be in memory at once. */
  readonly largePayloads: Semaphore;
  /** A message that referenced stored media left the queue: its files may be removable now. */
  readonly mediaReleased?: (() => void) | undefined;
}

/**
 * Payloads longer than this (characters of the stored JSON, i.e. a data URI of some size) are not
 * read with the queue's head: a lane reads one only when it is about to send it, in one of the
 * sender's `largePayloads` slots, so a hundred instances with 16 MiB data URIs queued do not hold
 * a hundred of them in memory.
 */
const LARGE_PAYLOAD_CHARS = 256 * 1024;

/** Ms a lane waiting only for scheduled messages sleeps at most before looking again. */
const MAX_SCHEDULE_WAIT_MS = 3_600_000;

const OPTED_OUT = 'Skipped: the recipient opted out of this account\'s messages';

/** Failure codes that are the network refusing a message (the governor's failure ratio). */
const NETWORK_REFUSALS = new Set(['NOT_ON_WHATSAPP', 'REFUSED']);

const UNREADABLE = 'Unable to process request: the queued message is unreadable';

export class InstanceLane {
  private running: Promise<void> | null = null;
  private stopped = false;
  /** Set by every wake-up; a lane about to wait or go idle looks again instead. */
  private dirty = false;
  private waker: AbortController | null = null;
  /** In the "typing…" pause of a send: waiting for time, like `waker`. */
  private asleep = false;
  private readonly idleWaiters: (() => void)[] = [];
  private needsLoad = true;
  /** Waiting only for a scheduled message's time (no message is due): an enqueue wakes it. */
  private awaitingSchedule = false;
  private antibanVersion = 0;

  private antiban = false;
  private pairedAt: number | null = null;
  private ownPhone: string | null = null;
  private accountId = '';
  private readonly memory: AntibanMemory;
  private lastSentAt = 0;
  private plan: Plan | null = null;
  private restrictionsSeen = 0;
  /**
   * The last message sent, its DeliveryCallback committed but its move to `sent` not yet: that
   * move rides in the next claim's commit (one fsync for both, docs/benchmarks.md) and is awaited
   * before the lane waits, stops or claims anything.
   */
  private settling: { seq: number; done: Promise<void> } | null = null;

  constructor(
    readonly instanceId: string,
    private readonly deps: LaneDeps,
    private readonly stopSignal: AbortSignal,
  ) {
    this.memory = new AntibanMemory(instanceId, deps.store.antiban, deps.clock, deps.options.antiban);
  }

  /** New messages were committed: make sure the loop runs (it does not cut a running gap short). */
  notify(): void {
    this.dirty = true;
    // Asleep only until a scheduled message falls due: the new message may be due now.
    if (this.awaitingSchedule) this.waker?.abort();
    this.start();
  }

  /** Something the lane waits on changed (connection, settings, pause): look again now. */
  wake(): void {
    this.dirty = true;
    this.waker?.abort();
    this.start();
  }

  connectionChanged(): void {
    // Pairing may just have happened (paired_at drives the warm-up): reload the instance row.
    this.needsLoad = true;
    this.wake();
  }

  applyAntiban(enabled: boolean): void {
    this.antibanVersion++;
    this.antiban = enabled;
    this.plan = null;
    if (enabled) this.needsLoad = true;
    this.wake();
  }

  stop(): Promise<void> {
    this.stopped = true;
    this.waker?.abort();
    return this.running ?? Promise.resolve();
  }

  /** Resolves when the loop has nothing it can do now: stopped, idle, or waiting for time or an event. */
  idle(): Promise<void> {
    if (!this.running || this.waker || this.asleep) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settled(): void {
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private start(): void {
    if (this.running || this.stopped) return;
    this.running = this.supervise().finally(() => {
      this.running = null;
      if (this.dirty && !this.stopped) this.start();
      else this.settled();
    });
  }

  /** Runs the loop; a failure of the store is logged, counted and retried after a pause. */
  private async supervise(): Promise<void> {
    for (let failures = 0; !this.stopped; ) {
      try {
        await this.loop();
        return;
      } catch (err) {
        failures++;
        // A full disk is logged once per episode by the store's watcher (store/disk-watch.ts), not per retry.
        this.deps.log[isDiskFull(err) ? 'debug' : 'error']({ err, instanceId: this.instanceId, failures }, 'sender lane failed; retrying');
        this.deps.metrics?.loggedFailures.inc({ component: 'sender' });
        this.needsLoad = true;
        this.plan = null;
        await this.waitMs(Math.min(60_000, this.deps.options.retryMs * 2 ** Math.min(failures, 6)));
      }
    }
  }

  private async loop(): Promise<void> {
    try {
      await this.loopOnce();
    } finally {
      await this.flushSettle();
    }
  }

  /** Waits for the previous message's move to `sent` (a failure to commit it fails the loop). */
  private async flushSettle(): Promise<void> {
    const settling = this.settling;
    if (!settling) return;
    this.settling = null;
    await settling.done;
  }

  private async loopOnce(): Promise<void> {
    const { store, transport, clock } = this.deps;
    while (!this.stopped) {
      this.dirty = false;
      if (this.needsLoad && !(await this.load())) return;
      // The message whose move to `sent` is still pending is not the head (it has been sent).
      const readAt = clock.now();
      const head = await store.messages.nextHead(this.instanceId, LARGE_PAYLOAD_CHARS, readAt, this.settling?.seq);
      if (!head) {
        await this.flushSettle();
        if (this.dirty) continue;
        // Only scheduled messages wait: sleep until the first falls due (an enqueue wakes us sooner).
        // "After readAt", the head read's time: a message that fell due since is found and waited
        // 0 ms for; asked "after now", it was in neither read and the lane went idle.
        const dueAt = await store.messages.nextScheduledAt(this.instanceId, readAt);
        if (dueAt === null) return;
        // At most an hour at a time: timers overflow past 24.8 days, and a year ahead is allowed.
        this.awaitingSchedule = true;
        try {
          await this.waitMs(Math.min(MAX_SCHEDULE_WAIT_MS, Math.max(0, dueAt - clock.now())));
        } finally {
          this.awaitingSchedule = false;
        }
        continue;
      }
      if (!transport.isConnected(this.instanceId)) {
        await this.flushSettle();
        await this.waitMs(null);
        continue;
      }
      const now = clock.now();
      const pausedUntil = this.antiban ? this.memory.pausedUntil(now) : null;
      if (pausedUntil !== null) {
        await this.flushSettle();
        await this.waitMs(pausedUntil - now);
        continue;
      }
      const plan = await this.planFor(head);
      const readyAt = this.readyAt(head, plan, now);
      if (readyAt > now) {
        // Look again afterwards: the head may have been removed from the queue meanwhile.
        await this.flushSettle();
        await this.waitMs(readyAt - now);
        continue;
      }
      await this.sendOne(head, plan);
    }
  }

  /** Reads the instance's settings and the strategy's memory; false when the instance is gone. */
  private async load(): Promise<boolean> {
    const version = this.antibanVersion;
    const instance = await this.deps.store.instances.find(this.instanceId);
    if (!instance) return false;
    if (version === this.antibanVersion) this.antiban = instance.antiban;
    this.pairedAt = instance.pairedAt;
    this.ownPhone = instance.phone;
    this.accountId = instance.accountId;
    await this.memory.load(this.antiban);
    this.needsLoad = false;
    this.plan = null;
    return true;
  }

  private async planFor(head: QueueHead): Promise<Plan> {
    if (this.plan && this.plan.seq === head.seq && this.plan.antiban === this.antiban) return this.plan;
    const { pacing, antiban: settings, random } = this.deps.options;
    this.plan = await planHead(head, {
      pacing,
      settings,
      random,
      antiban: this.antiban,
      payloadOf: (seq) => this.deps.store.messages.payloadOf(seq),
      isStranger: (phone) => this.memory.isStranger(phone),
    });
    return this.plan;
  }

  /**
   * When the head may go (ms on the clock): the gap since the previous send, the retry time of a
   * failed attempt, then the strategy's limits.
   */
  private readyAt(head: QueueHead, plan: Plan, now: number): number {
    // A scheduled message leaves at its time; the gap still separates it from the previous send.
    const gapReady =
      head.scheduled_at === null
        ? Math.max(this.lastSentAt, Number(head.created_at)) + plan.gapMs
        : Math.max(this.lastSentAt + plan.gapMs, Number(head.scheduled_at));
    const ready = head.next_attempt_at === null ? gapReady : Math.max(gapReady, Number(head.next_attempt_at));
    return plan.antiban ? Math.max(ready, this.memory.readyAt(plan, this.pairedAt, now)) : ready;
  }

  private async sendOne(head: QueueHead, plan: Plan): Promise<void> {
    const { store, clock } = this.deps;
    // Committed before the engine sees the message: after a crash it is sent again, same id. The
    // previous message's move to `sent` was submitted first: the same commit carries both, in order.
    const [, claimed] = await Promise.all([this.flushSettle(), store.messages.claim(head.seq, clock.now())]);
    if (!claimed) return; // removed from the queue meanwhile
    // A scheduled message (campaigns' included) is not sent to a number that opted out meanwhile;
    // the DeliveryCallback reports it skipped (docs/contract.md §12). Direct sends were checked when accepted.
    if (head.scheduled_at !== null && /^\d+$/.test(head.phone) && (await store.optOuts.has(this.accountId, head.phone))) {
      return this.fail(head, OPTED_OUT, 'OPTED_OUT');
    }
    if (plan.unreadable) return this.fail(head, UNREADABLE, 'UNKNOWN');
    // Attempts are counted at each claim: a message whose sending kills the process (and so never
    // reaches settleFailure) stops being retried once its budget is spent.
    if (head.attempts >= this.deps.options.maxAttempts) {
      return this.fail(head, `${head.error ?? 'Unable to process request'} (gave up after ${head.attempts} attempts)`, head.error_code ?? 'UNKNOWN');
    }
    // A channel has no chat to show "typing…" in.
    if (plan.typingMs > 0 && !head.phone.endsWith('@newsletter')) {
      // A voice note shows "recording audio…" instead of "typing…".
      await this.showTyping(head.phone, head.kind === 'audio' ? 'recording' : 'composing');
      if (!(await this.sleepUnlessStopping(plan.typingMs))) return; // stopping: still in flight, resent at next start
    }
    if (plan.message) return this.deliver(head, plan, plan.message);
    // A large payload is read only now, in one of the shared slots, and dropped once settled.
    return this.deps.largePayloads.run(async () => {
      const message = parsePayload(await store.messages.payloadOf(head.seq));
      if (!message) return this.fail(head, UNREADABLE, 'UNKNOWN');
      return this.deliver(head, plan, message);
    });
  }

  private async deliver(head: QueueHead, plan: Plan, message: OutgoingMessage): Promise<void> {
    const restrictionsBefore = this.restrictionsSeen;
    try {
      await this.deps.transport.sendMessage({
        instanceId: this.instanceId,
        zaapId: head.zaap_id,
        messageId: head.message_id,
        phone: head.phone,
        message,
      });
    } catch (err) {
      return this.settleFailure(head, err, restrictionsBefore);
    }
    await this.settleSent(head, plan);
  }

  private async showTyping(phone: string, state: 'composing' | 'recording'): Promise<void> {
    try {
      await this.deps.transport.sendPresence(this.instanceId, phone, state);
    } catch (err) {
      // Presence is cosmetic: the message still goes (a send failure is handled there).
      this.deps.log.warn({ err, instanceId: this.instanceId }, 'typing presence failed');
      this.deps.metrics?.loggedFailures.inc({ component: 'sender' });
    }
  }

  private async settleSent(head: QueueHead, plan: Plan): Promise<void> {
    const { store, events, clock, metrics } = this.deps;
    const at = clock.now();
    this.lastSentAt = at;
    await this.memory.sent(plan, at);
    // The event is committed before the row says sent: a crash in between resends (same id) and
    // reports twice, rather than reporting never.
    await events.emit(this.instanceId, [deliveryEvent(head, at)]);
    // Not awaited here: committed with the next claim, or before the lane waits (flushSettle).
    const done = store.messages.markSent(head.seq, at).then(() => {
      if (head.media_bytes > 0) this.deps.mediaReleased?.();
    });
    done.catch(() => {}); // awaited by flushSettle, which rethrows; no unhandled rejection meanwhile
    this.settling = { seq: head.seq, done };
    metrics?.messagesSent.inc({ result: 'sent' });
    await this.governor(false);
  }

  private async settleFailure(head: QueueHead, err: unknown, restrictionsBefore: number): Promise<void> {
    const { store, clock, metrics, options, transport } = this.deps;
    // The engine may report a restriction just after rejecting the send: let it land first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const outcome = classifyFailure(err, {
      connected: transport.isConnected(this.instanceId),
      restricted: this.antiban && this.restrictionsSeen > restrictionsBefore,
    });
    switch (outcome.kind) {
      case 'disconnected':
        // The link is down: not the message's fault. It waits for the link at the head of the
        // queue, its attempt given back (the loop waits for a connection change).
        await store.messages.requeue(head.seq, clock.now());
        metrics?.messagesSent.inc({ result: 'requeued' });
        return;
      case 'restricted':
        // Refused because the account is being restricted, not because of this message: it
        // waits out the pause at the head of the queue.
        await store.messages.requeue(head.seq, clock.now());
        metrics?.messagesSent.inc({ result: 'requeued' });
        return;
      case 'permanent':
        return this.fail(head, outcome.reason, outcome.code);
      case 'transient': {
        // The message may or may not have left: retry with the same id (receivers de-duplicate)
        // while the budget lasts; attempts and the next attempt's time are on disk.
        const attempts = head.attempts + 1;
        this.deps.log.warn({ err, instanceId: this.instanceId, zaapId: head.zaap_id, attempts, code: outcome.code }, 'send failed; will retry');
        metrics?.loggedFailures.inc({ component: 'sender' });
        if (attempts >= options.maxAttempts) {
          return this.fail(head, `${outcome.reason} (gave up after ${attempts} attempts)`, outcome.code);
        }
        const now = clock.now();
        const nextAt = now + retryDelayMs(attempts, options.retryMs, options.random);
        await store.messages.retryLater(head.seq, now, Math.ceil(nextAt), outcome.reason, outcome.code);
        metrics?.messagesSent.inc({ result: 'retry' });
        return;
      }
    }
  }

  private async fail(head: QueueHead, reason: string, code: string): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.events.emit(this.instanceId, [deliveryEvent(head, at, reason, code)]);
    await this.deps.store.messages.markFailed(head.seq, reason, at, code);
    if (head.media_bytes > 0) this.deps.mediaReleased?.();
    this.deps.metrics?.messagesSent.inc({ result: 'failed' });
    // Only the network's answers count: an opt-out skip or an unreadable payload says nothing of the number.
    if (NETWORK_REFUSALS.has(code)) await this.governor(true);
  }

  /**
   * A restriction signal from the network. With the strategy on, the lane pauses (longer for each
   * further restriction within a day), records why, and reports it; with it off, nothing changes.
   */
  async onRestriction(signal: RestrictionSignal): Promise<void> {
    this.restrictionsSeen++;
    if (this.needsLoad && !(await this.load())) return;
    if (signal.fatal || !this.antiban) return;
    await this.pauseFor(signal.reason);
  }

  /**
   * The governor's other trigger (docs/contract.md §12): too many of the latest sends refused by
   * the network (numbers not on WhatsApp, refusals) is what a bought list or a reported number
   * looks like before a ban, so sending pauses as after a restriction signal.
   */
  private async governor(refused: boolean): Promise<void> {
    if (!this.antiban) return;
    const crossed = this.memory.settled(refused);
    if (!crossed) return;
    const max = this.deps.options.antiban.maxFailureRatio;
    await this.pauseFor(`failure ratio ${crossed.ratio.toFixed(2)} over the last ${crossed.window} sends (max ${max})`);
  }

  /** Pauses sending (escalating), records why, reports ANTIBAN_PAUSED; nothing when already paused. */
  private async pauseFor(reason: string): Promise<void> {
    const paused = await this.memory.restrict(reason);
    if (!paused) return;
    const now = this.deps.clock.now();
    this.deps.log.warn({ instanceId: this.instanceId, reason, ...paused }, 'anti-ban: paused');
    await this.deps.events.emit(this.instanceId, [antibanPausedEvent(this.ownPhone, reason, paused.until, now)]);
    this.wake();
  }

  /** Waits `ms` on the clock (null: until woken); returns early on a wake-up or stop. */
  private async waitMs(ms: number | null): Promise<void> {
    if (this.dirty || this.stopped) return;
    const waker = new AbortController();
    this.waker = waker;
    this.settled();
    try {
      if (ms === null) {
        await new Promise<void>((resolve) => waker.signal.addEventListener('abort', () => resolve(), { once: true }));
      } else {
        await this.deps.clock.sleep(ms, waker.signal).catch((err: unknown) => {
          if (!waker.signal.aborted) throw err;
        });
      }
    } finally {
      if (this.waker === waker) this.waker = null;
    }
  }

  /** Sleeps `ms` on the clock (a wake-up does not cut it short, a stop does); false when stopping. */
  private async sleepUnlessStopping(ms: number): Promise<boolean> {
    this.asleep = true;
    this.settled();
    try {
      await this.deps.clock.sleep(ms, this.stopSignal);
      return true;
    } catch (err) {
      if (this.stopSignal.aborted) return false;
      throw err;
    } finally {
      this.asleep = false;
    }
  }
}
