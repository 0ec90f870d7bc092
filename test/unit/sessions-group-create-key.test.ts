// The create key of a group creation names its request: the same pending id always sends the same
// key (so the network answers a retry with the group it made), other requests send other keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupCreateKey } from '../../src/sessions/families/group-admin/group-info.js';

test('a pending id always gives the same create key, shaped like a WhatsApp Web id', () => {
  const id = 'pending-0b6f1c1e-3c51-4a8e-9d0c-1f2a3b4c5d6e';
  assert.equal(groupCreateKey(id), groupCreateKey(id), 'stable across calls (and processes: no randomness, no clock)');
  assert.match(groupCreateKey(id), /^3EB0[0-9A-F]{18}$/, '3EB0 and 18 uppercase hex digits');
});

test('different pending ids give different create keys', () => {
  const keys = new Set(Array.from({ length: 1000 }, (_, i) => groupCreateKey(`pending-${i}`)));
  assert.equal(keys.size, 1000, 'no two of 1000 requests share a key');
});
