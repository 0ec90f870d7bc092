// src/net/proxy.ts: which proxy URLs are accepted and how they are shown, and the ProxyAgent
// against real SOCKS5 and HTTP CONNECT proxies on loopback (test/helpers/proxies.ts): it tunnels,
// presents the credentials, checks the proxy with the address guard, and fails with a reason that
// names the proxy masked, within its deadline.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createAddressGuard } from '../../src/net/address-guard.js';
import { formatProxyUrl, maskProxyUrl, maskStoredProxyUrl, parseProxyUrl, probeProxy, ProxyAgent, ProxyError } from '../../src/net/proxy.js';
import { startHttpConnectProxy, startSocks5Proxy, type TestProxy } from '../helpers/proxies.js';

describe('parseProxyUrl / maskProxyUrl', () => {
  test('accepts http, socks5 and socks5h with an explicit port, credentials optional', () => {
    for (const [text, scheme, host, port] of [
      ['http://proxy.example.com:3128', 'http', 'proxy.example.com', 3128],
      ['socks5://127.0.0.1:1080', 'socks5', '127.0.0.1', 1080],
      ['SOCKS5H://Proxy.Example.COM:1080/', 'socks5h', 'proxy.example.com', 1080],
      ['socks5://[::1]:1080', 'socks5', '::1', 1080],
    ] as const) {
      const r = parseProxyUrl(text);
      assert.ok(r.ok, `${text} should parse: ${JSON.stringify(r)}`);
      assert.equal(r.proxy.scheme, scheme, text);
      assert.equal(r.proxy.host, host, text);
      assert.equal(r.proxy.port, port, text);
    }
    const r = parseProxyUrl('socks5://us%40er:p%3Ass@1.2.3.4:1080');
    assert.ok(r.ok, 'percent-encoded credentials parse');
    assert.equal(r.proxy.username, 'us@er', 'user decoded');
    assert.equal(r.proxy.password, 'p:ss', 'password decoded');
    assert.equal(formatProxyUrl(r.proxy), 'socks5://us%40er:p%3Ass@1.2.3.4:1080', 'stored form round-trips');
    assert.equal(maskProxyUrl(r.proxy), 'socks5://****:****@1.2.3.4:1080', 'masked: neither user nor password shown');
    assert.equal(maskStoredProxyUrl('http://user@[::1]:8080'), 'http://****@[::1]:8080', 'user alone masked, IPv6 bracketed');
    assert.equal(maskStoredProxyUrl('socks5://a:b@host'), '**** (not a valid proxy URL)', 'an invalid stored URL is not echoed');
  });

  test('refuses other schemes, a missing port, paths and bad hosts, never echoing credentials', () => {
    for (const [text, reason] of [
      ['https://proxy.example.com:443', /scheme "https" is not supported/],
      ['socks4://proxy.example.com:1080', /scheme "socks4" is not supported/],
      ['ftp://user:secret@proxy.example.com:21', /scheme "ftp"/],
      ['socks5://user:secret@proxy.example.com', /explicit port/],
      ['http://proxy.example.com', /explicit port/],
      ['http://proxy.example.com:0', /between 1 and 65535/],
      ['http://proxy.example.com:70000', /between 1 and 65535/],
      ['http://proxy.example.com:8080/path', /expected http:\/\//],
      ['http://proxy.example.com:8080?x=1', /expected http:\/\//],
      ['socks5://bad_host!:1080', /expected|not a valid hostname/],
      ['socks5://:pw@host.example:1080', /no user name/],
      ['proxy.example.com:1080', /expected/],
      ['', /expected/],
    ] as const) {
      const r = parseProxyUrl(text);
      assert.ok(!r.ok, `${text} should be refused`);
      assert.match(r.reason, reason, text);
      assert.ok(!r.reason.includes('secret'), `the reason for ${text} repeats no credential: ${r.reason}`);
    }
  });
});

describe('ProxyAgent through real proxies on loopback', () => {
  let target: Server;
  let targetPort = 0;
  let socks: TestProxy;
  let socksAuth: TestProxy;
  let http: TestProxy;
  let blackHole: NetServer;
  const held: Socket[] = [];
  const allowLoopback = createAddressGuard({ allowHosts: ['127.0.0.1'], allowHttp: true });
  const strict = createAddressGuard({ allowHosts: [], allowHttp: false });

  before(async () => {
    target = createServer((req, res) => res.end(`hello ${req.url ?? ''}`));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as AddressInfo).port;
    socks = await startSocks5Proxy();
    socksAuth = await startSocks5Proxy({ auth: { user: 'alice', pass: 's3cret:/@' } });
    http = await startHttpConnectProxy({ auth: { user: 'bob', pass: 'hunter2' } });
    // Accepts and never answers: a proxy that hangs.
    blackHole = createNetServer((s) => held.push(s));
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
  });
  after(async () => {
    for (const s of held) s.destroy();
    await Promise.all([socks.stop(), socksAuth.stop(), http.stop()]);
    await new Promise<void>((r) => target.close(() => r()));
    await new Promise<void>((r) => blackHole.close(() => r()));
  });

  function get(agent: ProxyAgent, path: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: targetPort, path, agent, timeout: 5_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('timeout', () => req.destroy(new Error('test request timed out')));
      req.on('error', reject);
      req.end();
    });
  }

  test('socks5 tunnels to the target; the proxy saw the connection and its host:port', async () => {
    const before = socks.connections;
    const agent = new ProxyAgent(socks.url(), { guard: allowLoopback, timeoutMs: 5_000 });
    assert.equal(await get(agent, '/a'), 'hello /a', 'the answer came through the tunnel');
    assert.equal(socks.connections, before + 1, 'one connection to the proxy');
    assert.equal(socks.targets.at(-1), `127.0.0.1:${targetPort}`, 'relayed to the target');
  });

  test('socks5 with user/pass presents them; a wrong password fails naming the proxy masked', async () => {
    const ok = new ProxyAgent(socksAuth.url({ user: 'alice', pass: 's3cret:/@' }), { guard: allowLoopback, timeoutMs: 5_000 });
    assert.equal(await get(ok, '/b'), 'hello /b', 'authenticated tunnel works');
    assert.equal(socksAuth.users.at(-1), 'alice', 'the proxy got the user name');
    const bad = new ProxyAgent(socksAuth.url({ user: 'alice', pass: 'wrong-password' }), { guard: allowLoopback, timeoutMs: 5_000 });
    const err = await get(bad, '/c').then(() => null, (e: unknown) => e as Error);
    assert.ok(err instanceof ProxyError, `a ProxyError: ${String(err)}`);
    assert.match(err.message, new RegExp(`^proxy socks5://\\*\\*\\*\\*:\\*\\*\\*\\*@127\\.0\\.0\\.1:${socksAuth.port}: `), 'names the proxy masked');
    assert.ok(!err.message.includes('wrong-password'), 'the password is not in the message');
    assert.equal(JSON.stringify(bad), `{"proxy":"socks5://****:****@127.0.0.1:${socksAuth.port}"}`, 'serialised (as a log would) masked');
  });

  test('http CONNECT tunnels with Proxy-Authorization', async () => {
    const before = http.connections;
    const agent = new ProxyAgent(http.url({ user: 'bob', pass: 'hunter2' }), { guard: allowLoopback, timeoutMs: 5_000 });
    assert.equal(await get(agent, '/d'), 'hello /d', 'the answer came through the tunnel');
    assert.equal(http.connections, before + 1, 'one connection to the proxy');
    assert.equal(http.targets.at(-1), `127.0.0.1:${targetPort}`, 'CONNECT to the target');
    assert.equal(http.users.at(-1), 'bob', 'Basic credentials presented');
  });

  test('a proxy the address guard refuses is never dialed', async () => {
    const before = socks.connections;
    const agent = new ProxyAgent(socks.url(), { guard: strict, timeoutMs: 5_000 });
    const err = await get(agent, '/e').then(() => null, (e: unknown) => e as Error);
    assert.ok(err instanceof ProxyError, `a ProxyError: ${String(err)}`);
    assert.match(err.message, /refused by the address guard: 127\.0\.0\.1 is a loopback address/, err.message);
    assert.equal(socks.connections, before, 'the proxy saw nothing');
  });

  test('a proxy that is down or hangs fails within the deadline, with a code the engine retries', async (t) => {
    const down = new ProxyAgent('socks5://127.0.0.1:1', { guard: allowLoopback, timeoutMs: 5_000 });
    const refused = await get(down, '/f').then(() => null, (e: unknown) => e as ProxyError);
    assert.ok(refused instanceof ProxyError, `a ProxyError: ${String(refused)}`);
    assert.match(refused.code, /^E/, `code ${refused.code}`);
    const port = (blackHole.address() as AddressInfo).port;
    const hang = new ProxyAgent(`http://127.0.0.1:${port}`, { guard: allowLoopback, timeoutMs: 300 });
    // The black hole never answers: only the deadline can end this attempt, and it says so.
    const started = performance.now();
    const timedOut = await get(hang, '/g').then(() => null, (e: unknown) => e as ProxyError);
    const took = performance.now() - started;
    assert.ok(timedOut instanceof ProxyError, `a ProxyError: ${String(timedOut)}`);
    assert.match(timedOut.message, /did not open a tunnel within 300 ms/, timedOut.message);
    assert.equal(timedOut.code, 'ETIMEDOUT', 'a timeout');
    t.diagnostic(`failed ${took.toFixed(0)} ms after the request (deadline 300 ms)`);
  });

  test('probeProxy: reachable → null; down or refused → why', async () => {
    const spec = (url: string) => {
      const r = parseProxyUrl(url);
      assert.ok(r.ok, url);
      return r.proxy;
    };
    assert.equal(await probeProxy(spec(socks.url()), allowLoopback, 2_000), null, 'a running proxy is reachable');
    assert.match(String(await probeProxy(spec('socks5://127.0.0.1:1'), allowLoopback, 2_000)), /127\.0\.0\.1:1: ECONNREFUSED/);
    assert.match(String(await probeProxy(spec(socks.url()), strict, 2_000)), /loopback address/);
  });
});
