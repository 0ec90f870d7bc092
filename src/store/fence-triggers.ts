// Attaches zapgate_fence() (migration 018) to every table with an instance_id column, and to
// instances itself, so a table added by any later migration is fenced too without a list to keep.
// Run by each cluster node at start, under an advisory lock (nodes starting together take turns).
import { sql, type Kysely } from 'kysely';
import type { DB } from './schema.js';

const TRIGGER = 'zapgate_fence';
/** Any 64-bit number of our own: the key of the advisory lock taken while triggers change. */
const LOCK_KEY = 7_301_118_407_553_020n;

/** Answers the tables fenced now (for the log). */
export async function installFenceTriggers(db: Kysely<DB>): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${LOCK_KEY.toString()}::bigint)`.execute(trx);
    const tables = await sql<{ table_name: string }>`
      select c.table_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and c.column_name = 'instance_id' and t.table_type = 'BASE TABLE'
      order by c.table_name`.execute(trx);
    const names = ['instances', ...tables.rows.map((r) => r.table_name)];
    const present = new Set(
      (
        await sql<{ table_name: string }>`
          select event_object_table as table_name from information_schema.triggers
          where trigger_schema = current_schema() and trigger_name = ${TRIGGER}`.execute(trx)
      ).rows.map((r) => r.table_name),
    );
    for (const name of names) {
      if (present.has(name)) continue;
      // instances: only updates are fenced (inserts and deletes come from requests, never an engine).
      const events = name === 'instances' ? sql`update` : sql`insert or update or delete`;
      await sql`create trigger ${sql.id(TRIGGER)} before ${events} on ${sql.id(name)} for each row execute function zapgate_fence()`.execute(trx);
    }
    return names;
  });
}
