// The data dir holds Signal keys, credentials and webhook secrets: under a permissive umask (022) the
// gateway keeps it 0700 and the database with its -wal and -shm files 0600, and tightens a data dir
// and database left readable by an earlier version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';

const TOKEN = randomBytes(20).toString('hex');

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
}

async function writeSomething(gw: GatewayProcess): Promise<void> {
  const res = await fetch(`${gw.url}/instances`, {
    method: 'POST',
    headers: { 'client-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'modes' }),
  });
  await res.arrayBuffer();
  assert.equal(res.status, 201);
}

function assertPrivate(dataDir: string): void {
  assert.equal(mode(dataDir), '0700', 'data dir');
  for (const name of ['zapgate.db', 'zapgate.db-wal', 'zapgate.db-shm', 'zapgate.lock']) {
    const path = join(dataDir, name);
    assert.ok(existsSync(path), `${name} exists`);
    assert.equal(mode(path), '0600', name);
  }
  assert.equal(mode(join(dataDir, 'media')), '0700', 'media dir');
}

test('under umask 022 the data dir is 0700 and the database, -wal and -shm files 0600', async () => {
  const previous = process.umask(0o022); // the child inherits it
  const parent = mkdtempSync(join(tmpdir(), 'zapgate-modes-'));
  const dataDir = join(parent, 'data'); // created by the gateway
  let gw: GatewayProcess | undefined;
  try {
    gw = await spawnGateway({ dataDir, cwd: parent, env: { ZAPGATE_CLIENT_TOKEN: TOKEN } });
    await writeSomething(gw);
    assertPrivate(dataDir);
  } finally {
    await gw?.stop();
    process.umask(previous);
    rmSync(parent, { recursive: true, force: true });
  }
});

test('a data dir and database left readable by an earlier version are made private at start', async () => {
  const previous = process.umask(0o022);
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-modes-'));
  let gw: GatewayProcess | undefined;
  try {
    gw = await spawnGateway({ dataDir, env: { ZAPGATE_CLIENT_TOKEN: TOKEN } });
    await writeSomething(gw);
    await gw.stop();
    // What an older version left: a world-readable directory and files.
    chmodSync(dataDir, 0o755);
    for (const name of ['zapgate.db', 'zapgate.db-wal', 'zapgate.db-shm']) {
      const path = join(dataDir, name);
      if (!existsSync(path)) writeFileSync(path, '');
      chmodSync(path, 0o644);
    }
    gw = await spawnGateway({ dataDir, env: { ZAPGATE_CLIENT_TOKEN: TOKEN } });
    await writeSomething(gw);
    assertPrivate(dataDir);
  } finally {
    await gw?.stop();
    process.umask(previous);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
