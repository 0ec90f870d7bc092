// phone-exists-batch jobs: a batch whose unchecked numbers the network cannot be asked about within
// a request's time (checks are paced so a burst does not get the number banned: ~100 a second) runs
// here while the client polls. A job's numbers are checked in slices, its progress recorded after
// each, and the answers written once at the end; a restart resumes running jobs, and the numbers
// already checked come back from the phone-check cache, so only the rest reach the network again.
// One job runs at a time per instance (two would double the pace the network sees).
import { parsePhone } from '../domain/phone.js';
import { DomainError, errors } from '../errors.js';
import { newUuid } from '../ids.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PhoneCheck, SessionsPort } from '../sessions/port.js';
import type { PhoneCheckJobsRepo } from '../store/phone-check-jobs-repo.js';
import type { PhoneCheckJobRow, PhoneCheckJobStatus } from '../store/schema.js';

/** How a poll sees a job (GET …/phone-exists-batch/{jobId}). */
export interface PhoneCheckJobView {
  jobId: string;
  status: PhoneCheckJobStatus;
  total: number;
  done: number;
  /** Z-API's answer, in input order, once done. */
  results?: PhoneCheck[];
  error?: string;
}

export interface PhoneCheckJobSettings {
  /** Numbers per slice: progress is recorded after each. */
  sliceSize: number;
  /** Jobs an instance may have running or waiting at once. */
  maxPerInstance: number;
  /** How long (protocol ms) a running job waits for its instance to reconnect before it fails. */
  reconnectWaitMs: number;
  /** How long (protocol ms) a finished job's answer is kept. */
  keepMs: number;
}

export const DEFAULT_PHONE_CHECK_JOBS: PhoneCheckJobSettings = { sliceSize: 500, maxPerInstance: 3, reconnectWaitMs: 5 * 60_000, keepMs: 24 * 60 * 60_000 };

export class PhoneCheckJobs {
  /** The tail of each instance's chain of jobs. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly repo: PhoneCheckJobsRepo,
    private readonly sessions: SessionsPort,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly settings: PhoneCheckJobSettings = DEFAULT_PHONE_CHECK_JOBS,
  ) {}

  /** Records a job for already validated numbers (the caller's spellings) and starts it. */
  async start(instanceId: string, phones: readonly string[]): Promise<PhoneCheckJobView> {
    if ((await this.repo.countRunning(instanceId)) >= this.settings.maxPerInstance) {
      throw errors.tooManyPhoneCheckJobs(this.settings.maxPerInstance);
    }
    const id = newUuid();
    await this.repo.create({ id, instance_id: instanceId, phones, created_at: this.clock.now() });
    const row = await this.repo.find(instanceId, id);
    if (!row) throw errors.notFound('Job not found');
    this.schedule(row);
    return view(row);
  }

  async get(instanceId: string, id: string): Promise<PhoneCheckJobView> {
    const row = await this.repo.find(instanceId, id);
    if (!row) throw errors.notFound('Job not found');
    return view(row);
  }

  /** Resumes the jobs that were running when the gateway stopped, and forgets old answers. */
  /** `mine`: cluster mode, only the jobs of instances this node runs (the others' owners run theirs). */
  async resume(mine: (instanceId: string) => boolean = () => true): Promise<void> {
    await this.repo.pruneFinished(this.clock.now() - this.settings.keepMs);
    for (const row of await this.repo.listRunning()) if (mine(row.instance_id) && !this.chains.has(row.instance_id)) this.schedule(row);
  }

  /** Stops taking slices; running jobs stay `running` in the store and resume at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running]);
  }

  private schedule(row: PhoneCheckJobRow): void {
    const previous = this.chains.get(row.instance_id) ?? Promise.resolve();
    const next = previous.then(() => this.run(row));
    this.chains.set(row.instance_id, next);
    this.running.add(next);
    void next.finally(() => {
      this.running.delete(next);
      if (this.chains.get(row.instance_id) === next) this.chains.delete(row.instance_id);
    });
  }

  private async run(row: PhoneCheckJobRow): Promise<void> {
    const inputs = JSON.parse(row.phones) as string[];
    const digits = inputs.map((p) => parsePhone(p));
    const results: PhoneCheck[] = [];
    try {
      for (let i = 0; i < digits.length; i += this.settings.sliceSize) {
        if (this.closed) return;
        await this.connected(row.instance_id);
        const part = await this.sessions.checkPhones(row.instance_id, digits.slice(i, i + this.settings.sliceSize));
        part.forEach((r, k) => results.push({ ...r, inputPhone: inputs[i + k] ?? r.inputPhone }));
        await this.repo.progress(row.id, results.length);
      }
      await this.repo.finish(row.id, JSON.stringify(results), this.clock.now());
    } catch (err) {
      if (this.closed) return;
      const reason = err instanceof DomainError ? (err.detail ?? err.message) : err instanceof Error ? err.message : String(err);
      this.log.warn({ instanceId: row.instance_id, jobId: row.id, err }, 'phone-exists-batch job failed');
      await this.repo.fail(row.id, reason, this.clock.now()).catch((e: unknown) => this.log.error({ err: e }, 'recording a failed phone-check job failed'));
    }
  }

  /** Waits (bounded) for the instance to be connected; a job survives a short reconnect. */
  private async connected(instanceId: string): Promise<void> {
    const deadline = this.clock.now() + this.settings.reconnectWaitMs;
    while (!this.sessions.isConnected(instanceId)) {
      if (this.closed) return;
      if (this.clock.now() >= deadline) throw errors.notConnected();
      await this.clock.sleep(1_000);
    }
  }
}

function view(row: PhoneCheckJobRow): PhoneCheckJobView {
  return {
    jobId: row.id,
    status: row.status,
    total: row.total,
    done: row.done,
    ...(row.results ? { results: JSON.parse(row.results) as PhoneCheck[] } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}
