// The test suite's own PostgreSQL (scripts/test-postgres.mjs): on a machine with no server on
// 127.0.0.1:5432 and no ZAPGATE_TEST_PG_URL, `npm test` starts a real PostgreSQL from the npm
// package's binaries (as `nobody` when root) instead of failing or skipping the PostgreSQL tests.
// This covers that path on every run, also where a server does answer on 5432 (CI here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { freePort } from '../helpers/process-gateway.js';
import { answers, probeAddress, reachableBy, testPostgres } from '../../scripts/test-postgres.mjs';
import { openDatabase } from '../../src/store/database.js';
import { createStore } from '../../src/store/index.js';
import { AccountsService } from '../../src/services/accounts-service.js';
import { systemClock } from '../../src/clock.js';

test('the probe looks where ZAPGATE_TEST_PG_PROBE says, 127.0.0.1:5432 by default', () => {
  assert.deepEqual(probeAddress({}), { host: '127.0.0.1', port: 5432 });
  assert.deepEqual(probeAddress({ ZAPGATE_TEST_PG_PROBE: '127.0.0.1:1' }), { host: '127.0.0.1', port: 1 });
});

test('a directory under one only its owner may enter (root\'s home, 0700) is out of reach of another user', (t) => {
  const other = { uid: 65534, gid: 65534 }; // nobody
  if (!reachableBy(tmpdir(), other)) return t.skip(`${tmpdir()} itself is out of reach of uid 65534`);
  const home = mkdtempSync(join(tmpdir(), 'zapgate-home-'));
  try {
    mkdirSync(join(home, 'checkout'));
    chmodSync(home, 0o755);
    assert.equal(reachableBy(join(home, 'checkout'), other), true, 'every directory on the way is searchable');
    chmodSync(home, 0o700);
    assert.equal(reachableBy(join(home, 'checkout'), other), false, 'a 0700 directory on the way stops it');
    assert.equal(reachableBy(join(home, 'missing'), other), false);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('ZAPGATE_TEST_PG_URL set: nothing is started, the URL is used as it is', async () => {
  const pg = await testPostgres({ env: { ZAPGATE_TEST_PG_URL: 'postgres://x@127.0.0.1:1/y' } });
  assert.deepEqual(pg.env, {}, 'no override: the tests read the URL they were given');
  await pg.stop();
});

test('nothing answers on the probed port: a real PostgreSQL is started, the store migrates and works on it, and it is gone after stop()', async () => {
  const closed = await freePort();
  assert.equal(await answers({ host: '127.0.0.1', port: closed }), false, 'the probed port is closed');
  const pg = await testPostgres({ env: { ZAPGATE_TEST_PG_PROBE: `127.0.0.1:${closed}` } });
  const url = pg.env.ZAPGATE_TEST_PG_URL;
  let dir = '';
  try {
    assert.match(url ?? '', /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/test$/, `a loopback URL for the test processes: ${url}`);
    const port = Number(new URL(url!).port);
    assert.notEqual(port, 5432, 'a free port of its own, not 5432');
    assert.equal(await answers({ host: '127.0.0.1', port }), true, 'it listens');
    // The gateway's own store on it: migrations, then a write and a read back.
    const database = await openDatabase({ dataDir: '', databaseUrl: url!, pgSchema: 'embedded_check' });
    try {
      const version = await sql<{ version: string }>`select version() as version`.execute(database.db);
      assert.match(version.rows[0]?.version ?? '', /^PostgreSQL \d+/, 'a real PostgreSQL, not a fallback');
      const accounts = new AccountsService(createStore(database), systemClock());
      const created = await accounts.create('on-embedded-postgres');
      assert.deepEqual((await accounts.list()).map((a) => a.id), [created.id], 'what was written is read back');
      const where = await sql<{ dir: string }>`select current_setting('data_directory') as dir`.execute(database.db);
      dir = where.rows[0]?.dir ?? '';
      if (process.getuid?.() === 0) assert.notEqual(statSync(dir).uid, 0, 'run as root, the server runs as an unprivileged user');
    } finally {
      await database.close();
    }
  } finally {
    await pg.stop();
  }
  if (url) assert.equal(await answers({ host: '127.0.0.1', port: Number(new URL(url).port) }), false, 'stopped: the port is closed again');
  if (dir) assert.equal(existsSync(dir), false, 'its temp dir is removed');
});
