// SSRF matrix for webhook URLs, refused at set time (400) and again at delivery time (URLs put
// straight into the store, or DNS changed between set and delivery): loopback receivers that are
// really listening must see no request. Private, link-local and metadata targets are judged by the
// guard alone (stub DNS); a spy on Socket#connect fails the file if anything but loopback is dialed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { ResolvedAddress } from '../../src/net/address-guard.js';
import type { ReceivedCallback } from '../../src/events/types.js';
import { loopbackOnlyConnections } from '../helpers/loopback-only.js';
import { eventually, startHarness, startReceiver, type Harness, type HarnessInstance, type Receiver } from '../helpers/webhook-harness.js';

// Safety net: every outgoing connection must be to loopback (the spy fails the file otherwise).
const { dialed, violations } = loopbackOnlyConnections();

// ---------------------------------------------------------------------------------------------

let rebindTo = '93.184.216.34';
const DNS: Record<string, () => string> = {
  'loopback.test': () => '127.0.0.1',
  'metadata.test': () => '169.254.169.254',
  'ten.test': () => '10.0.0.1',
  'oneseventwo.test': () => '172.16.0.1',
  'oneninetwo.test': () => '192.168.1.1',
  // Public when the URL is set, loopback when it is delivered to (DNS rebinding).
  'rebind.test': () => rebindTo,
};

async function resolve(host: string): Promise<ResolvedAddress[]> {
  const address = DNS[host]?.();
  if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return [{ address, family: net.isIP(address) }];
}

let n = 0;
function event(): ReceivedCallback {
  n++;
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${String(n).padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: n,
    status: 'RECEIVED',
    chatName: 'x',
    senderName: 'x',
    participantPhone: null,
    isGroup: false,
    text: { message: 'ssrf' },
  };
}

describe('webhook SSRF matrix', () => {
  let h: Harness;
  let v4: Receiver;
  let v6: Receiver;
  let redirector: Receiver;
  let matrix: [string, string][];

  before(async () => {
    v4 = await startReceiver('127.0.0.1');
    v6 = await startReceiver('::1');
    // The only allow-listed host: it answers with a redirect to the (refused) loopback receiver.
    redirector = await startReceiver('127.0.0.2');
    redirector.answer = () => ({ status: 302, headers: { location: `${v4.origin}/redirected` } });
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.2' }, resolve });
    const p = v4.port;
    matrix = [
      ['127.0.0.1', `https://127.0.0.1:${p}/hook`],
      ['::1', `https://[::1]:${v6.port}/hook`],
      ['::ffff:127.0.0.1', `https://[::ffff:127.0.0.1]:${p}/hook`],
      ['2130706433', `https://2130706433:${p}/hook`],
      ['0.0.0.0', `https://0.0.0.0:${p}/hook`],
      ['a name resolving to loopback', `https://loopback.test:${p}/hook`],
      ['169.254.169.254', 'https://169.254.169.254/latest/meta-data/'],
      ['10.0.0.1', 'https://10.0.0.1/hook'],
      ['172.16.0.1', 'https://172.16.0.1/hook'],
      ['192.168.1.1', 'https://192.168.1.1/hook'],
      ['a name resolving to 169.254.169.254', 'https://metadata.test/hook'],
      ['a name resolving to 10.0.0.1', 'https://ten.test/hook'],
      ['a name resolving to 172.16.0.1', 'https://oneseventwo.test/hook'],
      ['a name resolving to 192.168.1.1', 'https://oneninetwo.test/hook'],
      ['plain http, even to an allow-listed host', `http://127.0.0.2:${redirector.port}/hook`],
    ];
  });
  after(async () => {
    await h.close();
    await Promise.all([v4.close(), v6.close(), redirector.close()]);
  });

  async function lastAttempt(inst: HarnessInstance): Promise<{ lastStatus: number | null; lastError: string }> {
    let found: { attempts: number; lastStatus: number | null; lastError: string } | undefined;
    await eventually(async () => {
      const page = await h.request('GET', `${inst.prefix}/webhook-deliveries`);
      found = (page.json.deliveries as (typeof found)[])[0];
      return found !== undefined && found.attempts >= 1;
    }, 10_000, 'the delivery attempt');
    return found!;
  }

  test('refused at set time with 400, nothing stored', async () => {
    const inst = await h.createInstance('set-time');
    for (const [name, url] of matrix) {
      const r = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: url });
      assert.equal(r.status, 400, `${name}: ${JSON.stringify(r.body)}`);
      assert.equal(r.json.error, 'Invalid request');
    }
    const hooks = await h.request('GET', `${inst.prefix}/webhooks`);
    assert.deepEqual(hooks.body, []);
  });

  test('refused at delivery time when the URL got into the store anyway', async () => {
    for (const [name, url] of matrix) {
      const inst = await h.createInstance(name);
      await h.gateway.store.webhooks.set(inst.id, ['received'], url, Date.now());
      await h.gateway.events.emit(inst.id, [event()]);
      const attempt = await lastAttempt(inst);
      assert.equal(attempt.lastStatus, null, name);
      assert.match(attempt.lastError, /^address refused: /, name);
    }
    assert.equal(v4.requests.length, 0, 'the IPv4 loopback receiver saw nothing');
    assert.equal(v6.requests.length, 0, 'the IPv6 loopback receiver saw nothing');
    assert.equal(redirector.requests.length, 0, 'plain http was not sent');
  });

  test('DNS that changes to loopback between set time and delivery is refused', async () => {
    const inst = await h.createInstance('rebind');
    rebindTo = '93.184.216.34';
    const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: `https://rebind.test:${v4.port}/hook` });
    assert.equal(set.status, 200, 'a public address is accepted at set time');
    rebindTo = '127.0.0.1';
    await h.gateway.events.emit(inst.id, [event()]);
    const attempt = await lastAttempt(inst);
    assert.match(attempt.lastError, /address refused: host "rebind\.test" resolves to a loopback address/);
    assert.equal(v4.requests.length, 0);
  });

  test('a redirect to loopback is not followed', async () => {
    const inst = await h.createInstance('redirect');
    const set = await h.request('PUT', `${inst.prefix}/update-webhook-received`, { value: `${redirector.origin}/hook` });
    assert.equal(set.status, 200, 'the allow-listed redirector is accepted');
    await h.gateway.events.emit(inst.id, [event()]);
    const attempt = await lastAttempt(inst);
    assert.equal(attempt.lastStatus, 302);
    assert.match(attempt.lastError, /redirect \(302\) not followed/);
    assert.equal(redirector.requests.length, 1, 'the redirector itself was reached');
    assert.equal(v4.requests.length, 0, 'its target was not');
  });

  test('the safety net saw only loopback connections, and at least one', () => {
    assert.ok(dialed.some((d) => d.startsWith('127.0.0.2:')), `dialed: ${dialed.join(', ')}`);
    assert.ok(dialed.every((d) => !d.startsWith('127.0.0.1:') || !d.endsWith(`:${v4.port}`)), 'never dialed the refused receiver');
    assert.deepEqual(violations, []);
  });
});
