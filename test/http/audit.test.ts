// The audit trail (docs/api-keys.md): each change below (instances, keys, tokens, webhooks, sinks,
// proxy, logouts, campaigns started and stopped, the CLI's account changes) makes exactly one entry, with its actor,
// address, request id and target, secrets redacted; reads make none; `zapgate audit verify` passes
// on the untouched chain and names the entry edited directly in the database.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { startGateway } from '../helpers/gateway.js';
import { REPO_ROOT, cliEnv } from '../helpers/process-gateway.js';

const run = promisify(execFile);

async function verify(dataDir: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin/zapgate.js'), 'audit', 'verify'], { cwd: dataDir, env: cliEnv({ ZAPGATE_DATA_DIR: dataDir }), timeout: 60_000 });
    return { code: 0, out: stdout };
  } catch (err) {
    const e = err as { code?: number; stdout?: string };
    return { code: e.code ?? -1, out: e.stdout ?? '' };
  }
}

test('each change makes one audit entry; audit verify detects a row edited in the database', async (t) => {
  const gw = await startGateway();
  t.after(() => gw.close());
  const inst = await gw.createInstance('audited');
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await gw.request(method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  const key = await ok('POST', '/keys', { name: 'ops', scopes: ['manage', 'read'] });
  const keyId = String(key.json.id);
  const managed = String(key.json.key);
  await ok('PUT', `${inst.prefix}/update-name`, { value: 'audited-2' }, managed);
  await ok('PUT', `${inst.prefix}/update-webhook-received`, { value: 'https://example.com/hook' });
  await ok('PUT', `${inst.prefix}/update-proxy`, { value: 'http://user:hunter2@hooks.example.com:8080' });
  await ok('PUT', `${inst.prefix}/update-call-reject-auto`, { value: true });
  await ok('POST', `${inst.prefix}/webhook-secret/rotate`);
  await ok('GET', `${inst.prefix}/disconnect`);
  // Reads record nothing.
  await ok('GET', `${inst.prefix}/status`);
  await ok('GET', '/keys');
  const rotated = await ok('POST', `${inst.prefix}/rotate-token`);
  const newPrefix = `/instances/${inst.instanceId}/token/${String(rotated.json.instanceToken ?? rotated.json.value)}`;
  await ok('POST', `/keys/${keyId}/rotate`, { overlapSeconds: 0 });
  const extra = await ok('POST', '/keys', { name: 'temp', scopes: ['read'] });
  await ok('DELETE', `/keys/${String(extra.json.id)}`);
  await ok('DELETE', newPrefix);

  const r = await ok('GET', '/audit?limit=100');
  const entries = (r.body as { seq: number; action: string; actor: string; address: string; requestId: string; target: string; before: unknown; after: unknown }[]).reverse();
  assert.deepEqual(
    entries.map((e) => e.action),
    ['instance_create', 'keys_create', 'instance_update-name', 'webhooks_update-webhook-received', 'instance_update-proxy', 'instance_update-call-reject-auto', 'webhooks_secret-rotate', 'instance_disconnect', 'instance_rotate-token', 'keys_rotate', 'keys_create', 'keys_revoke', 'instance_delete'],
    'one entry per change, in order, none for reads',
  );
  const rename = entries[2]!;
  assert.equal(rename.actor, `key:${keyId}`, 'the key that made it');
  assert.equal(rename.target, inst.instanceId);
  assert.match(rename.address, /^(::ffff:)?127\.0\.0\.1$/);
  assert.match(rename.requestId, /^[0-9a-f-]{36}$/);
  assert.equal((rename.before as { name: string }).name, 'audited');
  assert.equal((rename.after as { value: string }).value, 'audited-2');
  assert.equal(entries[0]!.actor, 'client-token');
  assert.equal(entries[0]!.target, inst.instanceId, 'a creation names what it created');
  assert.ok(!r.text.includes('hunter2'), 'a proxy password is redacted');
  assert.ok(!r.text.includes(inst.instanceToken), 'instance tokens are redacted');
  assert.ok(!r.text.includes(managed), 'keys are never recorded');
  // Filters and paging.
  const renames = await ok('GET', '/audit?action=instance_update-name');
  assert.equal((renames.body as unknown[]).length, 1);
  const page = await ok('GET', `/audit?limit=2&before=${entries[5]!.seq}`);
  assert.deepEqual((page.body as { seq: number }[]).map((e) => e.seq), [entries[4]!.seq, entries[3]!.seq]);
  // Another account sees none of them.
  const other = await gw.createAccount('other');
  assert.deepEqual((await ok('GET', '/audit', undefined, other.clientToken)).body, []);

  const intact = await verify(gw.dataDir);
  assert.equal(intact.code, 0, intact.out);
  assert.match(intact.out, /intact: 13 entries/);

  // Someone with database access rewrites history: the renamed instance was "never renamed".
  const db = new Database(join(gw.dataDir, 'zapgate.db'));
  db.prepare("update audit_log set after = ? where action = 'instance_update-name'").run(JSON.stringify({ value: 'audited' }));
  db.close();
  const edited = await verify(gw.dataDir);
  assert.equal(edited.code, 1, edited.out);
  assert.match(edited.out, new RegExp(`entry ${rename.seq}: its content does not match its hash`));

  // A deleted row is seen too.
  const db2 = new Database(join(gw.dataDir, 'zapgate.db'));
  db2.prepare("delete from audit_log where action = 'keys_revoke'").run();
  db2.close();
  assert.match((await verify(gw.dataDir)).out, /are missing/);
});

async function cli(dataDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(REPO_ROOT, 'bin/zapgate.js'), ...args], { cwd: dataDir, env: cliEnv({ ZAPGATE_DATA_DIR: dataDir }), timeout: 60_000 });
  return stdout;
}

test('campaigns started and stopped, sink settings and the CLI\'s account changes each make one entry; a refused change none', async (t) => {
  const gw = await startGateway();
  t.after(() => gw.close());
  const inst = await gw.createInstance('campaigner');
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = await gw.request(method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.text}`);
    return r;
  };
  const sendKey = await ok('POST', '/keys', { name: 'campaign service', scopes: ['send'] });
  const sender = String(sendKey.json.key);
  const created = await ok('POST', '/campaigns', { name: 'spring', message: 'Hi {{name}}', instanceIds: [inst.instanceId], recipientsCsv: 'phone,name\n5511999990001,Ana\n' }, sender);
  const campaignId = String(created.json.id);
  await ok('POST', `/campaigns/${campaignId}/start`, undefined, sender);
  // Starting it again is refused (409): a refused change is no entry.
  assert.equal((await gw.request('POST', `/campaigns/${campaignId}/start`, { token: sender })).status, 409);
  await ok('POST', `/campaigns/${campaignId}/pause`, undefined, sender);
  await ok('POST', `/campaigns/${campaignId}/resume`, undefined, sender);
  await ok('POST', `/campaigns/${campaignId}/cancel`, undefined, sender);
  await ok('PUT', '/update-sink-rabbitmq', { value: 'amqps://acct:acctpass@hooks.example.com/vh', exchange: 'events' });
  await ok('PUT', `${inst.prefix}/update-sink-nats`, { value: 'nats://inst:instpass@hooks.example.com:4222' });
  // Reads: none.
  await ok('GET', '/sinks');
  await ok('GET', `/campaigns/${campaignId}`);

  const entries = ((await ok('GET', '/audit?limit=100')).body as { action: string; actor: string; target: string; after: unknown }[]).reverse();
  assert.deepEqual(
    entries.map((e) => e.action),
    ['instance_create', 'keys_create', 'campaigns_start', 'campaigns_pause', 'campaigns_resume', 'campaigns_cancel', 'sinks_account-update-rabbitmq', 'sinks_instance-update-nats'],
    'one entry per change; none for the campaign draft, the refused start or the reads',
  );
  const start = entries[2]!;
  assert.equal(start.actor, `key:${String(sendKey.json.id)}`, 'the send key that started it');
  assert.equal(start.target, campaignId, 'the campaign is the target');
  assert.equal(entries[7]!.target, inst.instanceId);
  const all = JSON.stringify(entries);
  assert.ok(!all.includes('acctpass') && !all.includes('instpass'), 'broker passwords are not recorded');

  // The command line's account changes, made while the gateway runs: actor `cli`.
  const made = JSON.parse(await cli(gw.dataDir, 'accounts', 'create', 'reseller')) as { id: string; clientToken: string };
  const rotated = JSON.parse(await cli(gw.dataDir, 'accounts', 'rotate', made.id)) as { clientToken: string };
  const own = ((await ok('GET', '/audit', undefined, rotated.clientToken)).body as { action: string; actor: string; target: string; address: string | null }[]).reverse();
  assert.deepEqual(own.map((e) => [e.action, e.actor, e.target]), [['accounts_create', 'cli', made.id], ['accounts_rotate', 'cli', made.id]]);
  assert.equal(own[0]!.address, null, 'no client address for the command line');
  assert.ok(!JSON.stringify(own).includes(rotated.clientToken) && !JSON.stringify(own).includes(made.clientToken), 'Client-Tokens are never recorded');
  await cli(gw.dataDir, 'accounts', 'delete', made.id);
  // The account is gone, and with it anyone who could list its entries: the trail keeps them.
  const db = new Database(join(gw.dataDir, 'zapgate.db'), { readonly: true });
  const rows = db.prepare('select action, actor, target, before from audit_log where account_id = ? order by seq').all(made.id) as { action: string; actor: string; target: string; before: string | null }[];
  db.close();
  assert.deepEqual(rows.map((r) => r.action), ['accounts_create', 'accounts_rotate', 'accounts_delete']);
  assert.deepEqual(JSON.parse(rows[2]!.before ?? 'null'), { name: 'reseller' }, 'what was deleted');
  // `accounts list` is a read: nothing more.
  await cli(gw.dataDir, 'accounts', 'list');
  const intact = await verify(gw.dataDir);
  assert.equal(intact.code, 0, intact.out);
  assert.match(intact.out, /intact: 11 entries/);
});
