// Instances: creation, lookup with the contract's check order, lifecycle commands and settings.
import QRCode from 'qrcode';
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { hashToken, newInstanceId, newToken, tokenMatches } from '../ids.js';
import { generateWebhookSecret } from '../outbox/signing.js';
import type { SessionsPort } from '../sessions/port.js';
import type { AccountsRepo } from '../store/accounts-repo.js';
import type { AntibanRepo } from '../store/antiban-repo.js';
import type { InstancesRepo } from '../store/instances-repo.js';
import { HISTORY_DEFAULT_DAYS } from '../domain/history.js';
import type { Instance, InstanceChanges, InstanceStatus, ListMode } from '../domain/instance.js';
import { CREATED_REASON } from '../domain/number-health.js';
import { parsePhone } from '../domain/phone.js';
import { toInstance, toNewInstanceRow } from '../store/instances-repo.js';

export interface CreatedInstance {
  instanceId: string;
  instanceToken: string;
  name: string;
  status: InstanceStatus;
}

export interface InstanceSummary {
  instanceId: string;
  name: string;
  status: InstanceStatus;
  phone: string | null;
}

interface InstanceStatusView {
  connected: boolean;
  smartphoneConnected: boolean;
  error: string | null;
  status: InstanceStatus;
  statusReason: string | null;
  since: number;
  phone: string | null;
  antiban: AntibanStatus;
  /** Cluster mode: the node running the instance's session (null: none right now). */
  ownerNode?: string | null;
}

/** The anti-ban strategy as it stands: paused (with the network's reason) after a restriction signal. */
interface AntibanStatus {
  enabled: boolean;
  paused: boolean;
  reason: string | null;
  /** ms since the epoch when sending resumes. */
  until: number | null;
}

interface InstanceSettings {
  disableEnqueueWhenDisconnected?: boolean;
  notifySentByMe?: boolean;
  listMode?: ListMode;
  /** Closing line of numbered-text lists; '' restores the default. */
  listReplyHint?: string;
}

interface AntibanResult {
  value: boolean;
  antiBanEnabled: boolean;
  workerSynced: boolean;
}

/**
 * Who else applies update-antiban live besides the session: the sender's lane for the instance,
 * the worker that actually paces. True when it is running and took the setting.
 */
interface LiveAntiban {
  applyAntiban(instanceId: string, enabled: boolean): boolean;
}

/** Cluster mode (cluster/node.ts): who runs which instance. */
export interface InstancePlacement {
  readonly nodeId: string;
  owns(instanceId: string): boolean;
  assignNew(instanceId: string): Promise<void>;
}

/** What InstancesService needs of the store (the SQL store implements it). */
interface InstancesStore {
  readonly instances: Pick<InstancesRepo, 'create' | 'delete' | 'findById' | 'listOfAccount' | 'change'>;
  readonly accounts: Pick<AccountsRepo, 'findById'>;
  readonly antiban: Pick<AntibanRepo, 'pause'>;
}

interface InstancesServiceDeps {
  store: InstancesStore;
  sessions: SessionsPort;
  clock: Clock;
  /** How long an instance read for authentication is trusted (default 2 s). */
  cacheTtlMs?: number;
  /** ZAPGATE_MAX_INSTANCES_PER_ACCOUNT (0 = no cap, the default). */
  maxPerAccount?: number;
  /** The sender (null: this process sends nothing, so only the session's answer counts). */
  liveAntiban?: LiveAntiban | null;
  /** Cluster mode: new instances get an owner at once; status names it. */
  cluster?: InstancePlacement | null;
  /** An instance was deleted, its queued messages with it: their stored media may go (the sweep). */
  mediaReleased?: () => void;
}

export class InstancesService {
  /** Instances by id for the authentication hot path; invalidated on every change made here. */
  private readonly cache = new Map<string, { instance: Instance; until: number }>();
  /** Bumped by every invalidation, so a lookup that started before one does not refill the cache. */
  private epoch = 0;
  private readonly store: InstancesStore;
  private readonly sessions: SessionsPort;
  private readonly clock: Clock;
  private readonly cacheTtlMs: number;
  private readonly maxPerAccount: number;
  private readonly liveAntiban: LiveAntiban | null;
  private readonly cluster: InstancePlacement | null;
  private readonly mediaReleased: () => void;

  constructor(deps: InstancesServiceDeps) {
    this.store = deps.store;
    this.sessions = deps.sessions;
    this.clock = deps.clock;
    this.cacheTtlMs = deps.cacheTtlMs ?? 2_000;
    this.maxPerAccount = deps.maxPerAccount ?? 0;
    this.liveAntiban = deps.liveAntiban ?? null;
    this.cluster = deps.cluster ?? null;
    this.mediaReleased = deps.mediaReleased ?? (() => undefined);
  }

  async create(accountId: string, name: string): Promise<CreatedInstance> {
    const instanceToken = newToken();
    const now = this.clock.now();
    const id = newInstanceId();
    const instance: Instance = {
      id,
      accountId,
      name,
      tokenHash: hashToken(instanceToken),
      status: 'disconnected',
      statusReason: CREATED_REASON,
      statusSince: now,
      phone: null,
      lid: null,
      pairedAt: null,
      createdAt: now,
      antiban: false,
      disableEnqueueWhenDisconnected: false,
      notifySentByMe: false,
      listMode: 'poll',
      listReplyHint: null,
      webhookSecret: generateWebhookSecret(),
      webhookSecretPrevious: null,
      autoReadMessage: false,
      autoReadStatus: false,
      callRejectAuto: false,
      callRejectMessage: null,
      proxyUrl: null,
      proxyEnabled: false,
      historyImport: false,
      historyDays: HISTORY_DEFAULT_DAYS,
      historyWebhook: false,
    };
    const created = this.store.instances.create(toNewInstanceRow(instance), this.maxPerAccount);
    const inserted = await created.catch(async (err: unknown) => {
      // The account was deleted by another process (`zapgate accounts delete`) while this one still
      // had it cached: its token is no longer valid, and that is a 401, not a failed insert.
      if (!(await this.store.accounts.findById(accountId))) throw errors.unauthorizedClient();
      throw err;
    });
    if (!inserted) throw errors.tooManyInstances(this.maxPerAccount);
    // Its owner runs its session from the first QR on; a failure here leaves it an orphan, claimed at the next heartbeat.
    await this.cluster?.assignNew(id).catch(() => undefined);
    return { instanceId: id, instanceToken, name, status: 'disconnected' };
  }

  async list(accountId: string): Promise<InstanceSummary[]> {
    const instances = await this.store.instances.listOfAccount(accountId);
    return instances.map((i) => ({ instanceId: i.id, name: i.name, status: i.status, phone: i.phone }));
  }

  /**
   * Resolves an instance-scoped request: 404 when the instance is not this account's (another
   * account's instance is indistinguishable from a missing one), then 401 on a wrong token.
   */
  async resolve(accountId: string, instanceId: string, instanceToken: string): Promise<Instance> {
    return admit(await this.find(instanceId), accountId, instanceToken);
  }

  /**
   * resolve() without a promise when the instance is cached, as it is for nearly every request
   * (bench/enqueue); undefined when the cache cannot answer.
   */
  resolveCached(accountId: string, instanceId: string, instanceToken: string): Instance | undefined {
    const hit = this.cache.get(instanceId);
    if (!hit || hit.until <= this.clock.now()) return undefined;
    return admit(hit.instance, accountId, instanceToken);
  }

  /** The instance as stored now, bypassing the cache (for reads whose answer must be fresh). */
  async fresh(instanceId: string): Promise<Instance> {
    const row = await this.store.instances.findById(instanceId);
    if (!row) throw errors.instanceNotFound();
    return toInstance(row);
  }

  private async find(instanceId: string): Promise<Instance | undefined> {
    const now = this.clock.now();
    const hit = this.cache.get(instanceId);
    if (hit && hit.until > now) return hit.instance;
    const epoch = this.epoch;
    // findById, not find: test/unit/instances-cache.test.ts holds this very read back to race it.
    const row = await this.store.instances.findById(instanceId);
    const instance = row && toInstance(row);
    // A read that raced an invalidation (e.g. rotate-token on another pooled connection) may hold
    // the old row; caching it would let the old token in for another TTL.
    if (epoch !== this.epoch) return instance;
    if (instance) {
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(instanceId, { instance, until: now + this.cacheTtlMs });
    } else {
      this.cache.delete(instanceId);
    }
    return instance;
  }

  invalidate(instanceId: string): void {
    this.epoch++;
    this.cache.delete(instanceId);
  }

  private async patch(instanceId: string, changes: InstanceChanges): Promise<void> {
    await this.store.instances.change(instanceId, changes);
    this.invalidate(instanceId);
  }

  async status(instanceId: string): Promise<InstanceStatusView> {
    const instance = await this.fresh(instanceId);
    const status = instance.status;
    const connected = status === 'connected' && this.sessions.isConnected(instanceId);
    return {
      connected,
      smartphoneConnected: connected,
      error: connected
        ? null
        : instance.pairedAt !== null && status !== 'logged_out'
          ? 'You need to restore the session.'
          : 'You are not connected.',
      status,
      statusReason: instance.statusReason,
      since: instance.statusSince,
      phone: instance.phone,
      antiban: await this.antibanStatus(instance),
      ...(this.cluster ? { ownerNode: this.cluster.owns(instanceId) ? this.cluster.nodeId : null } : {}),
    };
  }

  private async antibanStatus(instance: Instance): Promise<AntibanStatus> {
    const enabled = instance.antiban;
    const pause = enabled ? await this.store.antiban.pause(instance.id) : undefined;
    const until = pause?.pausedUntil ?? null;
    const paused = until !== null && until > this.clock.now();
    return { enabled, paused, reason: paused ? (pause?.reason ?? null) : null, until: paused ? until : null };
  }

  /** The live QR string; starts a pairing session when none is live. 404 when none can be produced. */
  async qr(instanceId: string, waitMs = 10_000): Promise<string> {
    const instance = await this.fresh(instanceId);
    if (instance.status === 'connected' || this.sessions.isConnected(instanceId)) throw errors.qrUnavailable('the instance is already connected');
    const qr = await this.sessions.qr(instanceId, waitMs);
    if (!qr) throw errors.qrUnavailable(await this.noQrReason(instanceId));
    return qr;
  }

  /**
   * Why no QR came: the state the session recorded (e.g. the network could not be reached and it
   * is reconnecting), which /status shows too; the QR answer says it rather than a guess.
   */
  private async noQrReason(instanceId: string): Promise<string> {
    const now = await this.fresh(instanceId);
    if (now.status === 'connected') return 'the instance is already connected';
    const reason = now.statusReason && now.statusReason !== CREATED_REASON ? `: ${now.statusReason}` : '';
    return `no QR code came from the network (status ${now.status}${reason})`;
  }

  async qrPng(instanceId: string): Promise<Buffer> {
    return QRCode.toBuffer(await this.qr(instanceId), { type: 'png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
  }

  async pairingCode(instanceId: string, phone: string): Promise<string> {
    const digits = parsePhone(phone);
    const instance = await this.fresh(instanceId);
    if (instance.status === 'connected') throw errors.conflict('You are already connected.');
    return this.sessions.pairingCode(instanceId, digits);
  }

  async restart(instanceId: string): Promise<void> {
    await this.sessions.restart(instanceId);
  }

  async disconnect(instanceId: string): Promise<void> {
    await this.sessions.logout(instanceId);
    this.invalidate(instanceId);
  }

  async delete(instanceId: string): Promise<void> {
    await this.sessions.remove(instanceId);
    await this.store.instances.delete(instanceId);
    this.invalidate(instanceId);
    this.mediaReleased();
  }

  async rotateToken(instanceId: string): Promise<string> {
    const token = newToken();
    await this.patch(instanceId, { tokenHash: hashToken(token) });
    return token;
  }

  async rename(instanceId: string, name: string): Promise<void> {
    await this.patch(instanceId, { name });
  }

  async setAntiban(instanceId: string, enabled: boolean): Promise<AntibanResult> {
    await this.patch(instanceId, { antiban: enabled });
    const sessionRunning = this.sessions.applyAntiban(instanceId, enabled);
    // Both always hear it; `workerSynced` reports what the sender did, not just an open socket.
    const workerApplied = this.liveAntiban ? this.liveAntiban.applyAntiban(instanceId, enabled) : true;
    return { value: true, antiBanEnabled: enabled, workerSynced: workerApplied && sessionRunning };
  }

  async updateSettings(instanceId: string, settings: InstanceSettings): Promise<void> {
    const { listReplyHint, ...rest } = settings;
    const changes: InstanceChanges = listReplyHint === undefined ? rest : { ...rest, listReplyHint: listReplyHint || null };
    if (Object.values(changes).some((v) => v !== undefined)) await this.patch(instanceId, changes);
  }
}

/** 404 when the instance is not this account's (another account's looks missing), then 401 on a wrong token. */
function admit(instance: Instance | undefined, accountId: string, instanceToken: string): Instance {
  if (!instance || instance.accountId !== accountId) throw errors.instanceNotFound();
  if (!tokenMatches(instanceToken, instance.tokenHash)) throw errors.unauthorizedInstance();
  return instance;
}
