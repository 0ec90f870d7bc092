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
import { waitFor, within } from '../helpers/wait.js';

const SHUTDOWN_TIMEOUT_MS = 1_500;
/**
 * The exit must come at the bound: a drain left to hang would never end, and a supervisor would
 * have to kill it. 10x the bound (the figure is the bound plus some 100 ms) leaves a loaded machine
 * room and still tells the two apart.
 */
const EXIT_BY_MS = 10 * SHUTDOWN_TIMEOUT_MS;

test('SIGTERM: a drain held up past ZAPGATE_SHUTDOWN_TIMEOUT_MS ends in an exit with code 1 that says so; an unhindered one exits 0', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'zapgate-shutdown-'));
  const dir = (name: string): string => {
    mkdirSync(join(root, name), { mode: 0o700 });
    return join(root, name);
  };
  try {
    const held = await spawnGateway({ dataDir: dir('a'), env: { ZAPGATE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) } });
    const client = connect(held.port, '127.0.0.1');
    let answer = '';
    client.setEncoding('utf8').on('data', (d: string) => (answer += d));
    client.on('error', () => undefined);
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    // `Expect: 100-continue`: the server answers "100 Continue" once it has read the headers, so
    // the test knows the request is under way (its body still to come) before it sends SIGTERM.
    client.write('POST /instances HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n');
    await waitFor('the gateway to take the request (100 Continue)', () => answer.startsWith('HTTP/1.1 100 Continue'));
    client.write('{"na');
    const t0 = Date.now();
    held.child.kill('SIGTERM');
    const code = await within('the held gateway to exit', held.exited);
    const tookMs = Date.now() - t0;
    client.destroy();
    t.diagnostic(`the held drain ended in an exit ${tookMs} ms after SIGTERM (bound ${SHUTDOWN_TIMEOUT_MS} ms)`);
    assert.equal(code, 1, `exited at the bound (${tookMs} ms): ${held.stdout().slice(-2000)}`);
    // Never before the bound; and at it, not when a supervisor would have had to kill it.
    assert.ok(tookMs >= SHUTDOWN_TIMEOUT_MS - 100, `exited ${tookMs} ms after SIGTERM, before its ${SHUTDOWN_TIMEOUT_MS} ms bound`);
    assert.ok(tookMs < EXIT_BY_MS, `exited ${tookMs} ms after SIGTERM: a bound of ${SHUTDOWN_TIMEOUT_MS} ms was not kept`);
    assert.match(held.stdout(), /shutdown took longer than ZAPGATE_SHUTDOWN_TIMEOUT_MS/);

    const calm = await spawnGateway({ dataDir: dir('b'), env: { ZAPGATE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) } });
    calm.child.kill('SIGTERM');
    assert.equal(await within('the calm gateway to exit', calm.exited), 0, 'a drain within the bound exits cleanly');
    assert.doesNotMatch(calm.stdout(), /shutdown took longer/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
