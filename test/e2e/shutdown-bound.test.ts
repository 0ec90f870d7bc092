// A shutdown (SIGTERM) is bounded by ZAPGATE_SHUTDOWN_TIMEOUT_MS: a gateway whose drain cannot
// finish — here a client that started a request and never sends the rest of its body, which the
// HTTP server's close waits for — exits anyway at the bound, with code 1 and an error line saying
// why, so a supervisor waiting for the process is never held past it (docs/cluster.md, "Rolling
// deploys"). Without such a request the same shutdown exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway } from '../helpers/process-gateway.js';

test('SIGTERM: a drain held up past ZAPGATE_SHUTDOWN_TIMEOUT_MS ends in an exit with code 1 that says so; an unhindered one exits 0', async () => {
  const root = mkdtempSync(join(tmpdir(), 'zapgate-shutdown-'));
  const dir = (name: string): string => {
    mkdirSync(join(root, name), { mode: 0o700 });
    return join(root, name);
  };
  try {
    const held = await spawnGateway({ dataDir: dir('a'), env: { ZAPGATE_SHUTDOWN_TIMEOUT_MS: '1500' } });
    const client = connect(held.port, '127.0.0.1');
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    client.write('POST /instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"na');
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    held.child.kill('SIGTERM');
    const code = await held.exited;
    const tookMs = Date.now() - t0;
    client.destroy();
    assert.equal(code, 1, `exited at the bound (${tookMs} ms): ${held.stdout().slice(-2000)}`);
    assert.ok(tookMs >= 1_400 && tookMs < 10_000, `after about 1.5 s (${tookMs} ms)`);
    assert.match(held.stdout(), /shutdown took longer than ZAPGATE_SHUTDOWN_TIMEOUT_MS/);

    const calm = await spawnGateway({ dataDir: dir('b'), env: { ZAPGATE_SHUTDOWN_TIMEOUT_MS: '1500' } });
    calm.child.kill('SIGTERM');
    assert.equal(await calm.exited, 0, 'a drain within the bound exits cleanly');
    assert.doesNotMatch(calm.stdout(), /shutdown took longer/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
