// Secrets never reach the logs: a full run of the real gateway process at log level trace —
// accounts, instances, token rotation, webhooks, secret rotation, sends, 4xx of every kind and a
// 500 — and then not one Client-Token, instanceToken or whsec_ secret in stdout or stderr.
// Also: the bootstrap banner is printed once on first start without a preset token, never else.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { REPO_ROOT, cliEnv, spawnGateway, type GatewayProcess } from '../helpers/process-gateway.js';

const run = promisify(execFile);
const BANNER = 'zapgate: created the first account';

interface Reply {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

function client(base: string, agent: Agent) {
  return async (method: string, path: string, o: { token?: string; body?: unknown; raw?: string; contentType?: string } = {}): Promise<Reply> => {
    const headers: Record<string, string> = {};
    if (o.token !== undefined) headers['client-token'] = o.token;
    let body: string | undefined;
    if (o.raw !== undefined || o.body !== undefined) {
      body = o.raw ?? JSON.stringify(o.body);
      headers['content-type'] = o.contentType ?? 'application/json';
    }
    const res = await request(base + path, { method: method as 'GET', headers, body, dispatcher: agent });
    const text = await res.body.text();
    let json: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (docs, metrics): `text` is enough.
    }
    return { status: res.statusCode, text, json };
  };
}

/** Runs a `zapgate accounts …` command against the same data directory; returns its JSON output. */
async function cli(dataDir: string, ...args: string[]): Promise<Record<string, unknown>> {
  const env = cliEnv({ ZAPGATE_DATA_DIR: dataDir });
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin/zapgate.js'), ...args], { cwd: dataDir, env, timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('secrets in logs', () => {
  test('a trace-level run logs no Client-Token, instanceToken or webhook secret', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-logs-'));
    const tokenA = randomBytes(20).toString('hex').toUpperCase();
    const agent = new Agent({ connections: 4 });
    const secrets = new Set<string>([tokenA]);
    let gw: GatewayProcess | undefined;
    try {
      gw = await spawnGateway({
        dataDir,
        env: { ZAPGATE_CLIENT_TOKEN: tokenA, ZAPGATE_LOG_LEVEL: 'trace', ZAPGATE_ALLOW_HOSTS: '127.0.0.1', ZAPGATE_RATE_LIMIT: '0' },
      });
      const call = client(gw.url, agent);

      // A second account through the CLI, while the server runs.
      const b = await cli(dataDir, 'accounts', 'create', 'second');
      const tokenB = String(b.clientToken);
      secrets.add(tokenB);
      const doomed = await cli(dataDir, 'accounts', 'create', 'doomed');
      const tokenDoomed = String(doomed.clientToken);
      secrets.add(tokenDoomed);

      const ia = await call('POST', '/instances', { token: tokenA, body: { name: 'a1' } });
      assert.equal(ia.status, 201, ia.text);
      const ib = await call('POST', '/instances/integrator/on-demand', { token: tokenB, body: { name: 'b1' } });
      assert.equal(ib.status, 200, ib.text);
      const idA = String(ia.json.instanceId);
      const oldTokA = String(ia.json.instanceToken);
      const idB = String(ib.json.id);
      const tokB = String(ib.json.token);
      secrets.add(oldTokA).add(tokB);

      // Rotate A's instanceToken; the old one is then presented (and refused).
      const rotated = await call('POST', `/instances/${idA}/token/${oldTokA}/rotate-token`, { token: tokenA });
      assert.equal(rotated.status, 200);
      const tokA = String(rotated.json.instanceToken);
      secrets.add(tokA);
      const pa = `/instances/${idA}/token/${tokA}`;
      const pb = `/instances/${idB}/token/${tokB}`;
      assert.equal((await call('GET', `/instances/${idA}/token/${oldTokA}/status`, { token: tokenA })).status, 401);

      // Webhooks and secret rotation.
      for (const route of ['update-webhook-received', 'update-webhook-delivery', 'update-every-webhooks']) {
        assert.equal((await call('PUT', `${pa}/${route}`, { token: tokenA, body: { value: 'https://127.0.0.1:9/hook' } })).status, 200);
      }
      assert.equal((await call('PUT', `${pa}/update-webhook-received`, { token: tokenA, body: { value: 'https://10.0.0.1/x' } })).status, 400);
      for (const p of [pa, pb]) {
        const s = await call('GET', `${p}/webhook-secret`, { token: p === pa ? tokenA : tokenB });
        secrets.add(String(s.json.value));
      }
      for (let i = 0; i < 2; i++) {
        const r = await call('POST', `${pa}/webhook-secret/rotate`, { token: tokenA });
        assert.equal(r.status, 200);
        secrets.add(String(r.json.value)).add(String(r.json.previous));
      }

      // Sends, queue reads, listings.
      for (let i = 0; i < 5; i++) {
        assert.equal((await call('POST', `${pa}/send-text`, { token: tokenA, body: { phone: '5511999990000', message: `hi ${i}` } })).status, 200);
      }
      assert.equal((await call('POST', `${pb}/send-image`, { token: tokenB, body: { phone: '5511999990000', image: 'https://127.0.0.1:9/a.png' } })).status, 200);
      assert.equal((await call('GET', `${pa}/queue`, { token: tokenA })).status, 200);
      assert.equal((await call('GET', '/instances', { token: tokenA })).status, 200);

      // Errors of every kind, presenting real and fake secrets in headers and paths.
      const fakeToken = randomBytes(20).toString('hex').toUpperCase();
      secrets.add(fakeToken);
      const expectations: [number, Promise<Reply>][] = [
        [401, call('GET', '/instances')],
        [401, call('GET', '/instances', { token: fakeToken })],
        [401, call('GET', `${pa}/status`, { token: fakeToken })],
        [401, call('GET', `/instances/${idA}/token/${fakeToken}/status`, { token: tokenA })],
        [404, call('GET', `${pa}/status`, { token: tokenB })],
        [404, call('GET', `/instances/${idA}/token/${tokB}/status`, { token: tokenB })],
        [400, call('POST', `${pa}/send-text`, { token: tokenA, body: { phone: 'x', message: tokenA } })],
        [400, call('POST', `${pa}/send-text`, { token: tokenA, raw: `{"phone":"${tokA}"` })],
        [400, call('GET', `${pa}/phone-exists/%E0%A4%A`, { token: tokenA })],
        [405, call('GET', `${pa}/send-text`, { token: tokenA })],
        [415, call('POST', `${pa}/send-text`, { token: tokenA, raw: tokenA, contentType: 'text/plain' })],
        [413, call('POST', `${pa}/send-text`, { token: tokenA, body: { phone: '5511999990000', message: tokA.repeat(40_000) } })],
        [409, call('POST', `${pa}/create-group`, { token: tokenA, body: { groupName: 'g', phones: ['5511999990000'] } })],
      ];
      for (const [status, pending] of expectations) {
        const r = await pending;
        assert.equal(r.status, status, r.text.slice(0, 200));
        for (const s of secrets) assert.ok(!r.text.includes(s), `a secret came back in a ${status} body`);
      }

      // A 500: the account is deleted behind the server's back (CLI, other process) while its
      // authentication is still cached, so creating an instance breaks a foreign key.
      assert.equal((await call('GET', '/instances', { token: tokenDoomed })).status, 200);
      await cli(dataDir, 'accounts', 'delete', String(doomed.id));
      const boom = await call('POST', '/instances', { token: tokenDoomed, body: { name: 'orphan' } });
      if (boom.status === 500) {
        assert.deepEqual(boom.json, { error: 'Unable to process request', code: 'INTERNAL_ERROR' });
      } else {
        t.diagnostic(`no 500 provoked (got ${boom.status}): the auth cache was already refreshed`);
      }

      // Instance deletion, then a graceful stop so everything is flushed.
      assert.equal((await call('DELETE', pb, { token: tokenB })).status, 200);
      await gw.stop();
      assert.equal(await gw.exited, 0);

      const output = gw.stdout() + gw.stderr();
      assert.ok(output.length > 2_000, `suspiciously little output at trace level: ${output.length} bytes`);
      assert.match(output, /"level":10|"level":20/, 'trace/debug lines were written');
      assert.match(output, /\[REDACTED\]/, 'instance URLs are logged, redacted');
      if (boom.status === 500) assert.match(output, /"level":50/, 'the 500 was logged');
      assert.ok(!output.includes(BANNER), 'no bootstrap banner with a preset token');
      assert.ok(!output.includes('whsec_'), 'no webhook secret');
      for (const s of secrets) {
        assert.ok(s.length >= 32, `secret too short to be meaningful: ${s.length}`);
        assert.equal(occurrences(output, s), 0, `a secret (${s.slice(0, 6)}…) appears in the logs`);
        // Nor in lower case (hex tokens are case-insensitive to a reader).
        assert.equal(occurrences(output.toLowerCase(), s.toLowerCase()), 0, `a secret (${s.slice(0, 6)}…) appears in the logs`);
      }
    } finally {
      await agent.close();
      await gw?.kill9();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('the bootstrap banner: printed once on first start without a preset token, never on the next', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-banner-'));
    const agent = new Agent({ connections: 2 });
    let gw: GatewayProcess | undefined;
    try {
      gw = await spawnGateway({ dataDir, env: { ZAPGATE_LOG_LEVEL: 'trace' } });
      const call = client(gw.url, agent);
      const first = gw.stdout();
      assert.equal(occurrences(first, BANNER), 1, first.slice(0, 2_000));
      const m = /created the first account[^\n]*\n\s*\n\s+([0-9A-F]{40})\s*\n/.exec(first);
      assert.ok(m?.[1], 'the token is printed on its own line');
      const token = m[1];
      assert.equal((await call('GET', '/instances', { token })).status, 200, 'the printed token works');
      const inst = await call('POST', '/instances', { token, body: { name: 'x' } });
      assert.equal(inst.status, 201);
      await gw.stop();
      const firstRun = gw.stdout() + gw.stderr();
      assert.equal(occurrences(firstRun, token), 1, 'the token appears once: in the banner, never in a log line');
      assert.equal(occurrences(firstRun, String(inst.json.instanceToken)), 0);

      gw = await spawnGateway({ dataDir, env: { ZAPGATE_LOG_LEVEL: 'trace' } });
      assert.equal((await client(gw.url, agent)('GET', '/instances', { token })).status, 200, 'the same account after restart');
      await gw.stop();
      const secondRun = gw.stdout() + gw.stderr();
      assert.equal(occurrences(secondRun, BANNER), 0, 'no banner on the second start');
      assert.equal(occurrences(secondRun, token), 0);
    } finally {
      await agent.close();
      await gw?.kill9();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
