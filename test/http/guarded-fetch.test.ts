// Address guard against real loopback receivers: refused targets never see a request, allowed ones do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { request } from 'undici';
import {
  AddressRefusedError,
  ResponseTooLargeError,
  TooManyRedirectsError,
  createAddressGuard,
  type AddressGuard,
  type AddressGuardOptions,
  type ResolvedAddress,
} from '../../src/net/address-guard.js';
import { mintTestCertificates } from '../../simnet/src/media/certs.js';
import { guardedFetch } from '../../src/net/guarded-fetch.js';
import { isLoopback, loopbackOnlyConnections } from '../helpers/loopback-only.js';

// Safety net: these tests may only ever dial loopback (the spy fails the file otherwise).
const { dialed, violations, installed } = loopbackOnlyConnections();

// ---------------------------------------------------------------------------------------------
// Loopback receivers

interface Receiver {
  port: number;
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

async function listen(server: http.Server, host: string): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function receiver(host: string, handler: Handler = (_req, res) => res.end('hello')): Promise<Receiver> {
  const server = http.createServer();
  const r = await listen(server, host);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      r.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  return r;
}

/** Resolves from a fixed table; never asks real DNS. */
function stubResolve(table: Record<string, string[]>) {
  return async (host: string): Promise<ResolvedAddress[]> => {
    const addrs = table[host];
    if (addrs === undefined) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addrs.map((address) => ({ address, family: net.isIP(address) }));
  };
}

const guards: AddressGuard[] = [];
function guardWith(options: Partial<AddressGuardOptions>): AddressGuard {
  const guard = createAddressGuard({ allowHosts: [], allowHttp: true, resolve: stubResolve({}), ...options });
  guards.push(guard);
  return guard;
}
after(async () => {
  await Promise.all(guards.map((g) => g.close()));
});

async function refused(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof AddressRefusedError, `expected AddressRefusedError, got ${String(err)}`);
    assert.match(err.reason, reason);
    return true;
  });
}

async function canListen(host: string): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, host, () => probe.close(() => resolve(true)));
  });
}

// ---------------------------------------------------------------------------------------------

describe('the safety net itself', () => {
  test('is installed and stops a non-loopback dial before it happens', () => {
    assert.ok(installed(), 'the loopback-only spy is the live Socket#connect');
    // 192.0.2.1 is TEST-NET-1; the assertion above guarantees the spy throws before any dial.
    assert.throws(() => net.connect({ host: '192.0.2.1', port: 9 }), /non-loopback 192\.0\.2\.1:9/);
    assert.deepEqual(violations.splice(0), ['192.0.2.1:9']);
  });
});

describe('loopback targets are refused without a request reaching them', () => {
  let v4: Receiver;
  before(async () => {
    v4 = await receiver('127.0.0.1');
  });
  after(() => v4.close());

  test('http://127.0.0.1:<port>/', async () => {
    await refused(guardedFetch(guardWith({}), `http://127.0.0.1:${v4.port}/`), /^127\.0\.0\.1 is a loopback address$/);
    assert.equal(v4.requests.length, 0);
  });

  test('http://2130706433:<port>/', async () => {
    await refused(guardedFetch(guardWith({}), `http://2130706433:${v4.port}/`), /loopback/);
    assert.equal(v4.requests.length, 0);
  });

  test('http://[::ffff:127.0.0.1]:<port>/', async () => {
    await refused(guardedFetch(guardWith({}), `http://[::ffff:127.0.0.1]:${v4.port}/`), /IPv4-mapped address embedding a loopback/);
    assert.equal(v4.requests.length, 0);
  });

  test('http://localhost:<port>/ through the real system resolver', async (t) => {
    // Only where /etc/hosts answers for localhost, so the lookup itself stays on this machine.
    let hosts = '';
    try {
      hosts = readFileSync('/etc/hosts', 'utf8');
    } catch {
      // no hosts file: skipped below
    }
    if (!/^\s*(127\.0\.0\.1|::1)\s.*\blocalhost\b/m.test(hosts)) {
      t.skip('localhost is not in /etc/hosts');
      return;
    }
    const guard = createAddressGuard({ allowHosts: [], allowHttp: true });
    guards.push(guard);
    await refused(guardedFetch(guard, `http://localhost:${v4.port}/`), /^host "localhost" resolves to a loopback address/);
    assert.equal(v4.requests.length, 0);
  });

  test('a hostname that resolves to loopback (stub resolver)', async () => {
    const guard = guardWith({ resolve: stubResolve({ 'loop.test': ['127.0.0.1'] }) });
    await refused(guardedFetch(guard, `http://loop.test:${v4.port}/`), /^host "loop\.test" resolves to a loopback address \(127\.0\.0\.1\)$/);
    assert.equal(v4.requests.length, 0);
  });

  test('http://[::1]:<port>/', async (t) => {
    if (!(await canListen('::1'))) {
      t.skip('::1 is not available');
      return;
    }
    const v6 = await receiver('::1');
    try {
      await refused(guardedFetch(guardWith({}), `http://[::1]:${v6.port}/`), /^::1 is a loopback address$/);
      assert.equal(v6.requests.length, 0);
    } finally {
      await v6.close();
    }
  });

  test('http is refused outright unless allowHttp', async () => {
    const guard = guardWith({ allowHttp: false, allowHosts: ['127.0.0.1'] });
    await refused(guardedFetch(guard, `http://127.0.0.1:${v4.port}/`), /only https/);
    assert.equal(v4.requests.length, 0);
  });

  test('no socket was even opened for any of the refusals above', () => {
    assert.equal(dialed.filter((d) => d.endsWith(`:${v4.port}`)).length, 0);
  });
});

describe('the agent checks the address it connects to', () => {
  test('DNS rebinding: public at check time, loopback at connect time → refused at connect', async () => {
    const target = await receiver('127.0.0.1');
    let lookups = 0;
    const guard = guardWith({
      // First answer passes checkUrl; the connector resolves again and gets loopback.
      resolve: async () => [{ address: lookups++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
    });
    try {
      await refused(guardedFetch(guard, `http://rebind.test:${target.port}/`), /resolves to a loopback address \(127\.0\.0\.1\)/);
      assert.equal(lookups, 2);
      assert.equal(target.requests.length, 0);
      assert.equal(dialed.filter((d) => d.endsWith(`:${target.port}`)).length, 0);
    } finally {
      await target.close();
    }
  });

  test('using the dispatcher directly (the webhook path) refuses before dialing', async () => {
    const before = dialed.length;
    const guard = guardWith({ resolve: stubResolve({ 'private.test': ['10.0.0.1'] }) });
    await refused(request('http://private.test:8080/', { dispatcher: guard.dispatcher() }), /private address \(10\.0\.0\.1\)/);
    await refused(request('http://169.254.169.254/latest/meta-data/', { dispatcher: guard.dispatcher() }), /cloud metadata/);
    assert.equal(dialed.length, before);
  });

  test('an allow-listed hostname is dialled at its checked address, falling back across addresses', async (t) => {
    const target = await receiver('127.0.0.1');
    // ::1 first with nothing listening on that port: refused by the kernel, then 127.0.0.1 answers.
    const addrs = (await canListen('::1')) ? ['::1', '127.0.0.1'] : ['127.0.0.1'];
    if (addrs.length === 1) t.diagnostic('::1 unavailable; fallback not exercised');
    const guard = guardWith({ allowHosts: ['receiver.test'], resolve: stubResolve({ 'receiver.test': addrs }) });
    try {
      const res = await request(`http://receiver.test:${target.port}/hook`, { method: 'POST', body: '{}', dispatcher: guard.dispatcher() });
      assert.equal(res.statusCode, 200);
      assert.equal(await res.body.text(), 'hello');
      assert.equal(target.requests[0]?.headers.host, `receiver.test:${target.port}`);
    } finally {
      await target.close();
    }
  });
});

describe('allow-listed loopback receivers', () => {
  test('an allow-listed target receives the request, method, headers and body intact', async () => {
    const target = await receiver('127.0.0.1', (_req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end('received');
    });
    try {
      const res = await guardedFetch(guardWith({ allowHosts: ['127.0.0.1'] }), `http://127.0.0.1:${target.port}/hook?x=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': 'msg_1' },
        body: '{"a":1}',
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.toString(), 'received');
      assert.equal(res.headers['content-type'], 'text/plain');
      assert.equal(res.url.href, `http://127.0.0.1:${target.port}/hook?x=1`);
      assert.equal(target.requests.length, 1);
      assert.deepEqual(
        { ...target.requests[0], headers: undefined },
        { method: 'POST', url: '/hook?x=1', headers: undefined, body: '{"a":1}' },
      );
      assert.equal(target.requests[0]?.headers['webhook-id'], 'msg_1');
    } finally {
      await target.close();
    }
  });

  test('a redirect from an allow-listed server to a non-allow-listed loopback port is refused; B sees nothing', async (t) => {
    if (!(await canListen('127.0.0.2'))) {
      t.skip('127.0.0.2 is not a local address here');
      return;
    }
    const b = await receiver('127.0.0.1');
    const a = await receiver('127.0.0.2', (_req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `http://127.0.0.1:${b.port}/`);
      res.end();
    });
    try {
      const guard = guardWith({ allowHosts: ['127.0.0.2'] });
      await refused(guardedFetch(guard, `http://127.0.0.2:${a.port}/start`), /^redirect refused: 127\.0\.0\.1 is a loopback address$/);
      assert.equal(a.requests.length, 1);
      assert.equal(b.requests.length, 0);
      assert.equal(dialed.filter((d) => d.endsWith(`:${b.port}`)).length, 0, 'B was never even dialled');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('a redirect to a hostname resolving to metadata is refused', async () => {
    const a = await receiver('127.0.0.1', (_req, res) => {
      res.statusCode = 307;
      res.setHeader('location', 'http://metadata.test/latest/meta-data/');
      res.end();
    });
    try {
      const guard = guardWith({ allowHosts: ['127.0.0.1'], resolve: stubResolve({ 'metadata.test': ['169.254.169.254'] }) });
      await refused(guardedFetch(guard, `http://127.0.0.1:${a.port}/`), /^redirect refused: host "metadata\.test" resolves to a cloud metadata address/);
    } finally {
      await a.close();
    }
  });

  test('allowed redirects are followed: relative Location, 303 turns POST into GET, credentials stay same-origin', async () => {
    const a = await receiver('127.0.0.1', (req, res) => {
      if (req.url === '/start') {
        res.statusCode = 303;
        res.setHeader('location', '/final');
      } else res.setHeader('x-final', 'yes');
      res.end(req.url === '/final' ? 'done' : '');
    });
    try {
      const res = await guardedFetch(guardWith({ allowHosts: ['127.0.0.0/8'] }), `http://127.0.0.1:${a.port}/start`, {
        method: 'POST',
        headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
        body: '{"x":1}',
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.toString(), 'done');
      assert.equal(res.url.pathname, '/final');
      assert.deepEqual(
        a.requests.map((r) => [r.method, r.url, r.body, r.headers.authorization, r.headers['content-type']]),
        [
          ['POST', '/start', '{"x":1}', 'Bearer t', 'application/json'],
          ['GET', '/final', '', 'Bearer t', undefined],
        ],
      );
    } finally {
      await a.close();
    }
  });

  test('more than 5 redirects → TooManyRedirectsError after exactly 6 requests', async () => {
    const a = await receiver('127.0.0.1', (req, res) => {
      res.statusCode = 302;
      res.setHeader('location', `/hop${Number((req.url ?? '').replace(/\D/g, '') || 0) + 1}`);
      res.end();
    });
    try {
      await assert.rejects(guardedFetch(guardWith({ allowHosts: ['127.0.0.1'] }), `http://127.0.0.1:${a.port}/hop0`), TooManyRedirectsError);
      assert.equal(a.requests.length, 6);
    } finally {
      await a.close();
    }
  });
});

describe('response size cap', () => {
  const chunk = Buffer.alloc(64 * 1024, 0x61);

  test('a streamed (chunked) body larger than maxBytes is cut off', async () => {
    let finished = false;
    let aborted: Promise<void> = Promise.resolve();
    const target = await receiver('127.0.0.1', (_req, res) => {
      // 256 MiB with no Content-Length, far more than loopback socket buffers hold: the cap must
      // be enforced while reading, and the client must hang up instead of draining the rest.
      aborted = new Promise((resolve) => res.once('close', () => resolve()));
      let sent = 0;
      const pump = (): void => {
        while (sent < 4096) {
          sent++;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        finished = true;
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    });
    try {
      const guard = guardWith({ allowHosts: ['127.0.0.1'] });
      await assert.rejects(guardedFetch(guard, `http://127.0.0.1:${target.port}/big`, { maxBytes: 100 * 1024 }), (err: unknown) => {
        assert.ok(err instanceof ResponseTooLargeError);
        assert.equal(err.maxBytes, 100 * 1024);
        assert.match(err.reason, /more than the limit of 102400 bytes/);
        return true;
      });
      await aborted;
      assert.equal(finished, false, 'the server could send everything: the client kept reading');
    } finally {
      await target.close();
    }
  });

  test('a declared Content-Length over the cap is refused before reading', async () => {
    const target = await receiver('127.0.0.1', (_req, res) => {
      res.setHeader('content-length', String(10 * 1024 * 1024));
      res.on('error', () => undefined);
      res.write(chunk);
    });
    try {
      await assert.rejects(
        guardedFetch(guardWith({ allowHosts: ['127.0.0.1'] }), `http://127.0.0.1:${target.port}/`, { maxBytes: 1024 * 1024 }),
        /response is 10485760 bytes, more than the limit of 1048576/,
      );
    } finally {
      await target.close();
    }
  });

  test('a body of exactly maxBytes is accepted', async () => {
    const target = await receiver('127.0.0.1', (_req, res) => res.end(chunk));
    try {
      const res = await guardedFetch(guardWith({ allowHosts: ['127.0.0.1'] }), `http://127.0.0.1:${target.port}/`, { maxBytes: chunk.length });
      assert.equal(res.body.length, chunk.length);
    } finally {
      await target.close();
    }
  });
});

describe('timeouts', () => {
  test('a receiver that never finishes the body is abandoned after timeoutMs', async (t) => {
    // It never finishes: only the fetch's own deadline can end this, and the error says so.
    const target = await receiver('127.0.0.1', (_req, res) => {
      res.on('error', () => undefined);
      res.write('partial');
    });
    try {
      const started = performance.now();
      await assert.rejects(
        guardedFetch(guardWith({ allowHosts: ['127.0.0.1'] }), `http://127.0.0.1:${target.port}/`, { timeoutMs: 200 }),
        (err: unknown) => err instanceof Error && /timeout|abort/i.test(`${err.name} ${err.message}`),
      );
      t.diagnostic(`abandoned after ${(performance.now() - started).toFixed(0)} ms (timeoutMs 200)`);
    } finally {
      await target.close();
    }
  });
});

describe('https', () => {
  // Minted in-process (no openssl command): a CA and a certificate for receiver.test only.
  const pem = mintTestCertificates({ caName: 'guard test CA', serverName: 'receiver.test', ips: [], dnsNames: ['receiver.test'], days: 1 });

  test('TLS goes to the checked IP but verifies and sends SNI for the hostname', async () => {
    const server = https.createServer({ key: pem.keyPem, cert: pem.certPem });
    const target = await listen(server, '127.0.0.1');
    const servernames: string[] = [];
    server.on('secureConnection', (s: { servername?: string | false }) => servernames.push(String(s.servername)));
    server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('secure'));
    try {
      const guard = guardWith({
        allowHttp: false,
        allowHosts: ['receiver.test', '127.0.0.1'],
        resolve: stubResolve({ 'receiver.test': ['127.0.0.1'] }),
        connect: { ca: pem.caPem },
      });
      const res = await guardedFetch(guard, `https://receiver.test:${target.port}/`);
      assert.equal(res.body.toString(), 'secure');
      assert.deepEqual(servernames, ['receiver.test']);
      // The certificate does not name 127.0.0.1: verification is on, not bypassed by dialling an IP.
      await assert.rejects(guardedFetch(guard, `https://127.0.0.1:${target.port}/`), /altnames|ERR_TLS_CERT_ALTNAME_INVALID/);
    } finally {
      await target.close();
    }
  });

  test('an https URL resolving to loopback is refused like http', async () => {
    const guard = guardWith({ allowHttp: false, resolve: stubResolve({ 'receiver.test': ['127.0.0.1'] }) });
    await refused(guardedFetch(guard, 'https://receiver.test:1/'), /resolves to a loopback address/);
  });
});

describe('the safety net afterwards', () => {
  test('every connection these tests opened went to loopback', () => {
    assert.deepEqual(violations, []);
    assert.ok(dialed.length > 0, 'the allowed cases did dial (the net saw them)');
    assert.deepEqual(dialed.filter((d) => !isLoopback(d.slice(0, d.lastIndexOf(':')))), []);
  });
});
