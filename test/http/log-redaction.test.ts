// A token never reaches the logs, wherever a client puts it: an instance path with `TOKEN` in any
// case, a path segment of its own, a query key or value, a header of any name — at trace level,
// for answers of every kind (2xx, 401, 404, 405, 400).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Agent, request } from 'undici';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/main.js';
import { createLogger, redactUrl } from '../../src/logger.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';

test('redactUrl keeps route words and public ids, and nothing else', () => {
  const id = 'A'.repeat(32);
  const tok = 'B1'.repeat(20);
  assert.equal(redactUrl(`/instances/${id}/token/${tok}/send-text`), `/instances/${id}/token/[REDACTED]/send-text`);
  assert.equal(redactUrl(`/instances/${id}/TOKEN/${tok}/status`), `/instances/${id}/[REDACTED]/[REDACTED]/status`);
  assert.equal(redactUrl(`/${tok}/instances`), '/[REDACTED]/instances');
  assert.equal(redactUrl(`/instances?${tok}=1&pageSize=5&x=${tok}`), '/instances?[REDACTED]&pageSize=5&[REDACTED]');
  assert.equal(redactUrl(`/instances?status=${tok}`), '/instances?status=[REDACTED]');
  assert.equal(redactUrl('/instances/my-own-secret-token/y', 'my-own-secret-token'), '/instances/[REDACTED]/y');
  assert.equal(redactUrl('/queue/my-own-secret-token', 'My-Own-Secret-Token'), '/queue/[REDACTED]');
});

test('a trace-level log of requests carrying tokens in unexpected places holds no token', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'zapgate-logred-'));
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString('utf8'));
      cb();
    },
  });
  const config = loadConfig({ ZAPGATE_HOST: '127.0.0.1', ZAPGATE_PORT: '0', ZAPGATE_DATA_DIR: dataDir, ZAPGATE_LOG_LEVEL: 'trace', ZAPGATE_RATE_LIMIT: '0' });
  const gateway = await createGateway(config, {
    sqliteFile: join(dataDir, 'zapgate.db'),
    collectProcessMetrics: false,
    sessions: offlineSessions(),
    logger: createLogger('trace', sink),
  });
  const agent = new Agent({ connections: 4 });
  try {
    const account = await gateway.accounts.create('a');
    // A user-chosen token too (ZAPGATE_CLIENT_TOKEN may be any string of 16+ characters).
    const chosen = await gateway.accounts.create('b', 'lowercase-chosen-token-value');
    const base = await gateway.listen();
    const ct = account.clientToken;
    const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
      const res = await request(base + path, {
        method: method as 'GET',
        headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
      });
      await res.body.text();
      return res.statusCode;
    };
    const created = await request(`${base}/instances`, {
      method: 'POST',
      headers: { 'client-token': ct, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'i' }),
      dispatcher: agent,
    });
    const inst = (await created.body.json()) as { instanceId: string; instanceToken: string };
    const it = inst.instanceToken;
    const secrets = [ct, it, chosen.clientToken];

    const statuses = [
      await call('GET', `/instances/${inst.instanceId}/TOKEN/${it}/status`, { 'client-token': ct }),
      await call('GET', `/instances/${inst.instanceId}/Token/${it.toLowerCase()}/status`, { 'client-token': ct }),
      await call('GET', `/instances/${inst.instanceId}/token/${it}/queue?pageSize=5&${it}=1&t=${ct}`, { 'client-token': ct }),
      await call('GET', `/${ct}`, {}),
      await call('GET', `/instances/${ct}/token/${it}/status`, { 'client-token': ct }),
      await call('GET', `/instances?${ct}`, { 'client-token': ct }),
      await call('GET', `/instances?token=${ct}`, { authorization: `Bearer ${ct}`, 'x-client-token': ct }),
      await call('GET', `/instances/${chosen.clientToken}?pageSize=${chosen.clientToken}`, { 'client-token': chosen.clientToken }),
      await call('GET', `/instances/x/${chosen.clientToken.toUpperCase()}`, { 'client-token': chosen.clientToken }),
      await call('POST', `/instances/${inst.instanceId}/token/${it}/send-text`, { 'client-token': ct }, { phone: it, message: 'x' }),
      await call('DELETE', `/instances/${inst.instanceId}/token/${it}/queue/${ct}`, { 'client-token': ct }),
      await call('GET', `/instances/${inst.instanceId}/token/${it}/send-text`, { 'client-token': ct }),
      // A refused token (the partner routes take `Bearer <Client-Token>`, so this one is not it).
      await call('GET', `/instances?${it}`, { authorization: `Bearer ${it}` }),
    ];
    assert.ok(statuses.some((s) => s === 200) && statuses.some((s) => s === 401) && statuses.some((s) => s === 404), `answers of several kinds: ${statuses.join(',')}`);
    await gateway.close();
    const output = lines.join('');
    assert.ok(output.includes('"url"'), `requests were logged: ${output.slice(0, 500)}`);
    for (const line of output.split('\n').filter((l) => l.includes('"url"'))) {
      assert.ok((line.match(/"reqId"/g) ?? []).length === 1, `a request line carries one reqId key: ${line.slice(0, 300)}`);
    }
    for (const s of secrets) {
      assert.ok(!output.toLowerCase().includes(s.toLowerCase()), `a token (${s.slice(0, 6)}…) appears in the log:\n${output.split('\n').filter((l) => l.toLowerCase().includes(s.toLowerCase())).join('\n')}`);
    }
  } finally {
    await agent.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
