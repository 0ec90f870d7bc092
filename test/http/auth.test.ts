// Authentication over real HTTP: both 401 messages, the contract's check order, tenant isolation,
// token rotation and the per-account rate limit.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const SEND = { phone: '5511999990000', message: 'hello' };

describe('authentication', () => {
  let g: TestGateway;
  let a: TestInstance;

  before(async () => {
    g = await startGateway();
    a = await g.createInstance('a1');
  });
  after(() => g.close());

  test('missing or unknown Client-Token → 401 Invalid Client-Token, on account and instance routes', async () => {
    for (const token of [null, '', 'not-a-token', g.clientToken.toLowerCase()]) {
      expectError(await g.request('GET', '/instances', { token }), 401, 'Unauthorized', 'Invalid Client-Token');
      expectError(await g.request('POST', '/instances', { token, body: { name: 'x' } }), 401, 'Unauthorized', 'Invalid Client-Token');
      expectError(await g.request('POST', `${a.prefix}/send-text`, { token, body: SEND }), 401, 'Unauthorized', 'Invalid Client-Token');
    }
  });

  test('wrong instanceToken of an own instance → 401 Invalid instanceToken', async () => {
    const r = await g.request('GET', `/instances/${a.instanceId}/token/WRONG/status`);
    expectError(r, 401, 'Unauthorized', 'Invalid instanceToken');
  });

  test('check order: Client-Token 401 → instance 404 → instanceToken 401 → body 400', async () => {
    const badBody = { phone: 'x' };
    // Every check fails: the Client-Token is reported first.
    expectError(
      await g.request('POST', `/instances/NOPE/token/WRONG/send-text`, { token: 'bad', body: badBody }),
      401,
      'Unauthorized',
      'Invalid Client-Token',
    );
    // Good Client-Token, unknown instance, wrong token, bad body: 404.
    expectError(await g.request('POST', `/instances/NOPE/token/WRONG/send-text`, { body: badBody }), 404, 'Instance not found');
    // Own instance, wrong token, bad body: 401 on the instanceToken.
    expectError(
      await g.request('POST', `/instances/${a.instanceId}/token/WRONG/send-text`, { body: badBody }),
      401,
      'Unauthorized',
      'Invalid instanceToken',
    );
    // Everything right but the body: 400 naming the field.
    expectError(await g.request('POST', `${a.prefix}/send-text`, { body: badBody }), 400, 'Invalid request', /^message: /);
    // Malformed JSON and a wrong content type are also reported only after authentication.
    expectError(await g.request('POST', `/instances/NOPE/token/WRONG/send-text`, { raw: '{nope' }), 404, 'Instance not found');
    expectError(
      await g.request('POST', `/instances/${a.instanceId}/token/WRONG/send-text`, { raw: 'hi', contentType: 'text/plain' }),
      401,
      'Unauthorized',
      'Invalid instanceToken',
    );
  });

  test("cross-account isolation: B never sees, touches or learns of A's instance", async () => {
    const b = await g.createAccount('b');
    const bInst = await g.createInstance('b1', b.clientToken);
    const probes: [string, string, unknown?][] = [
      ['GET', '/status'],
      ['POST', '/send-text', SEND],
      ['GET', '/queue'],
      ['DELETE', '/queue'],
      ['GET', '/webhook-secret'],
      ['POST', '/rotate-token'],
      ['PUT', '/update-webhook-received', { value: 'https://hooks.example.com/x' }],
      ['DELETE', ''],
    ];
    for (const [method, path, body] of probes) {
      // With A's real instanceToken: 404, never 401 (a 401 would confirm the instance exists).
      expectError(await g.request(method, `${a.prefix}${path}`, { token: b.clientToken, body }), 404, 'Instance not found');
      // With B's own instanceToken: the same 404.
      expectError(
        await g.request(method, `/instances/${a.instanceId}/token/${bInst.instanceToken}${path}`, { token: b.clientToken, body }),
        404,
        'Instance not found',
      );
      // And A cannot reach B's either.
      expectError(await g.request(method, `${bInst.prefix}${path}`, { body }), 404, 'Instance not found');
    }
    const listB = await g.request('GET', '/instances', { token: b.clientToken });
    assert.deepEqual((listB.body as { instanceId: string }[]).map((i) => i.instanceId), [bInst.instanceId]);
    const listA = await g.request('GET', '/instances');
    assert.ok(!(listA.body as { instanceId: string }[]).some((i) => i.instanceId === bInst.instanceId));
    // A's instance is untouched by all of that.
    const status = await g.request('GET', `${a.prefix}/status`);
    assert.equal(status.status, 200);
    assert.equal((await g.request('GET', `${a.prefix}/queue/count`)).json.count, 0);
  });

  test('rotate-token: the new token works and the old one is refused at once', async () => {
    const inst = await g.createInstance('rot');
    const r = await g.request('POST', `${inst.prefix}/rotate-token`);
    assert.equal(r.status, 200);
    const fresh = String(r.json.instanceToken);
    assert.notEqual(fresh, inst.instanceToken);
    assert.match(fresh, /^[0-9A-F]{32,}$/);
    expectError(await g.request('GET', `${inst.prefix}/status`), 401, 'Unauthorized', 'Invalid instanceToken');
    expectError(await g.request('POST', `${inst.prefix}/send-text`, { body: SEND }), 401, 'Unauthorized', 'Invalid instanceToken');
    assert.equal((await g.request('GET', `/instances/${inst.instanceId}/token/${fresh}/status`)).status, 200);
  });

  test('tokens never come back in listings', async () => {
    const list = await g.request('GET', '/instances');
    assert.equal(list.status, 200);
    assert.ok(!list.text.includes(a.instanceToken));
    assert.ok(!list.text.includes(g.clientToken));
    for (const item of list.body as Record<string, unknown>[]) {
      assert.deepEqual(Object.keys(item).sort(), ['instanceId', 'name', 'phone', 'status']);
    }
  });
});

describe('per-account rate limit', () => {
  let g: TestGateway;
  before(async () => {
    g = await startGateway({ env: { ZAPGATE_RATE_LIMIT: '5' } });
  });
  after(() => g.close());

  test('beyond the burst → 429 with Retry-After; other accounts are not affected', async () => {
    const statuses: number[] = [];
    let limited: Awaited<ReturnType<TestGateway['request']>> | undefined;
    // Burst is twice the rate: 10 requests pass, then the bucket is empty.
    for (let i = 0; i < 20; i++) {
      const r = await g.request('GET', '/instances');
      statuses.push(r.status);
      if (r.status === 429) limited ??= r;
    }
    assert.ok(statuses.slice(0, 8).every((s) => s === 200), statuses.join(','));
    assert.ok(limited, `no 429 in ${statuses.join(',')}`);
    expectError(limited, 429, 'Too many requests');
    assert.match(String(limited.headers['retry-after']), /^[1-9][0-9]*$/);
    const other = await g.createAccount('other');
    assert.equal((await g.request('GET', '/instances', { token: other.clientToken })).status, 200);
    // An unknown token is still 401, not 429: authentication comes first.
    expectError(await g.request('GET', '/instances', { token: 'nope' }), 401, 'Unauthorized', 'Invalid Client-Token');
  });
});

describe('an account deleted by another process (the CLI) while this one has it cached', () => {
  test('creating an instance answers 401 Invalid Client-Token and leaves no instance behind', async () => {
    const g = await startGateway();
    try {
      const b = await g.createAccount('doomed');
      // Cached by this server: the token has just worked.
      assert.equal((await g.request('GET', '/instances', { token: b.clientToken })).status, 200);
      // The CLI deletes the row from its own process: this server's cache never hears of it.
      assert.ok(await g.gateway.store.accounts.delete(b.id));
      expectError(await g.request('POST', '/instances', { token: b.clientToken, body: { name: 'x' } }), 401, 'Unauthorized', 'Invalid Client-Token');
      const left = await g.gateway.store.database.db.selectFrom('instances').select('id').where('account_id', '=', b.id).execute();
      assert.deepEqual(left, []);
    } finally {
      await g.close();
    }
  });
});
