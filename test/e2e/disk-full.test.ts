// Disk full: on an 8 MiB tmpfs data dir filled to the last byte, sends answer 507 with the contract's
// error body, /readyz turns 503 "disk full", the log says "disk full" once for the whole episode, and
// once space is freed the gateway recovers by itself (readiness, sends) with nothing accepted lost.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';
import { settle } from '../helpers/wait.js';

const TOKEN = randomBytes(20).toString('hex');
const MAX_SENDS = 1_000;

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function call(gw: GatewayProcess, method: string, path: string, body?: unknown): Promise<Reply> {
  const res = await fetch(gw.url + path, {
    method,
    headers: { 'client-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Writes zeros into `file` until the filesystem refuses (bounded by the tmpfs size). */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(16 * 1024);
  let written = 0;
  try {
    for (let i = 0; i < 1_000; i++) written += writeSync(fd, chunk);
    throw new Error('the filesystem never filled up');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // The last few blocks: smaller writes until not a byte fits.
  const fd2 = openSync(file, 'a');
  try {
    for (let i = 0; i < 10_000; i++) written += writeSync(fd2, Buffer.alloc(512));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd2);
  }
  return written;
}

test('disk full: 507, readiness 503 "disk full", one log line, recovery once space is freed', async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('needs root to mount a tmpfs');
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-diskfull-'));
  try {
    // 8 MiB: since the account and chats tables were added, on 2 MiB the space the filler took (and
    // gave back) no longer held one more send, and the test could not see the recovery.
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dataDir], { stdio: 'pipe' });
  } catch (err) {
    rmdirSync(dataDir);
    t.skip(`cannot mount a tmpfs here: ${(err as Error).message.split('\n')[0]}`);
    return;
  }
  let gw: GatewayProcess | undefined;
  try {
    gw = await spawnGateway({
      dataDir,
      cwd: tmpdir(),
      env: { ZAPGATE_CLIENT_TOKEN: TOKEN, ZAPGATE_RATE_LIMIT: '0', ZAPGATE_QUEUE_MAX_DISCONNECTED: '0', ZAPGATE_LOG_LEVEL: 'info' },
    });
    const created = await call(gw, 'POST', '/instances', { name: 'full' });
    assert.equal(created.status, 201);
    const prefix = `/instances/${String(created.body.instanceId)}/token/${String(created.body.instanceToken)}`;
    const send = (i: number): Promise<Reply> => call(gw as GatewayProcess, 'POST', `${prefix}/send-text`, { phone: '5511999990000', message: `${i} ${'x'.repeat(4_000)}` });

    // Accepted before the disk fills: these must survive the episode.
    const accepted: string[] = [];
    for (let i = 0; i < 50; i++) {
      const r = await send(i);
      assert.equal(r.status, 200, `send ${i} before the disk is full`);
      accepted.push(String(r.body.zaapId));
    }
    const filler = join(dataDir, 'filler');
    fill(filler);
    let refused: Reply | null = null;
    for (let i = 0; i < MAX_SENDS && !refused; i++) {
      const r = await send(i);
      if (r.status === 200) accepted.push(String(r.body.zaapId));
      else refused = r;
    }
    assert.ok(refused, `a send was refused within ${MAX_SENDS} sends (${accepted.length} accepted)`);
    assert.equal(refused.status, 507, `507 expected: ${JSON.stringify(refused)}`);
    assert.equal(refused.body.error, 'Insufficient Storage');
    assert.match(String(refused.body.message), /^the disk is full: /);

    const ready = await call(gw, 'GET', '/readyz');
    assert.equal(ready.status, 503, 'not ready while the disk is full');
    assert.equal(ready.body.reason, 'disk full');
    // More failing writes make no more log lines.
    for (let i = 0; i < 20; i++) assert.equal((await send(10_000 + i)).status, 507, 'still 507 while full');

    // Space comes back: readiness recovers by itself (its probe write succeeds), then sends do.
    rmSync(filler);
    assert.equal((await call(gw, 'GET', '/readyz')).status, 503, 'freed space alone is not a successful write yet');
    const readyAgain = await settle(async () => (await call(gw as GatewayProcess, 'GET', '/readyz')).status, (s) => s === 200, { pollMs: 200 });
    assert.equal(readyAgain, 200, 'ready again once space was freed');
    const after = await send(20_000);
    assert.equal(after.status, 200, `sends work again: ${JSON.stringify(after)}\n${gw.stdout().split('\n').slice(-8).join('\n')}`);
    accepted.push(String(after.body.zaapId));

    // The recovery line is written when the probe's write succeeds, which is also when readiness
    // flips; the pipe from the child may hand it over a moment after the 200s above.
    await settle(() => (gw as GatewayProcess).stdout(), (out) => /disk space is available again/.test(out));
    const lines = gw.stdout().split('\n').filter((l) => l.startsWith('{'));
    const full = lines.filter((l) => /disk full/i.test(l));
    assert.equal(full.length, 1, `"disk full" logged once per episode, got ${full.length}:\n${full.slice(0, 5).join('\n')}`);
    assert.equal(lines.filter((l) => /cannot rollback/.test(l)).length, 0, 'no "cannot rollback" noise');
    assert.ok(lines.some((l) => /disk space is available again/.test(l)), 'the recovery is logged');
    // Nothing else complains per failed write or per readiness poll.
    const complaints = lines.filter((l) => /"level":(40|50)/.test(l) && !/disk full|disk space is available again/i.test(l));
    assert.deepEqual(complaints, [], 'no other warnings or errors');

    // Nothing accepted was lost.
    await gw.stop();
    const db = new Database(join(dataDir, 'zapgate.db'), { readonly: true });
    try {
      const stored = new Set((db.prepare('select zaap_id from messages').all() as { zaap_id: string }[]).map((r) => r.zaap_id));
      const missing = accepted.filter((z) => !stored.has(z));
      assert.deepEqual(missing, [], `every accepted message is stored (${accepted.length} accepted)`);
    } finally {
      db.close();
    }
  } finally {
    await gw?.kill9();
    execFileSync('umount', [dataDir], { stdio: 'pipe' });
    rmdirSync(dataDir);
  }
});
