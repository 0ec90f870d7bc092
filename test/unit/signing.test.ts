// Standard Webhooks signing, checked against the independent `standardwebhooks` verifier.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signWebhook } from '../../src/outbox/signing.js';

const now = (): number => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ instanceId: 'abc', type: 'ReceivedCallback', text: { message: 'olá 👋' }, momment: 1 });

describe('generateWebhookSecret', () => {
  test('is whsec_ + base64 of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    assert.notEqual(generateWebhookSecret(), secret);
  });
});

describe('signWebhook', () => {
  test('one secret: headers verify with standardwebhooks', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ id: 'msg_2mYbKq', timestamp: now(), body, secrets: [secret] });
    assert.equal(headers['webhook-id'], 'msg_2mYbKq');
    assert.match(headers['webhook-timestamp'], /^\d+$/);
    assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
  });

  test('two secrets (rotation): either secret verifies, current one signed first', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const headers = signWebhook({ id: 'msg_rotating', timestamp: now(), body, secrets: [current, previous] });
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    assert.equal(parts[0], signWebhook({ id: 'msg_rotating', timestamp: Number(headers['webhook-timestamp']), body, secrets: [current] })['webhook-signature']);
    for (const secret of [current, previous]) {
      assert.deepEqual(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
    }
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, { ...headers }), /No matching signature/);
  });

  test('matches the Standard Webhooks reference signer byte for byte', () => {
    const secret = generateWebhookSecret();
    const timestamp = now();
    const reference = new Webhook(secret).sign('msg_ref', new Date(timestamp * 1000), body);
    assert.equal(signWebhook({ id: 'msg_ref', timestamp, body, secrets: [secret] })['webhook-signature'], reference);
  });

  test('is HMAC-SHA256 of "id.timestamp.body" under the decoded key', () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString('base64')}`;
    const expected = createHmac('sha256', key).update(`id1.1700000000.${body}`).digest('base64');
    assert.equal(signWebhook({ id: 'id1', timestamp: 1_700_000_000, body, secrets: [secret] })['webhook-signature'], `v1,${expected}`);
  });

  test('a tampered body, id or timestamp fails verification', () => {
    const secret = generateWebhookSecret();
    const ts = now();
    const headers = signWebhook({ id: 'msg_t', timestamp: ts, body, secrets: [secret] });
    const wh = new Webhook(secret);
    assert.throws(() => wh.verify(body.replace('olá', 'ola'), { ...headers }), /No matching signature/);
    assert.throws(() => wh.verify(`${body} `, { ...headers }), /No matching signature/);
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-id': 'msg_u' }), /No matching signature/);
    assert.throws(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) }), /No matching signature/);
  });

  test('a stale timestamp is rejected by the receiver (why it is per attempt)', () => {
    const secret = generateWebhookSecret();
    const headers = signWebhook({ id: 'msg_old', timestamp: now() - 3600, body, secrets: [secret] });
    assert.throws(() => new Webhook(secret).verify(body, { ...headers }), /too old/);
  });

  test('invalid input is refused without echoing the secret', () => {
    const ok = { id: 'msg_1', timestamp: now(), body, secrets: [generateWebhookSecret()] };
    assert.throws(() => signWebhook({ ...ok, secrets: [] }), /at least one webhook secret/);
    assert.throws(() => signWebhook({ ...ok, id: '' }), /webhook id/);
    assert.throws(() => signWebhook({ ...ok, id: 'a b' }), /webhook id/);
    assert.throws(() => signWebhook({ ...ok, timestamp: 1.5 }), /whole seconds/);
    assert.throws(() => signWebhook({ ...ok, timestamp: Date.now() * 1e6 }), /whole seconds/);
    const leaky = 'sk_live_DO_NOT_LOG';
    assert.throws(
      () => signWebhook({ ...ok, secrets: [ok.secrets[0] ?? '', leaky] }),
      (err: Error) => err.message === 'webhook secret #2 does not start with whsec_' && !err.message.includes(leaky),
    );
    assert.throws(() => signWebhook({ ...ok, secrets: ['whsec_not*base64'] }), /#1 is not valid base64/);
    assert.throws(() => signWebhook({ ...ok, secrets: ['whsec_'] }), /#1 is not valid base64/);
  });
});
