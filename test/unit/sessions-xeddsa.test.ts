// Baileys' signature checks on native Ed25519: what libsignal signs verifies, anything altered or
// malformed does not (Baileys' own Curve.verify let every well-formed signature through).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Curve } from 'baileys';
import { useNativeVerify, xeddsaVerify } from '../../src/sessions/patches/xeddsa.js';

const flip = (b: Uint8Array, i: number, bit = 1): Buffer => {
  const c = Buffer.from(b);
  c[i]! ^= bit;
  return c;
};

test('signatures made by libsignal verify; any changed byte of key, message or signature fails', () => {
  for (let i = 0; i < 64; i++) {
    const kp = Curve.generateKeyPair();
    const msg = Buffer.from(`certificate details ${i}`);
    const sig = Buffer.from(Curve.sign(kp.private, msg));
    assert.equal(xeddsaVerify(kp.public, msg, sig), true, `valid #${i}`);
    assert.equal(xeddsaVerify(Buffer.concat([Buffer.from([5]), kp.public]), msg, sig), true, 'with the 0x05 type prefix');
    assert.equal(xeddsaVerify(kp.public, flip(msg, i % msg.length), sig), false, 'other message');
    assert.equal(xeddsaVerify(kp.public, msg, flip(sig, i, 1 << (i % 8))), false, 'altered signature');
    assert.equal(xeddsaVerify(kp.public, msg, flip(sig, 63, 0x80)), false, 'flipped sign bit');
    assert.equal(xeddsaVerify(flip(kp.public, i % 31), msg, sig), false, 'other key');
  }
});

test('malformed input is refused, not thrown', () => {
  const kp = Curve.generateKeyPair();
  const msg = Buffer.from('m');
  const sig = Buffer.from(Curve.sign(kp.private, msg));
  assert.equal(xeddsaVerify(kp.public.subarray(1), msg, sig), false, '31-byte key');
  assert.equal(xeddsaVerify(Buffer.concat([Buffer.from([6]), kp.public]), msg, sig), false, 'wrong type prefix');
  assert.equal(xeddsaVerify(kp.public, msg, sig.subarray(1)), false, '63-byte signature');
  assert.equal(xeddsaVerify(Buffer.alloc(32, 0xff), msg, sig), false, 'not a curve point of the signer');
});

test('installed as Baileys Curve.verify: a tampered certificate signature no longer passes', () => {
  const kp = Curve.generateKeyPair();
  const msg = Buffer.from('intermediate certificate');
  const sig = Buffer.from(Curve.sign(kp.private, msg));
  useNativeVerify();
  assert.equal(Curve.verify(kp.public, msg, sig), true);
  assert.equal(Curve.verify(kp.public, msg, flip(sig, 10)), false);
});
