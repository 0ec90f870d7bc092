// The process-wide cache handed to every socket: bounded in size, expiring, and scoped per instance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedCache } from '../../src/sessions/link/bounded-cache.js';

test('never holds more than its bound, evicting the least recently used', () => {
  const c = new BoundedCache(3, 1_000, () => 0);
  c.set('a', 1);
  c.set('b', 2);
  c.set('c', 3);
  assert.equal(c.get('a'), 1); // a is now the most recent
  c.set('d', 4);
  assert.equal(c.size, 3);
  assert.equal(c.get('b'), undefined);
  assert.equal(c.get('a'), 1);
});

test('entries expire', () => {
  let now = 0;
  const c = new BoundedCache(10, 100, () => now);
  c.set('k', 'v');
  now = 99;
  assert.equal(c.get('k'), 'v');
  now = 250;
  assert.equal(c.get('k'), undefined);
});

test('views of two instances never see each other and flush only their own keys', async () => {
  const c = new BoundedCache(10, 1_000, () => 0);
  const a = c.view('inst-a');
  const b = c.view('inst-b');
  await a.set('msg1', 1);
  await b.set('msg1', 2);
  assert.equal(await a.get('msg1'), 1);
  assert.equal(await b.get('msg1'), 2);
  await a.flushAll();
  assert.equal(await a.get('msg1'), undefined);
  assert.equal(await b.get('msg1'), 2);
});
