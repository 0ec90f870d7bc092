// Ids minted on every send (pooled randomness) keep their formats and never repeat across refills.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashToken, newToken, newWaMessageId, newZaapId, tokenMatches } from '../../src/ids.js';

test('messageId and zaapId formats, unique over many pool refills', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 20_000; i++) {
    const m = newWaMessageId();
    const z = newZaapId();
    assert.match(m, /^3EB0[0-9A-F]{18}$/);
    assert.match(z, /^[0-9A-F]{32}$/);
    seen.add(m).add(z);
  }
  assert.equal(seen.size, 40_000);
});

test('tokens: 160 bits of hex, matched only by themselves', () => {
  const a = newToken();
  const b = newToken();
  assert.match(a, /^[0-9A-F]{40}$/);
  assert.notEqual(a, b);
  assert.ok(tokenMatches(a, hashToken(a)));
  assert.ok(!tokenMatches(b, hashToken(a)));
  assert.ok(!tokenMatches('', hashToken(a)));
});
