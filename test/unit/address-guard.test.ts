// Address guard policy: which URLs and addresses are refused, decided without opening a connection.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import {
  createAddressGuard,
  parseAllowList,
  type AddressGuardOptions,
  type ResolvedAddress,
  type Resolver,
} from '../../src/net/address-guard.js';

// These are policy tests: not one socket may be opened. Any connect attempt throws and is recorded.
const connectAttempts: unknown[] = [];
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function refuseConnect(...args: unknown[]): never {
  connectAttempts.push(args[0]);
  throw new Error('address-guard unit tests must not open connections');
} as typeof originalConnect;
after(() => {
  net.Socket.prototype.connect = originalConnect;
  assert.deepEqual(connectAttempts, [], 'a unit test tried to open a connection');
});

function family(address: string): number {
  return net.isIP(address.split('%')[0] ?? address);
}

/** A resolver that knows only the names it is given; anything else fails like a missing name. */
function stubResolver(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const addresses = table[host];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: family(address) }));
  };
  return Object.assign(resolve, { calls });
}

function guardWith(options: Partial<AddressGuardOptions> = {}) {
  return createAddressGuard({ allowHosts: [], allowHttp: false, resolve: stubResolver({}), ...options });
}

async function reasonFor(url: string, options: Partial<AddressGuardOptions> = {}): Promise<string> {
  const decision = await guardWith(options).checkUrl(url);
  assert.equal(decision.ok, false, `${url} should be refused`);
  return decision.ok ? '' : decision.reason;
}

describe('IP literals in every spelling are refused', () => {
  const cases: [url: string, reason: RegExp][] = [
    ['https://127.0.0.1/', /^127\.0\.0\.1 is a loopback address$/],
    ['https://127.1/', /loopback address/],
    ['https://2130706433/', /^127\.0\.0\.1 is a loopback address$/],
    ['https://0x7f.1/', /^127\.0\.0\.1 is a loopback address$/],
    ['https://0x7f000001/', /^127\.0\.0\.1 is a loopback address$/],
    ['https://0177.0.0.1/', /^127\.0\.0\.1 is a loopback address$/],
    ['https://[::1]/', /^::1 is a loopback address$/],
    ['https://[::ffff:127.0.0.1]/', /IPv4-mapped address embedding a loopback address \(127\.0\.0\.1\)/],
    ['https://[::ffff:7f00:1]/', /IPv4-mapped address embedding a loopback address/],
    ['https://[::127.0.0.1]/', /deprecated IPv4-compatible address/],
    ['https://[::ffff:0:7f00:1]/', /IPv4-translated address embedding a loopback address/],
    ['https://0.0.0.0/', /^0\.0\.0\.0 is an unspecified address$/],
    ['https://0/', /unspecified address/],
    ['https://[::]/', /unspecified address/],
    ['https://169.254.169.254/', /^169\.254\.169\.254 is a cloud metadata address$/],
    ['https://[fd00:ec2::254]/', /cloud metadata address/],
    ['https://[::ffff:169.254.169.254]/', /IPv4-mapped address embedding a cloud metadata address/],
    ['https://169.254.1.1/', /link-local address/],
    ['https://[fe80::1]/', /link-local address/],
    ['https://10.0.0.1/', /^10\.0\.0\.1 is a private address$/],
    ['https://172.16.0.1/', /private address/],
    ['https://172.31.255.254/', /private address/],
    ['https://192.168.1.1/', /private address/],
    ['https://[fd00::1]/', /private \(unique local\) address/],
    ['https://[fc00::1]/', /private \(unique local\) address/],
    ['https://[fec0::1]/', /site-local address/],
    ['https://100.64.0.1/', /carrier-grade NAT address/],
    ['https://100.127.255.254/', /carrier-grade NAT address/],
    ['https://224.0.0.1/', /multicast address/],
    ['https://[ff02::1]/', /multicast address/],
    ['https://255.255.255.255/', /broadcast address/],
    ['https://240.0.0.1/', /reserved address/],
    ['https://192.0.2.1/', /reserved address/],
    ['https://198.18.0.1/', /reserved address/],
    ['https://[2001:db8::1]/', /reserved address/],
    ['https://[100::1]/', /reserved address/],
    ['https://[4000::1]/', /reserved address/],
    ['https://[2002:7f00:1::]/', /6to4 address embedding a loopback address \(127\.0\.0\.1\)/],
    ['https://[2002:a00:1::1]/', /6to4 address embedding a private address \(10\.0\.0\.1\)/],
    // Teredo: server 65.54.227.120 is public; the client 127.0.0.1 is stored bit-inverted.
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /Teredo address embedding a loopback address \(127\.0\.0\.1\)/],
    ['https://[2001:0:a00:1::1]/', /Teredo address embedding a private address \(10\.0\.0\.1\)/],
    ['https://[64:ff9b::a00:1]/', /NAT64 address embedding a private address \(10\.0\.0\.1\)/],
    ['https://[64:ff9b:1::1]/', /local-use NAT64 address/],
  ];
  for (const [url, reason] of cases) {
    test(url, async () => {
      assert.match(await reasonFor(url), reason);
    });
  }
});

describe('hostnames resolving to a blocked address are refused', () => {
  const blocked = [
    '127.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
    '169.254.169.254',
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    'fe80::1',
    'fe80::1%eth0',
    'fd00::1',
    '100.64.0.1',
  ];
  for (const address of blocked) {
    test(`evil.test → ${address}`, async () => {
      const resolve = stubResolver({ 'evil.test': [address] });
      const reason = await reasonFor('https://evil.test/hook', { resolve });
      assert.match(reason, /^host "evil\.test" resolves to an? .+ address/);
      assert.ok(reason.endsWith(`(${address})`), reason);
      assert.deepEqual(resolve.calls, ['evil.test']);
    });
  }

  test('2130706433 as a name is the same number as an address (the URL parser normalises it)', async () => {
    const resolve = stubResolver({});
    assert.match(await reasonFor('https://2130706433/', { resolve }), /loopback/);
    assert.deepEqual(resolve.calls, [], 'an IP literal must not go to DNS');
  });

  test('one blocked address among public ones is enough to refuse', async () => {
    const resolve = stubResolver({ 'mixed.test': ['93.184.216.34', '2606:2800:220:1::1', '10.1.2.3'] });
    assert.match(await reasonFor('https://mixed.test/', { resolve }), /resolves to a private address \(10\.1\.2\.3\)/);
  });

  test('a name that does not resolve is refused with the resolver code', async () => {
    assert.match(await reasonFor('https://nowhere.test/'), /^host "nowhere\.test" could not be resolved \(ENOTFOUND\)$/);
  });

  test('a name with no addresses is refused', async () => {
    assert.match(await reasonFor('https://empty.test/', { resolve: stubResolver({ 'empty.test': [] }) }), /has no addresses/);
  });
});

describe('public destinations are accepted without connecting', () => {
  test('example.com → 93.184.216.34', async () => {
    const resolve = stubResolver({ 'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'] });
    const decision = await guardWith({ resolve }).checkUrl('https://Example.com/hook?x=1');
    assert.ok(decision.ok);
    assert.equal(decision.url.href, 'https://example.com/hook?x=1');
    assert.deepEqual(decision.addresses, [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });

  for (const url of [
    'https://93.184.216.34/',
    'https://[2606:2800:220:1:248:1893:25c8:1946]/',
    'https://[::ffff:93.184.216.34]/',
    'https://[64:ff9b::5db8:d822]/',
    'https://[2002:5db8:d822::1]/',
  ]) {
    test(url, async () => {
      const decision = await guardWith().checkUrl(url);
      assert.ok(decision.ok, decision.ok ? '' : decision.reason);
    });
  }
});

describe('allow-list', () => {
  test('an allow-listed IP lets exactly that address through, in any spelling', async () => {
    const guard = guardWith({ allowHosts: ['127.0.0.1'] });
    for (const url of ['https://127.0.0.1/', 'https://2130706433/', 'https://[::ffff:127.0.0.1]/']) {
      const decision = await guard.checkUrl(url);
      assert.ok(decision.ok, url);
    }
    assert.equal((await guard.checkUrl('https://127.0.0.2/')).ok, false);
    assert.equal((await guard.checkUrl('https://[::1]/')).ok, false);
  });

  test('a CIDR lets its range through, and only its range', async () => {
    const resolve = stubResolver({ localhost: ['127.0.0.1'], dual: ['127.0.0.1', '::1'] });
    const guard = guardWith({ allowHosts: ['127.0.0.0/8'], resolve });
    assert.ok((await guard.checkUrl('https://127.0.0.2/')).ok);
    assert.ok((await guard.checkUrl('https://localhost/')).ok);
    assert.match(await reasonFor('https://dual/', { allowHosts: ['127.0.0.0/8'], resolve }), /\(::1\)$/);
    assert.equal((await guard.checkUrl('https://10.0.0.1/')).ok, false);
  });

  test('an IPv6 CIDR', async () => {
    const guard = guardWith({ allowHosts: ['fd00::/8'] });
    assert.ok((await guard.checkUrl('https://[fd00::1]/')).ok);
    assert.equal((await guard.checkUrl('https://[fc00::1]/')).ok, false);
  });

  test('an allow-listed hostname is trusted whatever it resolves to', async () => {
    const resolve = stubResolver({ 'receiver.internal': ['10.0.0.5'], 'other.internal': ['10.0.0.5'] });
    const guard = guardWith({ allowHosts: ['Receiver.Internal.'], resolve });
    const decision = await guard.checkUrl('https://receiver.internal./hook');
    assert.ok(decision.ok);
    assert.deepEqual(decision.addresses, [{ address: '10.0.0.5', family: 4 }]);
    assert.equal((await guard.checkUrl('https://other.internal/')).ok, false);
  });

  test('invalid entries fail at construction', () => {
    assert.throws(() => guardWith({ allowHosts: ['localhost:8080'] }), /invalid allow-list entry "localhost:8080"/);
  });
});

describe('scheme and credentials', () => {
  const resolve = stubResolver({ 'example.com': ['93.184.216.34'] });

  test('http is refused unless allowHttp', async () => {
    assert.equal(await reasonFor('http://example.com/', { resolve }), 'only https URLs are allowed');
    assert.ok((await guardWith({ resolve, allowHttp: true }).checkUrl('http://example.com/')).ok);
  });

  for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'ws://example.com/', 'javascript:alert(1)', 'data:text/plain,hi']) {
    test(`${url} is refused even with allowHttp`, async () => {
      assert.equal(await reasonFor(url, { resolve, allowHttp: true }), 'only http and https URLs are allowed');
    });
  }

  for (const url of ['https://user:pass@example.com/', 'https://user@example.com/', 'https://:pass@example.com/']) {
    test(`userinfo is refused: ${url}`, async () => {
      assert.equal(await reasonFor(url, { resolve }), 'URLs with a username or password are not allowed');
    });
  }

  for (const url of ['not a url', '/relative/path', '', 'https://[::1/']) {
    test(`unparseable: ${JSON.stringify(url)}`, async () => {
      assert.equal(await reasonFor(url, { resolve }), 'not a valid absolute URL');
    });
  }
});

describe('checkAddress', () => {
  const guard = guardWith({ allowHosts: ['receiver.internal', '192.168.50.0/24'] });

  test('blocked and public single addresses', () => {
    assert.deepEqual(guard.checkAddress('127.0.0.1'), { ok: false, reason: '127.0.0.1 is a loopback address' });
    assert.deepEqual(guard.checkAddress('10.0.0.1', 'db.internal'), {
      ok: false,
      reason: 'host "db.internal" resolves to a private address (10.0.0.1)',
    });
    assert.deepEqual(guard.checkAddress('93.184.216.34'), { ok: true });
    assert.deepEqual(guard.checkAddress('2606:4700::1111'), { ok: true });
  });

  test('the allow-list applies by address and by host name', () => {
    assert.deepEqual(guard.checkAddress('192.168.50.7'), { ok: true });
    assert.deepEqual(guard.checkAddress('10.0.0.1', 'receiver.internal'), { ok: true });
  });

  test('garbage is refused, not thrown', () => {
    assert.deepEqual(guard.checkAddress('not-an-ip'), { ok: false, reason: '"not-an-ip" is not an IP address' });
  });
});

describe('parseAllowList', () => {
  test('splits, trims, drops empties and canonicalises', () => {
    assert.deepEqual(parseAllowList(' 127.0.0.1, ,10.0.0.0/8,Example.COM., [::1], FD00:0::/8,receiver_1.local '), [
      '127.0.0.1',
      '10.0.0.0/8',
      'example.com',
      '::1',
      'fd00::/8',
      'receiver_1.local',
    ]);
    assert.deepEqual(parseAllowList(''), []);
    assert.deepEqual(parseAllowList(' , '), []);
  });

  for (const bad of ['localhost:8080', '10.0.0.0/33', '::1/129', '10.0.0.0/', '127.1/8', 'http://example.com', '*.example.com', 'a..b', 'user@host', '-bad.example']) {
    test(`rejects ${JSON.stringify(bad)}`, () => {
      assert.throws(() => parseAllowList(`127.0.0.1,${bad}`), new RegExp(`invalid allow-list entry "${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`));
    });
  }
});
