// simnet's fast key paths: identity keys whose Ed25519-made signatures must be Curve25519 signatures that libsignal's
// own verifier (curve25519-js) accepts, and X25519 agreement on node KeyObjects that must equal libsignal's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Curve } from 'baileys';
// eslint-disable-next-line no-restricted-imports -- libsignal's reference verifier (the rule guards the gateway's src/)
import * as curve from 'libsignal/src/curve.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { genIdentityKeyPair } from '../src/identity-key.js';
// eslint-disable-next-line no-restricted-imports -- simnet's own sources
import { x25519, x25519KeyPair } from '../src/transport/x25519.js';

const pub33 = (k: Uint8Array) => Buffer.concat([Buffer.from([5]), k]);

test('signatures verify with libsignal and fail on another message, signature or key', () => {
  for (let i = 0; i < 12; i++) {
    const key = genIdentityKeyPair();
    const other = genIdentityKeyPair();
    const msg = randomBytes(1 + i * 7);
    const sig = key.sign(msg);
    assert.equal(sig.length, 64);
    assert.equal(curve.verifySignature(pub33(key.public), msg, sig), true, `signature ${i}`);
    const badMsg = Buffer.from(msg);
    badMsg[0]! ^= 1;
    assert.equal(curve.verifySignature(pub33(key.public), badMsg, sig), false);
    const badSig = Buffer.from(sig);
    badSig[10]! ^= 1;
    assert.equal(curve.verifySignature(pub33(key.public), msg, badSig), false);
    assert.equal(curve.verifySignature(pub33(other.public), msg, sig), false);
  }
});

test('the key pair agrees with libsignal keys both ways (X25519)', () => {
  const key = genIdentityKeyPair();
  const peer = Curve.generateKeyPair();
  assert.deepEqual(Buffer.from(Curve.sharedKey(key.private, peer.public)), Buffer.from(Curve.sharedKey(peer.private, key.public)));
});

test('x25519 on KeyObjects equals Curve.sharedKey, for raw and 0x05-prefixed peer keys', () => {
  for (let i = 0; i < 20; i++) {
    const ours = i % 2 ? x25519KeyPair() : (({ public: p, private: k }) => ({ public: Buffer.from(p), private: Buffer.from(k) }))(Curve.generateKeyPair());
    const peer = Curve.generateKeyPair();
    const expected = Buffer.from(Curve.sharedKey(ours.private, peer.public));
    assert.deepEqual(x25519(ours.private, peer.public), expected);
    assert.deepEqual(x25519(ours.private, pub33(peer.public)), expected);
    assert.deepEqual(Buffer.from(Curve.sharedKey(peer.private, ours.public)), expected);
  }
});
