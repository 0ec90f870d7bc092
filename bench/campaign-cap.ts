// The campaign runner's daily-cap count (src/store/campaigns-repo.ts queuedSince, docs/contract.md
// §12), asked for a number each time the runner is about to queue its next message: with N
// recipients of one number already queued (N = 40,000 by default), of which the last 200 today,
// prints the time per count and the planner's plan on SQLite and PostgreSQL, with migration 029's
// index campaign_recipients_sent_since and then without it (dropped: the plan before 029).
//
// Usage: node --import tsx bench/campaign-cap.ts [--recipients 40000] [--dialects sqlite,postgres]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../src/store/database.js';
import { createStore } from '../src/store/index.js';

const { values } = parseArgs({ options: { recipients: { type: 'string', default: '40000' }, dialects: { type: 'string', default: 'sqlite,postgres' } } });
const N = Number(values.recipients);
const TODAY = 200;
const PG_URL = process.env.ZAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const T = 1_800_000_000_000;

for (const dialect of values.dialects.split(',')) {
  const pg = dialect === 'postgres';
  const schema = `bench_cap_${Date.now()}`;
  const dir = pg ? '' : mkdtempSync(join(tmpdir(), 'zapgate-cap-'));
  const open = (): Promise<Database> => openDatabase(pg ? { dataDir: '', databaseUrl: PG_URL, pgSchema: schema } : { dataDir: dir });
  let database = await open();
  try {
    await seed(database);
    await measure(database, pg, 'with campaign_recipients_sent_since (029)');
    await sql`drop index campaign_recipients_sent_since`.execute(database.db);
    // Reopened, so no connection plans with the schema it read before the drop.
    await database.close();
    database = await open();
    await measure(database, pg, 'without it (as before 029)');
  } finally {
    if (pg) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(database.db);
    await database.close();
    if (!pg) rmSync(dir, { recursive: true, force: true });
  }
}

async function seed(database: Database): Promise<void> {
  const db = database.db;
  await db.insertInto('accounts').values({ id: 'acc', name: 'a', token_hash: 'x', created_at: T }).execute();
  await sql`insert into instances (id, account_id, name, token_hash, status, status_reason, status_since, antiban, disable_enqueue_when_disconnected, list_mode, notify_sent_by_me, webhook_secret, created_at)
    values ('i1', 'acc', 'n', 'h', 'disconnected', 'created', ${T}, 0, 0, 'poll', 0, 's', ${T})`.execute(db);
  await db.insertInto('campaigns').values({ id: 'c1', account_id: 'acc', name: 'c', template: 't', instance_ids: '["i1"]', state: 'running', settings: '{}', started_at: T, created_at: T, updated_at: T }).execute();
  for (let i = 0; i < N; i += 500) {
    const rows = Array.from({ length: Math.min(500, N - i) }, (_, k) => ({
      campaign_id: 'c1', position: i + k + 1, phone: String(5500000000000 + i + k), vars: '{}', instance_id: 'i1',
      state: 'queued' as const, message_id: `m${i + k}`, zaap_id: null, queued_at: T + (i + k) * 1000,
    }));
    await db.insertInto('campaign_recipients').values(rows).execute();
  }
}

async function measure(database: Database, pg: boolean, label: string): Promise<void> {
  const store = createStore(database);
  const db = database.db;
  const since = T + (N - TODAY) * 1000;
  if (pg) await sql`analyze campaign_recipients`.execute(db);
  for (let i = 0; i < 20; i++) await store.campaigns.queuedSince('c1', 'i1', since);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) await store.campaigns.queuedSince('c1', 'i1', since);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6 / 200;
  const q = `select count(*) as n from campaign_recipients where campaign_id = 'c1' and instance_id = 'i1' and state = 'queued' and queued_at >= ${since}`;
  const plan = pg
    ? (await sql.raw<{ 'QUERY PLAN': string }>(`explain ${q}`).execute(db)).rows.map((r) => r['QUERY PLAN'])
    : (await sql.raw<{ detail: string }>(`explain query plan ${q}`).execute(db)).rows.map((r) => r.detail);
  console.log(`${pg ? 'postgres' : 'sqlite'}, ${label}: ${ms.toFixed(3)} ms per count (${await store.campaigns.queuedSince('c1', 'i1', since)} today of ${N} queued)`);
  for (const line of plan) console.log(`    ${line}`);
}
