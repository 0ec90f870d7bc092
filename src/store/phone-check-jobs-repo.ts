// phone-exists-batch jobs (012): created by the request, advanced by the job runner, read by polls.
import type { Kysely } from 'kysely';
import type { DB, PhoneCheckJobRow } from './schema.js';

export class PhoneCheckJobsRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async create(job: { id: string; instance_id: string; phones: readonly string[]; created_at: number }): Promise<void> {
    await this.db
      .insertInto('phone_check_jobs')
      .values({ id: job.id, instance_id: job.instance_id, status: 'running', phones: JSON.stringify(job.phones), total: job.phones.length, results: null, error: null, created_at: job.created_at, finished_at: null })
      .execute();
  }

  /** The job, if it belongs to this instance (another instance's id reads as absent). */
  async find(instanceId: string, id: string): Promise<PhoneCheckJobRow | undefined> {
    return this.db.selectFrom('phone_check_jobs').selectAll().where('id', '=', id).where('instance_id', '=', instanceId).executeTakeFirst();
  }

  async countRunning(instanceId: string): Promise<number> {
    const row = await this.db
      .selectFrom('phone_check_jobs')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('instance_id', '=', instanceId)
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Jobs to resume at start, oldest first. */
  async listRunning(): Promise<PhoneCheckJobRow[]> {
    return this.db.selectFrom('phone_check_jobs').selectAll().where('status', '=', 'running').orderBy('created_at').execute();
  }

  async progress(id: string, done: number): Promise<void> {
    await this.db.updateTable('phone_check_jobs').set({ done }).where('id', '=', id).where('status', '=', 'running').execute();
  }

  async finish(id: string, results: string, at: number): Promise<void> {
    await this.db
      .updateTable('phone_check_jobs')
      .set((eb) => ({ status: 'done', results, done: eb.ref('total'), finished_at: at }))
      .where('id', '=', id)
      .execute();
  }

  async fail(id: string, error: string, at: number): Promise<void> {
    await this.db.updateTable('phone_check_jobs').set({ status: 'failed', error, finished_at: at }).where('id', '=', id).execute();
  }

  /** Forgets finished jobs older than `before` (their answers were there to be fetched). */
  async pruneFinished(before: number): Promise<number> {
    const r = await this.db.deleteFrom('phone_check_jobs').where('status', '!=', 'running').where('finished_at', '<', before).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
