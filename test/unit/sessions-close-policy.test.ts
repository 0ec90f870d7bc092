// The reconnect policy per close code (docs/whatsapp-protocol.md Part 1) and the backoff's bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, classifyClose, DEFAULT_BACKOFF, QR_REFS_ENDED } from '../../src/sessions/link/close-policy.js';

const paired = { registered: true, intentional: false };

test('each close code of a paired device maps to its documented action', () => {
  assert.equal(classifyClose(515, 'Stream Errored (restart required)', paired).kind, 'reconnect-now');
  assert.equal(classifyClose(401, 'Stream Errored (conflict)', paired).kind, 'logged-out');
  assert.equal(classifyClose(440, 'Stream Errored (conflict)', paired).kind, 'replaced');
  assert.equal(classifyClose(403, 'Connection Failure', paired).kind, 'banned');
  assert.equal(classifyClose(411, 'Multi-device beta not joined', paired).kind, 're-pair');
  for (const code of [408, 428, 500, 503, undefined]) assert.equal(classifyClose(code, 'Connection was lost', paired).kind, 'backoff', String(code));
});

test('408 "QR refs attempts ended" ends the pairing session instead of retrying', () => {
  const a = classifyClose(408, QR_REFS_ENDED, { registered: false, intentional: false });
  assert.equal(a.kind, 'pairing-ended');
});

test('a link lost before pairing completed ends the pairing (no silent retries with stale QR keys)', () => {
  assert.equal(classifyClose(428, 'Connection Terminated', { registered: false, intentional: false }).kind, 'pairing-ended');
  assert.equal(classifyClose(515, 'restart', { registered: false, intentional: false }).kind, 'reconnect-now');
});

test('a close the gateway asked for is never treated as a failure', () => {
  assert.equal(classifyClose(428, 'Connection Terminated', { registered: true, intentional: true }).kind, 'intentional');
});

test('backoff doubles per attempt, stays within its jitter band and never exceeds the cap', () => {
  const policy = { baseMs: 1_000, maxMs: 60_000, jitter: 0.3 };
  for (let attempt = 1; attempt <= 40; attempt++) {
    const nominal = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
    const low = backoffDelay(attempt, policy, () => 0);
    const high = backoffDelay(attempt, policy, () => 0.999999);
    assert.ok(low >= nominal * 0.7 - 1 && high <= nominal * 1.3 + 1, `attempt ${attempt}: ${low}..${high}`);
  }
  assert.ok(backoffDelay(100, DEFAULT_BACKOFF, () => 1) <= DEFAULT_BACKOFF.maxMs * 1.3 + 1);
});
