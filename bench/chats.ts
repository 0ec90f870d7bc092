// GET /chats over a large stored copy: fills a store with CHATS_BENCH_CHATS chats (default 10,000)
// and CHATS_BENCH_MESSAGES messages (default 1,000,000) through the repositories (messages in
// multi-row batches, each chat's newest message through the engine's own write path), then pages
// through every chat over real HTTP and prints p50/p99 per page, and the store's size on disk per
// message. SQLite by default; `--pg` uses PostgreSQL (ZAPGATE_TEST_PG_URL, a schema of its own).
// Run: node --import tsx bench/chats.ts [--pg]
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { createGateway } from '../src/main.js';
import { offlineSessions } from '../src/sessions/offline-sessions.js';
import type { ChatMessageRow } from '../src/store/schema.js';

const PG = process.argv.includes('--pg');
const PG_URL = process.env.ZAPGATE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const CHATS = Number(process.env.CHATS_BENCH_CHATS ?? 10_000);
const MESSAGES = Number(process.env.CHATS_BENCH_MESSAGES ?? 1_000_000);
const PAGE_SIZE = Number(process.env.CHATS_BENCH_PAGE_SIZE ?? 100);

const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-bench-chats-'));
const pgSchema = `bench_${randomBytes(4).toString('hex')}`;
const gateway = await createGateway(
  loadConfig({ ZAPGATE_HOST: '127.0.0.1', ZAPGATE_PORT: '0', ZAPGATE_DATA_DIR: dataDir, ZAPGATE_LOG_LEVEL: 'silent', ZAPGATE_RATE_LIMIT: '0', ...(PG ? { ZAPGATE_DATABASE_URL: PG_URL } : {}) }),
  { sqliteFile: join(dataDir, 'zapgate.db'), collectProcessMetrics: false, sessions: offlineSessions(), ...(PG ? { pgSchema } : {}) },
);
const agent = new Agent({ connections: 1 });
try {
  const account = await gateway.accounts.create('bench');
  const url = await gateway.listen();
  const created = await request(`${url}/instances`, { method: 'POST', headers: { 'client-token': account.clientToken, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }), dispatcher: agent });
  const inst = (await created.body.json()) as { instanceId: string; instanceToken: string };
  const id = inst.instanceId;
  const chats = gateway.store.chats;
  const chatOf = (i: number): string => `55119${String(i).padStart(8, '0')}`;
  const base = 1_700_000_000_000;
  const body = 'a message of ordinary length, as most chat messages are: some forty to eighty characters.';

  // Messages, round-robin over the chats, in batches of 10,000 (one transaction each).
  const t0 = performance.now();
  let batch: ChatMessageRow[] = [];
  for (let n = 0; n < MESSAGES; n++) {
    const c = n % CHATS;
    batch.push({ instance_id: id, chat_id: chatOf(c), message_id: `3EB0${n.toString(16).padStart(16, '0')}`, from_me: n % 3 === 0 ? 1 : 0, sender: n % 3 === 0 ? null : chatOf(c), at: base + n * 1000, type: 'text', body, media_id: null, status: n % 3 === 0 ? 'READ' : 'RECEIVED' });
    if (batch.length === 10_000) {
      await chats.importMessages(batch);
      batch = [];
    }
  }
  if (batch.length) await chats.importMessages(batch);
  const fillMs = performance.now() - t0;
  // Each chat's newest message through the engine's write path (creates the chat row).
  const t1 = performance.now();
  const writes: Promise<void>[] = [];
  for (let c = 0; c < CHATS; c++) {
    const n = MESSAGES + c;
    writes.push(chats.record({ kind: 'message', message: { instance_id: id, chat_id: chatOf(c), message_id: `3EB1${n.toString(16).padStart(16, '0')}`, from_me: 0, sender: chatOf(c), at: base + n * 1000, type: 'text', body, media_id: null, status: 'RECEIVED' }, chat: { jid: `${chatOf(c)}@s.whatsapp.net`, isGroup: false, name: `Contact ${c}` }, countsUnread: true }));
  }
  await Promise.all(writes);
  const chatsMs = performance.now() - t1;
  // Planner statistics as autovacuum would have them after a bulk load (PostgreSQL only).
  if (PG) await sql`analyze`.execute(gateway.store.database.db);

  // Page through every chat over HTTP (a fresh connection: the first one idled out during the fill).
  const lister = new Agent({ connections: 1 });
  const prefix = `${url}/instances/${id}/token/${inst.instanceToken}`;
  const times: number[] = [];
  let listed = 0;
  for (let page = 1; ; page++) {
    const s = performance.now();
    const r = await request(`${prefix}/chats?page=${page}&pageSize=${PAGE_SIZE}`, { headers: { 'client-token': account.clientToken }, dispatcher: lister });
    const rows = (await r.body.json()) as unknown[];
    times.push(performance.now() - s);
    if (r.statusCode !== 200) throw new Error(`page ${page}: ${r.statusCode}`);
    listed += rows.length;
    if (rows.length < PAGE_SIZE) break;
  }
  await lister.close();
  times.sort((a, b) => a - b);
  const pct = (p: number): string => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);

  let bytes: number;
  let what: string;
  if (PG) {
    const r = await sql<{ b: string | number }>`select pg_total_relation_size('chat_messages') + pg_total_relation_size('chats') as b`.execute(gateway.store.database.db);
    bytes = Number(r.rows[0]?.b ?? 0);
    what = 'chat_messages + chats, tables and indexes';
  } else {
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(gateway.store.database.db);
    bytes = readdirSync(dataDir).filter((f) => f.startsWith('zapgate.db')).reduce((t, f) => t + statSync(join(dataDir, f)).size, 0);
    what = 'the whole database file';
  }
  const total = MESSAGES + CHATS;
  console.log(`store: ${PG ? 'PostgreSQL' : 'SQLite'}; ${CHATS} chats, ${total} messages`);
  console.log(`fill: ${total} messages in ${(fillMs / 1000).toFixed(1)} s (multi-row batches) + ${CHATS} newest through record() in ${(chatsMs / 1000).toFixed(1)} s`);
  console.log(`GET /chats pageSize=${PAGE_SIZE}: ${times.length} pages, ${listed} chats; per page p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${times[times.length - 1]!.toFixed(2)} ms`);
  console.log(`size on disk (${what}): ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${(bytes / total).toFixed(0)} bytes per message`);
} finally {
  await agent.close();
  if (PG) await sql`drop schema if exists ${sql.id(pgSchema)} cascade`.execute(gateway.store.database.db).catch(() => undefined);
  await gateway.close();
  rmSync(dataDir, { recursive: true, force: true });
}
