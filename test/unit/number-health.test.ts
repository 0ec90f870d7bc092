// Number health's figures (docs/contract.md §12): ratios from the store's counts, failures by code
// (cancelled and opted-out messages are not the network's doing), first contacts per day, and the
// disconnections read off the status changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disconnectionsOf, perDay, sendFigures } from '../../src/domain/number-health.js';

test('sent, delivered, read and failed with their ratios and reasons', () => {
  const f = sendFigures([
    { state: 'sent', waStatus: 'SENT', errorCode: null, error: null, n: 2 },
    { state: 'sent', waStatus: 'RECEIVED', errorCode: null, error: null, n: 3 },
    { state: 'sent', waStatus: 'READ', errorCode: null, error: null, n: 4 },
    { state: 'sent', waStatus: 'PLAYED', errorCode: null, error: null, n: 1 },
    { state: 'failed', waStatus: null, errorCode: 'NOT_ON_WHATSAPP', error: 'not on WhatsApp', n: 2 },
    { state: 'failed', waStatus: null, errorCode: 'REFUSED', error: 'error 463', n: 1 },
    { state: 'failed', waStatus: null, errorCode: 'CANCELLED', error: 'deleted', n: 7 },
    { state: 'failed', waStatus: null, errorCode: 'OPTED_OUT', error: 'opted out', n: 5 },
  ]);
  assert.deepEqual(f, {
    sent: 10,
    delivered: 8,
    read: 5,
    failed: 3,
    deliveredRatio: 0.8,
    readRatio: 0.5,
    failedRatio: 0.231,
    failures: [
      { code: 'NOT_ON_WHATSAPP', count: 2, reason: 'not on WhatsApp' },
      { code: 'REFUSED', count: 1, reason: 'error 463' },
    ],
  });
  assert.deepEqual(sendFigures([]), { sent: 0, delivered: 0, read: 0, failed: 0, deliveredRatio: null, readRatio: null, failedRatio: null, failures: [] });
});

test('first contacts are counted per day, oldest first, the last entry being today', () => {
  const day = 1000;
  const now = 10_500;
  assert.deepEqual(perDay([10_400, 10_000, 9_600, 9_400, 7_000, 100], now, day, 4), [1, 0, 1, 3]);
});

test('a drop counts once from connected, not its retries, not a new instance, not the restart after pairing', () => {
  const lost = (n: number, at: number) => ({ status: 'connecting', reason: `connection lost: closed (428); reconnecting in ${n} s (attempt ${n})`, at });
  const changes = [
    lost(1, 10), // the window opens mid-connection: counted when the status before it was connected
    { status: 'connecting', reason: 'reconnecting (attempt 1)', at: 11 },
    lost(2, 12),
    { status: 'connected', reason: 'connected to the network', at: 13 },
    { status: 'banned', reason: 'the network refused the account (403)', at: 20 },
  ];
  assert.deepEqual(disconnectionsOf(changes, 'connected'), [
    { status: 'banned', reason: 'the network refused the account (403)', count: 1, last: 20 },
    { status: 'disconnected', reason: 'connection lost: closed (428)', count: 1, last: 10 },
  ]);
  assert.deepEqual(disconnectionsOf(changes.slice(0, 4), null), [], 'not connected before: a failed first connection is no loss');
  const fresh = [
    { status: 'disconnected', reason: 'created', at: 1 },
    { status: 'pairing', reason: 'QR code issued', at: 2 },
    { status: 'connecting', reason: 'restart required by the network', at: 3 },
    { status: 'connected', reason: 'connected to the network', at: 4 },
  ];
  assert.deepEqual(disconnectionsOf(fresh, null), []);
});
