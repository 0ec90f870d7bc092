// Key pairs made ahead on the thread pool and served as Baileys' Curve.generateKeyPair: usable
// X25519 pairs, each handed out once, and the synchronous generator when the pool is empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Curve } from 'baileys';
import { pooledKeyPairs, prewarmKeyPairs, useKeyPairPool } from '../../src/sessions/patches/keypair-pool.js';
import { until } from '../helpers/poll.js';

test('prewarmed keys are real X25519 pairs, handed out once each; an empty pool still answers', async () => {
  useKeyPairPool();
  // Empty pool: Baileys' own generator answers.
  const direct = Curve.generateKeyPair();
  assert.equal(direct.private.length, 32);
  assert.equal(direct.public.length, 32);

  prewarmKeyPairs(40);
  await until('the pool to fill', () => pooledKeyPairs() >= 40);
  assert.equal(pooledKeyPairs(), 40, 'the pool fills to what was asked, no more');

  const drawn = Array.from({ length: 40 }, () => Curve.generateKeyPair());
  assert.equal(pooledKeyPairs(), 0);
  assert.equal(new Set(drawn.map((k) => Buffer.from(k.private).toString('hex'))).size, 40, 'no key is handed out twice');
  for (const k of drawn.slice(0, 5)) {
    assert.equal(k.private.length, 32);
    assert.equal(k.public.length, 32);
    // The public key belongs to the private one: both sides agree on a shared secret.
    const other = Curve.generateKeyPair();
    assert.deepEqual(Curve.sharedKey(k.private, other.public), Curve.sharedKey(other.private, k.public));
    // And it signs (XEdDSA) as a Baileys identity key would.
    const sig = Curve.sign(k.private, Buffer.from('x'));
    assert.equal(sig.length, 64);
  }
});
