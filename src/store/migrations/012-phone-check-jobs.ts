// 012: phone-exists-batch jobs. A batch with more numbers than the network may be asked about in a
// request's time (the checks are paced: ~100 numbers a second) runs as a job the client polls: the
// request answers at once, and a gateway restart resumes the job (numbers already checked come
// back from phone_checks, so a resumed job asks the network only for the rest).
// - phones: the request's numbers (JSON array, at most 50,000), in input order;
// - done: how many have been checked, for progress;
// - results: the Z-API answer (JSON array), written once when the job finishes.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

export const migration012PhoneCheckJobs: Migration = {
  name: '012-phone-check-jobs',
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('phone_check_jobs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('instance_id', 'text', (c) => c.notNull().references('instances.id').onDelete('cascade'))
      // 'running' | 'done' | 'failed'
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('phones', 'text', (c) => c.notNull())
      .addColumn('total', 'integer', (c) => c.notNull())
      .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('results', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint')
      .execute();
    await db.schema.createIndex('phone_check_jobs_instance').on('phone_check_jobs').columns(['instance_id', 'status']).execute();
  },
};
