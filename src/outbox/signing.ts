// Standard Webhooks signing (standardwebhooks.com): the three headers every webhook delivery carries.
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface WebhookSignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

interface SignWebhookInput {
  /** Stable across retries of one delivery, so receivers can de-duplicate. */
  id: string;
  /** Seconds since the epoch, of this attempt (receivers reject stale ones). */
  timestamp: number;
  /** The exact bytes sent as the request body. */
  body: string;
  /** Current secret first, then the previous one while a rotation is in progress. */
  secrets: readonly string[];
}

/** A new secret: `whsec_` + base64 of 32 random bytes (the key size the spec recommends). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string, index: number): Buffer {
  // The messages never echo the secret: they may end up in logs.
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error(`webhook secret #${index + 1} does not start with ${SECRET_PREFIX}`);
  const encoded = secret.slice(SECRET_PREFIX.length);
  // Buffer's base64 decoder skips junk silently; a corrupted secret must fail loudly instead.
  if (!BASE64.test(encoded) || encoded.length % 4 !== 0) throw new Error(`webhook secret #${index + 1} is not valid base64`);
  return Buffer.from(encoded, 'base64');
}

/**
 * Signs one delivery attempt. The signature header lists `v1,<base64 HMAC-SHA256>` of
 * `id.timestamp.body` once per secret, space-separated, so a receiver holding either the
 * new or the old secret accepts the delivery during a rotation.
 */
export function signWebhook({ id, timestamp, body, secrets }: SignWebhookInput): WebhookSignatureHeaders {
  if (id === '' || /\s/.test(id)) throw new Error('webhook id must be non-empty, without whitespace');
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new Error('webhook timestamp must be whole seconds since the epoch');
  if (secrets.length === 0) throw new Error('at least one webhook secret is needed to sign');
  const ts = String(timestamp);
  const signatures = secrets.map((secret, i) => {
    // Chained updates instead of one concatenated string: the body is not copied per secret.
    const mac = createHmac('sha256', secretKey(secret, i)).update(id).update('.').update(ts).update('.').update(body).digest('base64');
    return `v1,${mac}`;
  });
  return { 'webhook-id': id, 'webhook-timestamp': ts, 'webhook-signature': signatures.join(' ') };
}
