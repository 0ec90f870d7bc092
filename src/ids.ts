// Identifiers and secrets: random tokens, their at-rest hashes, and WhatsApp-format message ids.
import { hash, randomBytes, randomFillSync, randomUUID, timingSafeEqual } from 'node:crypto';

/** 160 random bits, hex: used for Client-Tokens and instanceTokens. */
export function newToken(): string {
  return randomBytes(20).toString('hex').toUpperCase();
}

/** Public identifier of an instance (not a secret). */
export function newInstanceId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

export function newUuid(): string {
  return randomUUID();
}

/**
 * Tokens are stored only as SHA-256 hashes: they are high-entropy, so no salt or KDF is needed.
 * The one-shot crypto.hash, not a Hash object: both tokens are hashed on every request
 * (1 µs → 0.3 µs each; bench/enqueue).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/** Constant-time comparison of a presented token against a stored hash (both hex, compared as text). */
export function tokenMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashToken(presented), 'latin1');
  const b = Buffer.from(storedHash, 'latin1');
  return a.length === b.length && timingSafeEqual(a, b);
}

// The two ids minted on every send come from a pooled CSPRNG buffer (as randomUUID does):
// one randomFillSync per 4 KiB instead of a ~4 µs randomBytes call per id (bench/enqueue).
// They are identifiers, not secrets; tokens above keep their own randomBytes call.
const pool = Buffer.allocUnsafe(4096);
let poolAt = pool.length;

function pooledHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes).toUpperCase();
  poolAt += bytes;
  return hex;
}

// Both ids below lead with the time, so the messages table's indexes on them grow at one end
// instead of touching a random page per insert: with 200k rows queued that halves the cost of a
// 50-row commit under synchronous=FULL (bench/enqueue). The caller passes the time, from the
// gateway's clock (src/clock.ts), like every other timestamp it writes.

/**
 * A message id in the format WhatsApp Web clients use (`3EB0` + 18 upper-case hex digits),
 * fixed at enqueue so a resend after a crash carries the same id: 8 hex digits of Unix seconds
 * (`now`, ms since the epoch), then 40 random bits.
 */
export function newWaMessageId(now: number): string {
  const seconds = Math.floor(now / 1000) >>> 0;
  return '3EB0' + seconds.toString(16).toUpperCase().padStart(8, '0') + pooledHex(5);
}

/** Queue id returned to clients as `zaapId`: 12 hex digits of epoch milliseconds (`now`), then 80 random bits. */
export function newZaapId(now: number): string {
  return Math.floor(now).toString(16).toUpperCase().padStart(12, '0') + pooledHex(10);
}
