// API keys (docs/api-keys.md): every route of the OpenAPI document declares a scope, and a key of
// every other scope is refused on it while a key of that scope gets through; an instance-limited key
// reaches no other instance by any path; a key outside its address ranges gets 403; a revoked,
// expired or rotated-out key gets 401 at once; a key's own rate limit; the secret is never listed;
// GET /keys/me tells every credential, an instance-limited key too, what it may do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const SCOPES = ['read', 'send', 'manage', 'admin'] as const;
type Scope = (typeof SCOPES)[number];
const ROUTE_SCOPES = new Set<string>([...SCOPES, 'any', 'public']);

interface Operation {
  method: string;
  path: string;
  operationId: string;
  scope: string | undefined;
}

async function operations(gw: TestGateway): Promise<Operation[]> {
  const doc = (await gw.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { operationId: string; 'x-zapgate-scope'?: string }>> };
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) out.push({ method: method.toUpperCase(), path, operationId: op.operationId, scope: op['x-zapgate-scope'] });
  }
  return out;
}

/** A concrete URL for an OpenAPI path: the instance's id and `instanceToken`, a plausible value elsewhere. */
function urlOf(path: string, inst: TestInstance, instanceToken = inst.instanceToken): string {
  return path
    .replace('{instanceId}', inst.instanceId)
    .replace('{instanceToken}', instanceToken)
    .replace(/\{phone\}/g, '5511999990000')
    .replace(/\{extension\}/g, 'pdf')
    .replace(/\{[A-Za-z]+\}/g, 'x1');
}

/** One request with an `Authorization: Bearer` key and no Client-Token; a stream is cut once its status is known. */
async function call(gw: TestGateway, method: string, url: string, key: string, body?: unknown): Promise<{ status: number; code: string | undefined }> {
  const abort = new AbortController();
  const res = await fetch(gw.url + url, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: abort.signal,
  });
  let code: string | undefined;
  if (String(res.headers.get('content-type')).startsWith('text/event-stream')) abort.abort();
  else code = ((await res.json().catch(() => ({}))) as { code?: string }).code;
  return { status: res.status, code };
}

async function createKey(gw: TestGateway, body: Record<string, unknown>, token = gw.clientToken): Promise<{ id: string; key: string }> {
  const r = await gw.request('POST', '/keys', { body: { name: 'k', ...body }, token });
  assert.equal(r.status, 201, r.text);
  return { id: String(r.json.id), key: String(r.json.key) };
}

const BODY_FOR: Record<string, unknown> = {};

test('every route declares a scope, and no narrower key gets through', async (t) => {
  const gw = await startGateway();
  t.after(() => gw.close());
  const inst = await gw.createInstance('walk');
  const keys = {} as Record<Scope, string>;
  for (const s of SCOPES) keys[s] = (await createKey(gw, { name: s, scopes: [s] })).key;

  const ops = await operations(gw);
  assert.ok(ops.length > 150, `the document lists ${ops.length} operations`);
  const undeclared = ops.filter((o) => !ROUTE_SCOPES.has(String(o.scope))).map((o) => `${o.method} ${o.path} (${o.operationId})`);
  assert.deepEqual(undeclared, [], 'routes without a declared x-zapgate-scope');

  const leaks: string[] = [];
  const refusals: string[] = [];
  let walked = 0;
  for (const op of ops) {
    if (op.scope === 'public') continue;
    const instanceRoute = op.path.includes('{instanceToken}');
    for (const s of SCOPES) {
      const allowed = s === 'admin' || s === op.scope || op.scope === 'any';
      // Allowed: through the scope check, then stopped without side effects by a wrong instanceToken
      // (instance routes) or by an empty body (account routes); refused: the scope check answers first.
      const url = urlOf(op.path, inst, allowed && instanceRoute ? 'WRONG0TOKEN' : inst.instanceToken);
      const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : (BODY_FOR[op.operationId] ?? { bogus: true });
      const r = await call(gw, op.method, url, keys[s], allowed && !instanceRoute && op.method === 'DELETE' ? undefined : body);
      walked++;
      if (!allowed && !(r.status === 403 && r.code === 'KEY_SCOPE_MISSING')) leaks.push(`${s} key on ${op.method} ${op.path} (needs ${op.scope}): ${r.status} ${r.code}`);
      if (allowed && (r.status === 403 || (r.status === 401 && r.code !== 'INVALID_INSTANCE_TOKEN'))) refusals.push(`${s} key on ${op.method} ${op.path} (needs ${op.scope}): ${r.status} ${r.code}`);
    }
  }
  assert.deepEqual(leaks, [], 'a narrower key got through');
  assert.deepEqual(refusals, [], 'a key with the scope was refused');
  assert.ok(walked > 600, `${walked} requests`);
  // The walk changed nothing: the instance and its token still work.
  assert.equal((await gw.request('GET', `${inst.prefix}/status`)).status, 200);
});

test('an instance-limited key reaches its instance and no other, by any path', async (t) => {
  const gw = await startGateway();
  t.after(() => gw.close());
  const a = await gw.createInstance('a');
  const b = await gw.createInstance('b');
  const { key } = await createKey(gw, { scopes: ['admin'], instanceIds: [a.instanceId] });
  assert.equal((await call(gw, 'GET', `${a.prefix}/status`, key)).status, 200, 'its own instance');
  const ops = await operations(gw);
  const seen: string[] = [];
  for (const op of ops) {
    // `any`: what the key itself may do (GET /keys/me), asserted below.
    if (op.scope === 'public' || op.scope === 'any') continue;
    const r = await call(gw, op.method, urlOf(op.path, b), key, op.method === 'GET' || op.method === 'DELETE' ? undefined : {});
    if (!(r.status === 403 && r.code === 'KEY_INSTANCE_REFUSED')) seen.push(`${op.method} ${op.path}: ${r.status} ${r.code}`);
  }
  assert.deepEqual(seen, [], 'every route refuses the other instance (and account-wide routes refuse the key)');
  // Nor with the other instance's id under its own token, or its own id with the other's token.
  assert.equal((await call(gw, 'GET', `/instances/${b.instanceId}/token/${a.instanceToken}/status`, key)).code, 'KEY_INSTANCE_REFUSED');
  assert.equal((await call(gw, 'GET', `/instances/${a.instanceId}/token/${b.instanceToken}/status`, key)).code, 'INVALID_INSTANCE_TOKEN');
  // Creating a key limited to another account's instance is refused.
  const other = await gw.createAccount('other');
  const foreign = await gw.createInstance('theirs', other.clientToken);
  const r = await gw.request('POST', '/keys', { body: { name: 'x', scopes: ['read'], instanceIds: [foreign.instanceId] } });
  expectError(r, 400, 'Invalid request', /instanceIds/);
});

test('address ranges, expiry, revocation, rotation and the key\'s own rate', async (t) => {
  // Expiry and the rotation overlap are on the gateway's clock: the test moves it past them.
  const clock = new VirtualClock();
  const gw = await startGateway({ clock });
  t.after(() => gw.close());
  const inst = await gw.createInstance('probe');
  const status = `${inst.prefix}/status`;

  const outside = await createKey(gw, { scopes: ['read'], cidrs: ['10.0.0.0/8', '2001:db8::/32'] });
  const inside = await createKey(gw, { scopes: ['read'], cidrs: ['127.0.0.0/8'] });
  const r1 = await call(gw, 'GET', status, outside.key);
  assert.deepEqual(r1, { status: 403, code: 'KEY_ADDRESS_REFUSED' }, 'a key used outside its ranges');
  assert.equal((await call(gw, 'GET', status, inside.key)).status, 200, 'a key used inside its ranges');

  // The key also works as the Client-Token header (Z-API clients can only set that one).
  assert.equal((await gw.request('GET', status, { token: inside.key })).status, 200);

  const expiring = await createKey(gw, { scopes: ['read'], expiresAt: clock.now() + 60_000 });
  assert.equal((await call(gw, 'GET', status, expiring.key)).status, 200, 'before its expiry');
  await clock.advance(60_000);
  assert.deepEqual(await call(gw, 'GET', status, expiring.key), { status: 401, code: 'INVALID_CLIENT_TOKEN' }, 'expired: 401 at once');

  const revoked = await createKey(gw, { scopes: ['read'] });
  assert.equal((await call(gw, 'GET', status, revoked.key)).status, 200, 'used, so cached');
  assert.equal((await gw.request('DELETE', `/keys/${revoked.id}`)).status, 200);
  assert.deepEqual(await call(gw, 'GET', status, revoked.key), { status: 401, code: 'INVALID_CLIENT_TOKEN' }, 'revoked: 401 at once');

  const rotating = await createKey(gw, { scopes: ['read'] });
  const rot = await gw.request('POST', `/keys/${rotating.id}/rotate`, { body: { overlapSeconds: 60 } });
  assert.equal(rot.status, 200, rot.text);
  const fresh = String((rot.json.created as { key: string }).key);
  assert.equal((await call(gw, 'GET', status, rotating.key)).status, 200, 'the old key works during the overlap');
  assert.equal((await call(gw, 'GET', status, fresh)).status, 200, 'the new key works');
  await clock.advance(60_000);
  assert.equal((await call(gw, 'GET', status, rotating.key)).status, 401, 'the old key stops after the overlap');
  assert.equal((await call(gw, 'GET', status, fresh)).status, 200, 'the new key still works');

  const slow = await createKey(gw, { scopes: ['read'], rateLimit: 1 });
  const statuses: number[] = [];
  let last: { status: number; code: string | undefined } | undefined;
  for (let i = 0; i < 4; i++) statuses.push((last = await call(gw, 'GET', status, slow.key)).status);
  assert.deepEqual(statuses.slice(0, 2), [200, 200], 'a burst of twice the rate');
  assert.deepEqual(last, { status: 429, code: 'KEY_RATE_LIMITED' });
  assert.equal((await gw.request('GET', status)).status, 200, 'the Client-Token is not held by the key\'s limit');

  // Listed, never with the secret.
  const list = await gw.request('GET', '/keys');
  assert.equal(list.status, 200);
  assert.ok(Array.isArray(list.body) && (list.body as unknown[]).length === 7);
  for (const k of [outside, inside, expiring, revoked, rotating, slow]) assert.ok(!list.text.includes(k.key), 'no secret in the listing');
  // A non-admin key cannot make keys.
  assert.deepEqual(await call(gw, 'POST', '/keys', inside.key, { name: 'x', scopes: ['admin'] }), { status: 403, code: 'KEY_SCOPE_MISSING' });
  // Unknown keys: 401 like a wrong Client-Token.
  assert.deepEqual(await call(gw, 'GET', status, 'zk_nonsense'), { status: 401, code: 'INVALID_CLIENT_TOKEN' });
});

test('GET /keys/me tells each credential what it may do, an instance-limited key too; a revoked key gets 401', async (t) => {
  const gw = await startGateway();
  t.after(() => gw.close());
  const inst = await gw.createInstance('mine');
  const me = async (key: string) => {
    const res = await fetch(`${gw.url}/keys/me`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const reader = await createKey(gw, { name: 'support tool', scopes: ['read', 'send'] });
  assert.deepEqual(await me(reader.key), { status: 200, body: { kind: 'api-key', id: reader.id, name: 'support tool', scopes: ['read', 'send'], instanceIds: null, expiresAt: null } });
  const limited = await createKey(gw, { name: 'one number', scopes: ['manage'], instanceIds: [inst.instanceId] });
  const l = await me(limited.key);
  assert.equal(l.status, 200, 'an instance-limited key may ask what it may do');
  assert.deepEqual([l.body.scopes, l.body.instanceIds], [['manage'], [inst.instanceId]]);
  const token = await gw.request('GET', '/keys/me');
  assert.deepEqual(token.json, { kind: 'client-token', id: null, name: null, scopes: ['admin'], instanceIds: null, expiresAt: null });
  assert.equal((await gw.request('DELETE', `/keys/${reader.id}`)).status, 200);
  assert.equal((await me(reader.key)).status, 401);
  assert.equal((await me('zk_notakeyatall')).status, 401);
});
