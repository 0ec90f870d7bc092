// X25519 for the Noise handshake on node's KeyObjects: libsignal's Curve.sharedKey re-imports the private key from DER
// on every call (~1 ms in OpenSSL 3), three times per connection; here private keys are imported once and public keys
// come in as JWK (µs).
import { createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { KeyPair } from '../cert.js';

const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
/** Keyed by the private key's Buffer: the server's static key is imported once for all connections. */
const imported = new WeakMap<Buffer, KeyObject>();

export function x25519KeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  const pair = {
    public: Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'),
    private: Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url'),
  };
  imported.set(pair.private, privateKey);
  return pair;
}

/** The shared secret, as Curve.sharedKey(privateKey, peerPublic) computes it (peer key raw 32 bytes or 0x05-prefixed). */
export function x25519(privateKey: Buffer, peerPublic: Uint8Array): Buffer {
  let key = imported.get(privateKey);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8, privateKey]), format: 'der', type: 'pkcs8' });
    imported.set(privateKey, key);
  }
  const raw = peerPublic.length === 33 ? peerPublic.subarray(1) : peerPublic;
  const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
  return diffieHellman({ privateKey: key, publicKey: peer });
}
