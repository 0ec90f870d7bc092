// Listings are bounded in bytes as well as rows: a page of webhook deliveries ends
// once its payloads reach 4 MiB, says where to go on, and always holds at least one delivery.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock } from '../../src/clock.js';
import { WebhookDeliveriesService, type ReplayStore } from '../../src/outbox/replay.js';
import type { DeliveryRecord } from '../../src/store/deliveries-repo.js';

function record(seq: number, chars: number): DeliveryRecord {
  return {
    seq,
    id: `d${seq}`,
    eventId: `e${seq}`,
    type: 'ReceivedCallback',
    kind: 'received',
    url: 'https://hooks.example.com/x',
    status: 'delivered',
    attempts: 1,
    nextAttemptAt: null,
    lastStatus: 200,
    lastError: null,
    createdAt: 1,
    updatedAt: 1,
    body: JSON.stringify({ text: 'x'.repeat(chars) }),
  };
}

test('a page of webhook deliveries ends at 4 MiB of payloads, with a pagingState; one huge delivery still lists', async () => {
  const rows = Array.from({ length: 200 }, (_, i) => record(i + 1, 60_000));
  const store = {
    list: async (_id: string, _status: unknown, after: number, limit: number) => rows.filter((r) => r.seq > after).slice(0, limit),
  } as unknown as ReplayStore;
  const service = new WebhookDeliveriesService(store, systemClock(), () => {});
  const first = await service.list('i', undefined, 1000, null);
  const chars = first.deliveries.reduce((n, d) => n + JSON.stringify(d.payload).length, 0);
  assert.ok(first.deliveries.length > 0 && first.deliveries.length < 200, `ended early: ${first.deliveries.length}`);
  assert.ok(chars <= 4 * 1024 * 1024, `within the budget: ${chars}`);
  assert.equal(first.pagingState, String(first.deliveries.at(-1)?.id.slice(1)), 'goes on after the last listed');
  let total = first.deliveries.length;
  for (let state: string | null = first.pagingState, guard = 0; state !== null && guard < 20; guard++) {
    const next = await service.list('i', undefined, 1000, state);
    total += next.deliveries.length;
    state = next.pagingState;
  }
  assert.equal(total, 200, 'every delivery reachable by paging');

  rows.splice(0, rows.length, record(1, 5 * 1024 * 1024), record(2, 10));
  const huge = await service.list('i', undefined, 1000, null);
  assert.equal(huge.deliveries.length, 1, 'one delivery over the budget still lists, alone');
  assert.equal(huge.pagingState, '1');
});
