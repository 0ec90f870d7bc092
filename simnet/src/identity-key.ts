// Curve25519 identity keys that sign with node's native Ed25519 (~50 µs) instead of libsignal's pure-JS XEdDSA
// (curve25519-js, 10–40 ms of blocked event loop per signature: the main cost of a pairing in simnet).
//
// A "Curve25519 signature" as libsignal/curve25519-js make and check it is a plain Ed25519 signature by the secret
// scalar a (the clamped X25519 private key), with the sign bit of the Edwards public key aB stored in the top bit of
// the signature. Node cannot sign with a given scalar, but it derives its scalar from a seed the standard way
// (a = clamp(SHA-512(seed)[0..32])): pick the seed first, derive a, and a is the X25519 private key. The signatures
// verify with Baileys' Curve.verify like any other.
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';
import { Curve } from 'baileys';
import type { KeyPair } from './cert.js';

const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');

export interface IdentityKeyPair extends KeyPair {
  /** Curve25519 signature (64 bytes), as Curve.sign(private, msg) would make. */
  sign(msg: Uint8Array): Buffer;
}

const rawPublic = (k: KeyObject): Buffer => {
  const der = createPublicKey(k).export({ format: 'der', type: 'spki' });
  return Buffer.from(der.subarray(der.length - 32));
};

export function genIdentityKeyPair(): IdentityKeyPair {
  const seed = randomBytes(32);
  const edPrivate = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8, seed]), format: 'der', type: 'pkcs8' });
  const edPublic = rawPublic(edPrivate);
  const scalar = createHash('sha512').update(seed).digest().subarray(0, 32);
  scalar[0]! &= 248;
  scalar[31]! &= 127;
  scalar[31]! |= 64;
  const xPrivate = Buffer.from(scalar);
  const xPublic = rawPublic(createPrivateKey({ key: Buffer.concat([X25519_PKCS8, xPrivate]), format: 'der', type: 'pkcs8' }));
  const signBit = edPublic[31]! & 0x80;
  return {
    public: xPublic,
    private: xPrivate,
    sign: (msg) => {
      const sig = sign(null, msg, edPrivate);
      sig[63]! |= signBit;
      return sig;
    },
  };
}

/** Signs with the fast path when the key has one, else with libsignal's XEdDSA. */
export function curveSign(key: KeyPair | IdentityKeyPair, msg: Uint8Array): Buffer {
  return 'sign' in key ? key.sign(msg) : Buffer.from(Curve.sign(key.private, msg));
}
