// The simnet certificate chain: a root key (trusted by tests via WA_CERT_DETAILS.PUBLIC_KEY) signs an intermediate, which signs the server's Noise static key.
import { createHash } from 'node:crypto';
import { Curve, proto } from 'baileys';
import { wallNow } from './clock.js';

export interface KeyPair {
  public: Buffer;
  private: Buffer;
}

/** Curve.generateKeyPair with Buffers (Baileys types them as Uint8Array). */
export function genKeyPair(): KeyPair {
  const kp = Curve.generateKeyPair();
  return { public: Buffer.from(kp.public), private: Buffer.from(kp.private) };
}

/** Deterministic X25519 key pair from a seed, so a child-process simnet and its tests agree on the root without talking. */
export function keyPairFromSeed(seed: string): KeyPair {
  const priv = createHash('sha256').update(seed).digest();
  // Clamp like curve25519 expects; libsignal's sign/agree both accept a clamped scalar.
  priv[0]! &= 248;
  priv[31]! &= 127;
  priv[31]! |= 64;
  const pub = Buffer.from(Curve.sharedKey(priv, basePoint()));
  return { private: priv, public: pub };
}

/** The curve25519 base point u=9: DH(priv, 9) is the public key. */
function basePoint(): Buffer {
  const b = Buffer.alloc(32);
  b[0] = 9;
  return b;
}

export interface CertChainMaterial {
  root: KeyPair;
  /** Encoded proto.CertChain to send in serverHello.payload. */
  chain: Uint8Array;
}

/** Builds intermediate (signed by root, issuerSerial 0 = WA_CERT_DETAILS.SERIAL) and leaf (signed by intermediate, key = server static). */
export function buildCertChain(root: KeyPair, serverStaticPublic: Buffer): CertChainMaterial {
  const intermediate = genKeyPair();
  // Validity on the wall clock, not the network's: a client checks it against its own real clock.
  const now = Math.floor(wallNow() / 1000);
  const interDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 1,
    issuerSerial: 0,
    key: intermediate.public,
    notBefore: now - 3600,
    notAfter: now + 10 * 365 * 86400,
  }).finish();
  const leafDetails = proto.CertChain.NoiseCertificate.Details.encode({
    serial: 2,
    issuerSerial: 1,
    key: serverStaticPublic,
    notBefore: now - 3600,
    notAfter: now + 365 * 86400,
  }).finish();
  const chain = proto.CertChain.encode({
    intermediate: { details: interDetails, signature: Curve.sign(root.private, interDetails) },
    leaf: { details: leafDetails, signature: Curve.sign(intermediate.private, leafDetails) },
  }).finish();
  return { root, chain };
}
