// A node of the cluster (docs/cluster.md): holds a lease in the database, renews it every heartbeat,
// and after each renewal reconciles what it runs with what the database says it owns: it adopts
// instances assigned to it, claims orphans up to its fair share, and hands over one or two
// instances at a time when another live node has fewer than its share.
//
// Self-fencing: WhatsApp cannot check our fencing tokens, so a node that has not renewed its lease
// for (lease - one heartbeat) stops every session before the lease can run out and others take its
// instances. The database fences what it cannot stop (late writes of a paused process): see
// migration 018.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PeriodicTask, type Clock } from '../clock.js';
import type { ClusterSettings } from '../config.js';
import type { Logger } from '../logger.js';
import type { ClusterRepo, InstanceOwner } from '../store/cluster-repo.js';
import type { ClusterMetricsSink, OwnedWork, Placement } from './types.js';

interface ClusterNodeDeps {
  repo: ClusterRepo;
  settings: ClusterSettings;
  clock: Clock;
  log: Logger;
  metrics?: ClusterMetricsSink;
  /** Called once when the node fences itself (lease lost): close every socket, then exit. */
  onFenced(reason: string): void;
}

/** Orphans claimed per reconcile at most (a dead node's instances spread over a few heartbeats). */
const CLAIM_BATCH = 200;
/** Instances handed over per reconcile at most when the cluster rebalances (a node joined). */
const MOVES_PER_TICK = 2;
/** Instances handed over at once by a node that leaves (SIGTERM). */
const LEAVE_PARALLEL = 8;
/** How long a remote owner looked up for a request is trusted. */
const OWNER_CACHE_MS = 1_000;

/**
 * The lease runs on the database's clock, in real time, whatever the gateway's time scale: so the
 * heartbeat is timed like a guard (PeriodicTask timing 'guard', never scaled), and the lease's age
 * is measured with performance.now().
 */
export class ClusterNode {
  readonly incarnation = randomUUID();
  private readonly owned = new Map<string, number>();
  /** Instances being stopped here for a handover (their work winds down; requests answer 503). */
  private readonly moving = new Set<string>();
  private work: OwnedWork | null = null;
  /** Renews the lease, then reconciles (beat()), every heartbeat from the join on. */
  private readonly heartbeat: PeriodicTask;
  private lastRenewAt = 0;
  private ticking: Promise<void> | null = null;
  private state: 'new' | 'up' | 'leaving' | 'fenced' | 'gone' = 'new';
  private renewFailures = 0;
  /** When this node last handed instances over to rebalance (performance.now()). */
  private gaveAt = -Infinity;
  private readonly ownerCache = new Map<string, { at: number; owner: InstanceOwner | undefined }>();

  constructor(private readonly deps: ClusterNodeDeps) {
    this.heartbeat = new PeriodicTask(deps.clock, {
      everyMs: deps.settings.heartbeatMs,
      timing: 'guard',
      run: () => this.tick(),
      // beat() handles its own failures; anything else is a bug, and the next heartbeat still runs.
      onError: (err) => deps.log.error({ err }, 'cluster: heartbeat failed'),
    });
  }

  get nodeId(): string {
    return this.deps.settings.nodeId;
  }

  get heartbeatMs(): number {
    return this.deps.settings.heartbeatMs;
  }

  /** Registered, renewing its lease, and not leaving. */
  get up(): boolean {
    return this.state === 'up';
  }

  get url(): string {
    return this.deps.settings.nodeUrl;
  }

  /** Registers this node with a fresh lease (before anything else touches an instance). */
  async join(): Promise<void> {
    const { repo, settings, log } = this.deps;
    // A lease another incarnation of this node id still holds is waited out, never taken over: that
    // process (killed a moment ago, or still running under the same id) may hold sockets.
    for (let waited = false; ; waited = true) {
      const started = performance.now();
      const { heldBy } = await repo.register(settings.nodeId, this.incarnation, settings.nodeUrl, settings.leaseMs);
      if (!heldBy) {
        this.lastRenewAt = started;
        break;
      }
      if (!waited) log.warn({ nodeId: settings.nodeId, heldBy }, 'another process holds a live lease under this ZAPGATE_NODE_ID: waiting for it to leave or run out (if that node still runs, give each node its own id)');
      await new Promise<void>((resolve) => this.deps.clock.setGuard(settings.heartbeatMs, resolve));
    }
    this.state = 'up';
    log.info({ nodeId: settings.nodeId, incarnation: this.incarnation, url: settings.nodeUrl }, 'joined the cluster');
    // The lease is renewed from now on, while the rest of the gateway starts (which may take longer than a lease).
    this.heartbeat.start();
  }

  /** `work` runs what this node owns: from now on each heartbeat reconciles it, the first one at once. */
  async start(work: OwnedWork): Promise<void> {
    this.work = work;
    await this.tick();
  }

  owns(instanceId: string): boolean {
    return this.owned.has(instanceId) && !this.moving.has(instanceId);
  }

  /** The instances this node runs now. */
  ownedIds(): string[] {
    return [...this.owned.keys()];
  }

  epochOf(instanceId: string): number | null {
    return this.owned.get(instanceId) ?? null;
  }

  /** Seconds a client should wait before trying an instance without a live owner again. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.deps.settings.heartbeatMs / 1000));
  }

  /**
   * Who runs the instance: this node, another live node (and where), or nobody right now. A
   * request for an instance the database gave this node that it has not adopted yet adopts it.
   */
  async placement(instanceId: string): Promise<Placement> {
    if (this.owns(instanceId)) return { kind: 'here' };
    const owner = await this.ownerOf(instanceId, this.moving.has(instanceId));
    if (!owner) return { kind: 'unknown' };
    if (owner.incarnation === this.incarnation) {
      if (this.state === 'up' && !this.moving.has(instanceId)) {
        await this.adopt(instanceId, owner.epoch);
        return { kind: 'here' };
      }
      return { kind: 'nobody' };
    }
    if (owner.live && owner.url && owner.nodeId) return { kind: 'forward', nodeId: owner.nodeId, url: owner.url };
    return { kind: 'nobody' };
  }

  /** The instance's owner as the database says (cached briefly unless `fresh`). */
  async ownerOf(instanceId: string, fresh = false): Promise<InstanceOwner | undefined> {
    const hit = this.ownerCache.get(instanceId);
    if (!fresh && hit && performance.now() - hit.at < OWNER_CACHE_MS) return hit.owner;
    const owner = await this.deps.repo.ownerOf(instanceId);
    if (this.ownerCache.size > 10_000) this.ownerCache.clear();
    this.ownerCache.set(instanceId, { at: performance.now(), owner });
    return owner;
  }

  /** A forward to the instance's owner failed: look it up again next time. */
  forget(instanceId: string): void {
    this.ownerCache.delete(instanceId);
  }

  /** A new instance: given to the least-loaded live node, adopted at once when that is this one. */
  async assignNew(instanceId: string): Promise<void> {
    const owner = await this.deps.repo.assignNew(instanceId);
    this.ownerCache.delete(instanceId);
    if (owner && owner.incarnation === this.incarnation) await this.adopt(instanceId, owner.epoch);
  }

  /**
   * SIGTERM: stops taking instances, hands over each one it owns (session closed and writes
   * drained before the database lets others claim it), then leaves the cluster.
   */
  async leave(): Promise<void> {
    if (this.state !== 'up') return;
    this.state = 'leaving';
    await this.heartbeat.stop();
    await this.ticking;
    const { repo, log } = this.deps;
    await repo.setState(this.incarnation, 'leaving').catch((err: unknown) => log.warn({ err }, 'cluster: could not mark this node as leaving'));
    // Renewed meanwhile: a handover of many instances may take longer than one lease.
    const keepAlive = new PeriodicTask(this.deps.clock, {
      everyMs: this.deps.settings.heartbeatMs,
      timing: 'guard',
      run: async () => {
        await this.renew();
      },
      onError: (err) => log.warn({ err }, 'cluster: renewing the lease while leaving failed'),
    });
    keepAlive.start();
    try {
      // A few at a time: each one's socket is closed and its writes committed before it is released.
      const queue = [...this.owned.keys()];
      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined; id = queue.shift()) await this.handOver(id);
      };
      await Promise.all(Array.from({ length: LEAVE_PARALLEL }, worker));
      if (this.owned.size > 0) {
        // Not given away (stopping failed): the row stays, so they are taken over only when this lease runs out.
        log.error({ left: this.owned.size }, 'cluster: some instances could not be stopped; they are taken over when this lease runs out');
        return;
      }
      await repo.deregister(this.incarnation);
      log.info({ nodeId: this.nodeId }, 'left the cluster: every instance handed over');
    } catch (err) {
      log.error({ err }, 'cluster: leaving was cut short; the instances left are taken over when this lease runs out');
    } finally {
      await keepAlive.stop();
      this.state = 'gone';
    }
  }

  /**
   * Stops the heartbeat without handing anything over (tests that simulate a crash use kill -9
   * instead); resolves once a beat under way has finished.
   */
  stop(): Promise<void> {
    return this.heartbeat.stop();
  }

  // ---- heartbeat ------------------------------------------------------------------------------

  private tick(): Promise<void> {
    this.ticking ??= this.beat().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async beat(): Promise<void> {
    if (this.state !== 'up') return;
    // Checked before renewing: a process that was paused must not carry on as if nothing happened.
    if (this.leaseLapsing()) return this.fence(`the lease was not renewed for ${Math.round(performance.now() - this.lastRenewAt)} ms`);
    const renewed = await this.renew();
    if (this.state !== 'up') return;
    if (renewed === 'lost') return this.fence('the lease ran out or another process registered this node id');
    if (this.leaseLapsing()) return this.fence(`the lease could not be renewed for ${Math.round(performance.now() - this.lastRenewAt)} ms`);
    if (renewed !== 'ok' || !this.work) return;
    try {
      await this.reconcile();
      await this.work?.tick?.();
    } catch (err) {
      this.deps.log.warn({ err }, 'cluster: reconciling ownership failed; trying again at the next heartbeat');
    }
  }

  /** Within one heartbeat of the lease's end (measured from when the last renewal was sent). */
  private leaseLapsing(): boolean {
    return performance.now() - this.lastRenewAt > this.deps.settings.leaseMs - this.deps.settings.heartbeatMs;
  }

  private async renew(): Promise<'ok' | 'lost' | 'failed'> {
    const sentAt = performance.now();
    try {
      const ok = await this.deps.repo.renew(this.nodeId, this.incarnation, this.deps.settings.leaseMs);
      if (!ok) return 'lost';
      // The lease runs from when the database ran the update, which is after we sent it.
      this.lastRenewAt = sentAt;
      if (this.renewFailures > 0) this.deps.log.warn({ failures: this.renewFailures }, 'cluster: the lease is renewed again');
      this.renewFailures = 0;
      return 'ok';
    } catch (err) {
      if (this.renewFailures++ === 0) this.deps.log.error({ err }, 'cluster: renewing the lease failed (the database is unreachable?); retrying every heartbeat');
      return 'failed';
    }
  }

  private fence(reason: string): void {
    if (this.state === 'fenced') return;
    if (this.owned.size === 0) {
      // Nothing runs here, so nothing can be driven from two places: take a fresh lease instead.
      void this.rejoin(reason);
      return;
    }
    this.state = 'fenced';
    // Not awaited: this runs inside a beat, which stop() would wait for.
    void this.stop();
    this.deps.log.error({ nodeId: this.nodeId, reason }, 'cluster: this node lost its lease and fences itself: every WhatsApp socket is closed before another node can take its instances');
    this.deps.onFenced(reason);
  }

  private rejoining = false;

  private async rejoin(reason: string): Promise<void> {
    if (this.rejoining) return;
    this.rejoining = true;
    const { repo, settings, log } = this.deps;
    try {
      const started = performance.now();
      const { heldBy } = await repo.register(settings.nodeId, this.incarnation, settings.nodeUrl, settings.leaseMs);
      if (heldBy) {
        log.warn({ nodeId: settings.nodeId, heldBy }, 'cluster: the lease lapsed and another process holds this node id now; trying again at the next heartbeat');
        return;
      }
      this.lastRenewAt = started;
      log.warn({ nodeId: settings.nodeId, reason }, 'cluster: the lease lapsed while this node ran no instance; it took a new lease');
    } catch (err) {
      log.warn({ err }, 'cluster: taking a new lease failed; trying again at the next heartbeat');
    } finally {
      this.rejoining = false;
    }
  }

  private async reconcile(): Promise<void> {
    const { repo } = this.deps;
    const inDb = new Map((await repo.owned(this.incarnation)).map((o) => [o.id, o.epoch]));
    // Lost: taken over while we could not renew, or deleted. Stopped here without a handover.
    for (const id of [...this.owned.keys()]) {
      if (!inDb.has(id) && !this.moving.has(id)) await this.drop(id, 'lost');
    }
    // Assigned here by another node (a new instance) and not adopted yet.
    for (const [id, epoch] of inDb) if (!this.owned.has(id)) await this.adopt(id, epoch);
    if (this.state !== 'up') return;

    const nodes = (await repo.nodes()).filter((n) => n.live && n.state === 'up');
    const total = await repo.instanceCount();
    const share = Math.ceil(total / Math.max(1, nodes.length));
    const mine = this.owned.size;
    // A node that just gave some away does not claim for a while, or it would take them back.
    const giving = performance.now() - this.gaveAt < 3 * this.deps.settings.heartbeatMs;
    if (mine < share && !giving) {
      for (const o of await repo.claimOrphans(this.nodeId, this.incarnation, Math.min(share - mine, CLAIM_BATCH))) await this.adopt(o.id, o.epoch);
      return;
    }
    // Rebalance (a node joined): only the most loaded node gives (lowest id among equals), a few
    // instances per heartbeat, until no node has two more than another.
    const busiest = [...nodes].sort((a, b) => b.owned - a.owned || a.nodeId.localeCompare(b.nodeId))[0];
    const lightest = [...nodes].sort((a, b) => a.owned - b.owned)[0];
    if (!busiest || !lightest || busiest.incarnation !== this.incarnation) return;
    const moves = Math.min(MOVES_PER_TICK, Math.floor((mine - lightest.owned) / 2));
    if (moves <= 0) return;
    this.gaveAt = performance.now();
    for (const id of [...this.owned.keys()].slice(0, moves)) await this.handOver(id);
  }

  private async adopt(instanceId: string, epoch: number): Promise<void> {
    if (this.owned.has(instanceId) || this.moving.has(instanceId)) return;
    // Owned from here on: the engine, the sender and the outbox start its work as theirs.
    this.owned.set(instanceId, epoch);
    this.ownerCache.delete(instanceId);
    try {
      await this.work?.acquire(instanceId);
      this.deps.metrics?.handover('acquired');
      this.deps.log.info({ instanceId, epoch }, 'cluster: instance acquired');
    } catch (err) {
      this.deps.log.error({ err, instanceId }, 'cluster: starting an acquired instance failed');
    }
  }

  /** Stops the instance here, then lets the database give it to another node. */
  private async handOver(instanceId: string): Promise<void> {
    await this.drop(instanceId, 'released');
  }

  private async drop(instanceId: string, why: 'released' | 'lost'): Promise<void> {
    this.moving.add(instanceId);
    try {
      await this.work?.release(instanceId);
    } catch (err) {
      this.deps.log.error({ err, instanceId }, 'cluster: stopping an instance failed');
      if (why === 'released') {
        // Its socket may still be open: it is not given away (tried again at a later rebalance;
        // when leaving, another node takes it once this lease has run out, after the exit).
        this.moving.delete(instanceId);
        return;
      }
    }
    try {
      // Only once its session is closed and its writes are drained may another node claim it.
      if (why === 'released') await this.deps.repo.release(this.incarnation, instanceId);
    } finally {
      this.owned.delete(instanceId);
      this.moving.delete(instanceId);
      this.ownerCache.delete(instanceId);
    }
    this.deps.metrics?.handover(why);
    this.deps.log.info({ instanceId }, why === 'lost' ? 'cluster: instance lost to another node' : 'cluster: instance handed over');
  }
}
