// Curve25519 key pairs made ahead of need on libuv's thread pool, served as Baileys' Curve.generateKeyPair.
// The first login after a pairing generates 812 pre-keys synchronously (INITIAL_PREKEY_COUNT):
// ~110 ms of blocked event loop on an idle core, seconds when pairings overlap on a busy one, while
// every other instance and HTTP request waits. A pairing asks for its keys when it starts (the QR
// is scanned seconds later), so by its first login they are ready.
import { generateKeyPair } from 'node:crypto';
import { Curve, INITIAL_PREKEY_COUNT, type KeyPair } from 'baileys';

/** Keys one pairing draws: the pre-keys of its first login, its credentials, handshake keys. */
const KEYS_PER_PAIRING = INITIAL_PREKEY_COUNT + 16;
/** At most this many keys wait in memory (~150 bytes each: ~2 MB for 16 overlapping pairings). */
const MAX_POOL = 16 * KEYS_PER_PAIRING;
/** Jobs on the thread pool at once: file and DNS work shares it. */
const MAX_IN_FLIGHT = 2;

const pool: KeyPair[] = [];
let wanted = 0;
let inFlight = 0;
let synchronous: (() => KeyPair) | null = null;

function pump(): void {
  while (inFlight < MAX_IN_FLIGHT && pool.length + inFlight < wanted) {
    inFlight++;
    // DER forms: for X25519 the raw keys are their last 32 bytes.
    generateKeyPair('x25519', { publicKeyEncoding: { type: 'spki', format: 'der' }, privateKeyEncoding: { type: 'pkcs8', format: 'der' } }, (err, publicDer, privateDer) => {
      inFlight--;
      // A failed job leaves the draw to the synchronous generator; nothing is lost.
      if (!err) pool.push({ private: Buffer.from(privateDer.subarray(-32)), public: Buffer.from(publicDer.subarray(-32)) });
      if (!err) pump();
    });
  }
}

function draw(): KeyPair {
  if (wanted > 0) wanted--;
  const ready = pool.pop();
  pump();
  return ready ?? synchronous!();
}

/** Asks for `count` more keys to be made in the background (a pairing is starting). */
export function prewarmKeyPairs(count = KEYS_PER_PAIRING): void {
  wanted = Math.min(MAX_POOL, wanted + count);
  pump();
}

/** Keys waiting in the pool (tests). */
export function pooledKeyPairs(): number {
  return pool.length;
}

/** Serves Baileys' Curve.generateKeyPair from the pool, falling back to its own; idempotent. */
export function useKeyPairPool(): void {
  if (synchronous) return;
  const original = Curve.generateKeyPair;
  synchronous = original;
  Curve.generateKeyPair = draw;
}
