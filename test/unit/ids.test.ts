// Ids minted on every send: their formats, uniqueness across pool refills, and time order (the
// messages table's indexes rely on it to append rather than scatter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashToken, newToken, newWaMessageId, newZaapId, tokenMatches } from '../../src/ids.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

test('messageId and zaapId formats, unique over many pool refills', () => {
  const seen = new Set<string>();
  const now = new VirtualClock({ mode: 'frozen' }).now();
  for (let i = 0; i < 20_000; i++) {
    const m = newWaMessageId(now);
    const z = newZaapId(now);
    assert.match(m, /^3EB0[0-9A-F]{18}$/);
    assert.match(z, /^[0-9A-F]{32}$/);
    seen.add(m).add(z);
  }
  assert.equal(seen.size, 40_000);
});

test('ids minted later sort after earlier ones (zaapId by millisecond, messageId by second), and carry the clock\'s time', async () => {
  const clock = new VirtualClock({ mode: 'frozen' });
  const z1 = newZaapId(clock.now());
  const m1 = newWaMessageId(clock.now());
  await clock.advance(1_100);
  const z2 = newZaapId(clock.now());
  const m2 = newWaMessageId(clock.now());
  assert.ok(z1 < z2, `${z1} < ${z2}`);
  assert.ok(m1 < m2, `${m1} < ${m2}`);
  assert.equal(parseInt(z2.slice(0, 12), 16), clock.now());
  assert.equal(parseInt(m2.slice(4, 12), 16), Math.floor(clock.now() / 1000));
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
