// The proxy routes over real HTTP with a scripted engine: a valid URL is stored, answered masked
// (GET /proxy, /me, the update's own answer) and applied by one restart; every bad URL (other
// schemes, no port, a host the address guard refuses) is a 400 naming the field, with nothing
// changed and no restart; Z-API's configure-proxy probes an enabled proxy (loopback only here).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { loopbackOnlyConnections } from '../helpers/loopback-only.js';
import { scriptedSessions, type ScriptedSessions } from '../helpers/scripted-sessions.js';

describe('proxy routes', () => {
  const connections = loopbackOnlyConnections();
  let g: TestGateway;
  let sessions: ScriptedSessions;
  let inst: TestInstance;
  let listener: Server;
  let openPort = 0;

  before(async () => {
    sessions = scriptedSessions();
    // hooks.example.com is public in the fake DNS; loopback is allowed only where a test says so.
    g = await startGateway({ sessions, env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.2' } });
    inst = await g.createInstance('proxied');
    listener = createServer((s) => s.destroy());
    await new Promise<void>((r) => listener.listen(0, '127.0.0.2', r));
    openPort = (listener.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((r) => listener.close(() => r()));
    await g.close();
    assert.deepEqual(connections.violations, [], 'no connection left loopback');
  });

  const restarts = (): number => sessions.calls.filter((c) => c.op === 'restart' && c.instanceId === inst.instanceId).length;
  const getProxy = async () => (await g.request('GET', `${inst.prefix}/proxy`)).json;
  const put = (body: unknown) => g.request('PUT', `${inst.prefix}/update-proxy`, { body });

  test('no proxy at first', async () => {
    assert.deepEqual(await getProxy(), { value: null, enabled: false });
    const me = (await g.request('GET', `${inst.prefix}/me`)).json;
    assert.equal(me.proxyUrl, '', '/me: no proxy');
    assert.equal(me.useProxy, false, '/me: not used');
  });

  test('update-proxy stores the URL, answers it masked everywhere, and restarts the link once', async () => {
    const r = await put({ value: 'socks5://alice:s3cr%40t@hooks.example.com:1080' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { value: true, proxy: 'socks5://****:****@hooks.example.com:1080' });
    assert.equal(restarts(), 1, 'the link restarted to apply it');
    assert.deepEqual(await getProxy(), { value: 'socks5://****:****@hooks.example.com:1080', enabled: true });
    const me = await g.request('GET', `${inst.prefix}/me`);
    assert.equal(me.json.proxyUrl, 'socks5://****:****@hooks.example.com:1080', '/me masked');
    assert.equal(me.json.useProxy, true, '/me: used');
    for (const text of [r.text, me.text, JSON.stringify(await getProxy())]) {
      assert.ok(!text.includes('s3cr') && !text.includes('alice'), `no credential answered: ${text}`);
    }
    const row = await g.gateway.store.instances.findById(inst.instanceId);
    assert.equal(row?.proxy_url, 'socks5://alice:s3cr%40t@hooks.example.com:1080', 'stored with its credentials (the engine needs them)');
    // The same value again changes nothing on the link.
    assert.equal((await put({ value: 'socks5://alice:s3cr%40t@hooks.example.com:1080' })).status, 200);
    assert.equal(restarts(), 1, 'no second restart for the same proxy');
  });

  test('bad URLs → 400 naming the field; nothing changed, no restart', async () => {
    const before = await getProxy();
    const count = restarts();
    const cases: [unknown, RegExp][] = [
      [{ value: 'https://hooks.example.com:443' }, /^value: scheme "https" is not supported/],
      [{ value: 'socks4://hooks.example.com:1080' }, /^value: scheme "socks4" is not supported/],
      [{ value: 'ftp://u:secret@hooks.example.com:21' }, /^value: scheme "ftp"/],
      [{ value: 'socks5://hooks.example.com' }, /^value: the proxy URL needs an explicit port/],
      [{ value: 'http://u:secret@hooks.example.com' }, /^value: the proxy URL needs an explicit port/],
      [{ value: 'http://hooks.example.com:99999' }, /^value: the proxy port must be between 1 and 65535/],
      [{ value: 'http://hooks.example.com:8080/path' }, /^value: expected/],
      [{ value: 'socks5://internal.example.com:1080' }, /^value: proxy host refused by the address guard: host "internal\.example\.com" resolves to a private address/],
      [{ value: 'socks5://metadata.example.com:1080' }, /^value: proxy host refused by the address guard: .*cloud metadata/],
      [{ value: 'socks5://127.0.0.1:1080' }, /^value: proxy host refused by the address guard: 127\.0\.0\.1 is a loopback address/],
      [{ value: 'socks5h://localhost:1080' }, /^value: proxy host refused by the address guard: host "localhost" resolves to a loopback/],
      [{ value: 'http://[::1]:3128' }, /^value: proxy host refused by the address guard/],
      [{ value: 'socks5://nowhere.example.com:1080' }, /^value: proxy host refused by the address guard: host "nowhere\.example\.com" could not be resolved/],
      [{ value: 'socks5://10.1.2.3:1080' }, /^value: proxy host refused by the address guard: 10\.1\.2\.3 is a private address/],
      [{ value: '' }, /^value: /],
      [{ value: 1080 }, /^value: /],
      [{}, /^value: is required/],
    ];
    for (const [body, message] of cases) {
      const r = await put(body);
      expectError(r, 400, 'Invalid request', message);
      assert.ok(!r.text.includes('secret'), `the error repeats no credential: ${r.text}`);
    }
    assert.deepEqual(await getProxy(), before, 'the stored proxy is unchanged');
    assert.equal(restarts(), count, 'no restart');
  });

  test('{"value": null} clears it and restarts the link (direct again)', async () => {
    const count = restarts();
    const r = await put({ value: null });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json, { value: true, proxy: null });
    assert.deepEqual(await getProxy(), { value: null, enabled: false });
    assert.equal(restarts(), count + 1, 'restarted once');
  });

  test('integrator/configure-proxy: Z-API\'s body and answer; enable false stores without using; omitted fields clear', async () => {
    const path = `${inst.prefix}/integrator/configure-proxy`;
    const off = await g.request('PUT', path, { body: { proxyUrl: 'http://bob:pw@hooks.example.com:3128', enable: false } });
    assert.equal(off.status, 200, off.text);
    assert.deepEqual(off.json, { value: true });
    assert.deepEqual(await getProxy(), { value: 'http://****:****@hooks.example.com:3128', enabled: false });
    assert.equal((await g.request('GET', `${inst.prefix}/me`)).json.useProxy, false, '/me: stored but not used');
    // `enable` omitted → false; `proxyUrl` omitted → cleared.
    assert.equal((await g.request('PUT', path, { body: { proxyUrl: 'http://hooks.example.com:3128' } })).status, 200);
    assert.deepEqual(await getProxy(), { value: 'http://hooks.example.com:3128', enabled: false });
    assert.equal((await g.request('PUT', path, { body: { enable: true } })).status, 200);
    assert.deepEqual(await getProxy(), { value: null, enabled: false }, 'no URL: enable has no effect');
    expectError(await g.request('PUT', path, { body: { proxyUrl: 'socks4://hooks.example.com:1080', enable: true } }), 400, 'Invalid request', /^proxyUrl: scheme "socks4"/);
    expectError(await g.request('PUT', path, { body: { proxyUrl: 'socks5://10.0.0.7:1080', enable: false } }), 400, 'Invalid request', /^proxyUrl: proxy host refused/);
  });

  test('configure-proxy with enable: an unreachable proxy → 400 "Proxy is not reachable", a reachable one is used', async () => {
    const path = `${inst.prefix}/integrator/configure-proxy`;
    const closedPort = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.2', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const down = await g.request('PUT', path, { body: { proxyUrl: `socks5://u:secret@127.0.0.2:${closedPort}`, enable: true } });
    expectError(down, 400, 'Invalid request', /^proxyUrl: Proxy is not reachable \(127\.0\.0\.2:\d+: ECONNREFUSED\)/);
    assert.ok(!down.text.includes('secret'), 'no credential in the error');
    assert.deepEqual(await getProxy(), { value: null, enabled: false }, 'nothing stored');
    const up = await g.request('PUT', path, { body: { proxyUrl: `socks5h://u:secret@127.0.0.2:${openPort}`, enable: true } });
    assert.equal(up.status, 200, up.text);
    assert.deepEqual(await getProxy(), { value: `socks5h://****:****@127.0.0.2:${openPort}`, enabled: true });
  });

  test('the routes are in /openapi.json with a description and a body example', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as {
      paths: Record<string, Record<string, { description?: string; requestBody?: { content: Record<string, { example?: unknown; examples?: Record<string, unknown>; schema: { examples?: unknown[] } }> } }>>;
    };
    const base = '/instances/{instanceId}/token/{instanceToken}';
    for (const [path, method, hasBody] of [['/update-proxy', 'put', true], ['/proxy', 'get', false], ['/integrator/configure-proxy', 'put', true]] as const) {
      const op = doc.paths[base + path]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} documented`);
      assert.match(op.description ?? '', /address guard/, `${path}: description`);
      if (hasBody) {
        const media = op.requestBody?.content['application/json'];
        // Several examples (a working one first, then the shape with your own proxy) are a named map.
        assert.ok(media?.example ?? media?.examples ?? media?.schema.examples?.[0], `${path}: a body example`);
      }
    }
  });

  test('the documented example passes the schema (the fake DNS then refuses its made-up host)', async () => {
    const other = await g.createInstance('examples');
    const a = await g.request('PUT', `${other.prefix}/update-proxy`, { body: { value: 'socks5://user:secret@proxy.example.com:1080' } });
    expectError(a, 400, 'Invalid request', /^value: proxy host refused by the address guard: host "proxy\.example\.com" could not be resolved/);
  });
});
