// Identifiers and secrets: random tokens, their at-rest hashes, and WhatsApp-format message ids.
import { createHash, randomBytes, randomFillSync, randomUUID, timingSafeEqual } from 'node:crypto';

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

/** Tokens are stored only as SHA-256 hashes: they are high-entropy, so no salt or KDF is needed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented token against a stored hash. */
export function tokenMatches(presented: string, storedHash: string): boolean {
  const a = Buffer.from(hashToken(presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
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

/**
 * A message id in the format WhatsApp Web clients use (`3EB0` + 18 upper-case hex digits),
 * fixed at enqueue so a resend after a crash carries the same id.
 */
export function newWaMessageId(): string {
  return '3EB0' + pooledHex(9);
}

/** Queue id returned to clients as `zaapId`. */
export function newZaapId(): string {
  return pooledHex(16);
}
