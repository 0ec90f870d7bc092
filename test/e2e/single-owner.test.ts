// One owner per data: a second gateway on the same SQLite data dir, or on the same PostgreSQL
// database and schema, refuses to start with a one-line message while the first keeps serving; the
// lock dies with its process, so after kill -9 a new gateway starts at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { PG_URL } from '../helpers/databases.js';
import { settle, within } from '../helpers/wait.js';

const TOKEN = randomBytes(20).toString('hex');

async function createInstance(gw: GatewayProcess, name: string): Promise<number> {
  const res = await fetch(`${gw.url}/instances`, {
    method: 'POST',
    headers: { 'client-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** Starts a second gateway on the same data and expects it to exit non-zero with `pattern` on stderr. */
async function expectRefused(dataDir: string, env: Record<string, string>, pattern: RegExp): Promise<void> {
  const second = await spawnGateway({ dataDir, env, waitReady: false });
  const exit = await within('the second gateway to exit', second.exited).catch(() => 'timeout' as const);
  if (exit === 'timeout') await second.kill9();
  assert.notEqual(exit, 'timeout', `the second gateway should have exited; stderr: ${second.stderr()}`);
  assert.notEqual(exit, 0, 'the second gateway exits non-zero');
  const lines = second.stderr().trim().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got:\n${second.stderr()}`);
  assert.match(lines[0] ?? '', pattern);
}

async function ownerScenario(dataDir: string, env: Record<string, string>, refused: RegExp, meanwhile?: (first: GatewayProcess) => Promise<void>): Promise<void> {
  let first: GatewayProcess | undefined;
  let third: GatewayProcess | undefined;
  try {
    first = await spawnGateway({ dataDir, env });
    assert.equal(await createInstance(first, 'first'), 201);

    await expectRefused(dataDir, env, refused);
    // The first one is untouched: still ready, still writing.
    const ready = await fetch(`${first.url}/readyz`);
    assert.equal(ready.status, 200, 'the first gateway is still ready');
    assert.equal(await createInstance(first, 'still-first'), 201);
    await meanwhile?.(first);

    // kill -9 leaves the lock file (and a pid file) behind; neither blocks the next start.
    await first.kill9();
    third = await spawnGateway({ dataDir, env });
    assert.equal(await createInstance(third, 'after-kill'), 201);
  } finally {
    await first?.kill9();
    await third?.stop();
  }
}

test('a second gateway on one SQLite data dir refuses to start; after kill -9 a new one starts', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-owner-'));
  try {
    await ownerScenario(dataDir, { ZAPGATE_CLIENT_TOKEN: TOKEN }, /^zapgate: another zapgate is already running on the data dir .* \(pid \d+\); stop it first/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a second gateway on one PostgreSQL database and schema refuses to start; another schema is free', async (t) => {
  const admin = new pg.Client({ connectionString: PG_URL });
  try {
    await admin.connect();
  } catch (err) {
    t.skip(`PostgreSQL not reachable at ${PG_URL}: ${(err as Error).message}`);
    return;
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const other = `t_${randomBytes(6).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-owner-pg-'));
  const otherDir = mkdtempSync(join(tmpdir(), 'zapgate-owner-pg-'));
  const urlFor = (s: string): string => {
    const u = new URL(PG_URL);
    u.searchParams.set('options', `-c search_path=${s}`);
    return u.toString();
  };
  let neighbour: GatewayProcess | undefined;
  try {
    await admin.query(`create schema ${schema}`);
    await admin.query(`create schema ${other}`);
    // A gateway on another schema of the same database is no owner of this one (tests run in parallel).
    neighbour = await spawnGateway({ dataDir: otherDir, env: { ZAPGATE_CLIENT_TOKEN: TOKEN, ZAPGATE_DATABASE_URL: urlFor(other) } });
    // Separate data dirs: the PostgreSQL lock alone must refuse the second node.
    const env = { ZAPGATE_CLIENT_TOKEN: TOKEN, ZAPGATE_DATABASE_URL: urlFor(schema) };
    await ownerScenario(
      dataDir,
      env,
      new RegExp(`^zapgate: another zapgate is already running on this PostgreSQL database \\(database \\w+, schema ${schema}, held by zapgate pid \\d+`),
      async (first) => {
        // The lock's connection dies (a database restart would do the same): not ready until the
        // lock is held again, which happens by itself.
        const killed = await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [`zapgate pid ${first.child.pid}`]);
        assert.equal(killed.rowCount, 1, 'the first gateway holds one lock connection');
        const seen: number[] = [];
        await settle(
          async () => {
            const r = await fetch(`${first.url}/readyz`);
            const body = (await r.json()) as { reason?: string };
            if (r.status === 503) assert.equal(body.reason, 'database owner lock lost');
            if (seen.at(-1) !== r.status) seen.push(r.status);
            return seen;
          },
          (s) => s.includes(503) && s.at(-1) === 200,
        );
        assert.ok(seen.includes(503), `not ready while the lock was lost (readiness went ${seen.join(' → ')})`);
        assert.equal(seen.at(-1), 200, `ready again once the lock is held again (readiness went ${seen.join(' → ')})`);
        await expectRefused(dataDir, env, /already running on this PostgreSQL database/);
        // A cluster node (same database, cluster mode) does not share it with a lone gateway either.
        await expectRefused(dataDir, { ...env, ZAPGATE_CLUSTER_SECRET: randomBytes(24).toString('hex'), ZAPGATE_NODE_ID: 'n1' }, /a zapgate not in cluster mode is running on this PostgreSQL database/);
      },
    );
    assert.equal((await fetch(`${neighbour.url}/readyz`)).status, 200, 'the gateway on the other schema kept running');
  } finally {
    await neighbour?.stop();
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.query(`drop schema if exists ${other} cascade`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(otherDir, { recursive: true, force: true });
  }
});
