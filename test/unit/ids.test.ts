// Ids minted on every send: their formats, uniqueness across pool refills, and time order (the
// messages table's indexes rely on it to append rather than scatter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
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

test('ids minted later sort after earlier ones (zaapId by millisecond, messageId by second)', async () => {
  const z1 = newZaapId();
  const m1 = newWaMessageId();
  await sleep(1_100);
  const z2 = newZaapId();
  const m2 = newWaMessageId();
  assert.ok(z1 < z2, `${z1} < ${z2}`);
  assert.ok(m1 < m2, `${m1} < ${m2}`);
  assert.equal(parseInt(z2.slice(0, 12), 16) <= Date.now(), true);
  assert.ok(Math.abs(parseInt(m2.slice(4, 12), 16) - Date.now() / 1000) < 5);
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
