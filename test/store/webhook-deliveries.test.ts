// The deliveries repository on SQLite and PostgreSQL: commit, lane reads in due order, outcomes,
// 410 lane failure, replay requeue, paging, and the retention sweep (driven by a virtual clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics.js';
import { RetentionSweeper } from '../../src/outbox/retention.js';
import { createStore, type Store } from '../../src/store/index.js';
import { dialects } from '../helpers/databases.js';
import { VirtualClock } from '../helpers/virtual-clock.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

async function seed(store: Store, id: string): Promise<void> {
  await store.accounts.create({ id: `acc-${id}`, name: 'a', token_hash: `h-${id}`, created_at: 1 });
  await store.instances.create({
    id,
    account_id: `acc-${id}`,
    name: 'i',
    token_hash: 't',
    status: 'connected',
    status_reason: null,
    status_since: 1,
    phone: '5511999990000',
    lid: null,
    antiban: 0,
    disable_enqueue_when_disconnected: 0,
    list_mode: 'poll',
    notify_sent_by_me: 1,
    webhook_secret: 'whsec_current',
    webhook_secret_previous: 'whsec_old',
    created_at: 1,
    paired_at: 1,
  });
}

async function add(store: Store, instanceId: string, url: string, ids: string[], at: number): Promise<void> {
  await store.deliveries.commit(
    ids.map((id) => ({ id: `e-${id}`, instanceId, type: 'ReceivedCallback', body: JSON.stringify({ n: id }), createdAt: at })),
    ids.map((id) => ({ id, eventId: `e-${id}`, instanceId, kind: 'received', url, createdAt: at })),
  );
}

for (const d of dialects) {
  test(`${d.name}: deliveries — commit, due order, outcomes, lanes, 410, replay, paging`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await seed(store, 'I1');
      await store.webhooks.set('I1', ['received', 'message_status'], 'https://a.example/', 1);
      const ctx = (await store.deliveries.contexts(['I1', 'missing'])).get('I1');
      assert.deepEqual(ctx?.secrets, ['whsec_current', 'whsec_old']);
      assert.equal(ctx?.notifySentByMe, true);
      assert.equal(ctx?.urls.get('received'), 'https://a.example/');

      await add(store, 'I1', 'https://a.example/', ['d1', 'd2', 'd3'], 1000);
      await add(store, 'I1', 'https://b.example/', ['d4'], 1000);
      assert.deepEqual((await store.deliveries.lanes()).map((l) => [l.url, l.nextAttemptAt]).sort(), [['https://a.example/', 1000], ['https://b.example/', 1000]]);

      const due = await store.deliveries.due('I1', 'https://a.example/', 5000, 10);
      assert.deepEqual(due.map((x) => x.id), ['d1', 'd2', 'd3']);
      assert.deepEqual(due[0]?.secrets, ['whsec_current', 'whsec_old']);
      assert.equal(due[0]?.body, '{"n":"d1"}');
      assert.equal(due[0]?.eventId, 'e-d1');

      // d1 retries later, d2 delivered, d3 retried earlier than d1 and then failed for good.
      await store.deliveries.record([
        { id: 'd1', result: 'retrying', httpStatus: 500, error: 'HTTP 500', nextAttemptAt: 9000, at: 2000 },
        { id: 'd2', result: 'delivered', httpStatus: 200, at: 2000 },
        { id: 'd3', result: 'retrying', httpStatus: null, error: 'refused', nextAttemptAt: 7000, at: 2000 },
      ]);
      assert.deepEqual((await store.deliveries.due('I1', 'https://a.example/', 5000, 10)).map((x) => x.id), []);
      assert.equal(await store.deliveries.nextAttemptAt('I1', 'https://a.example/', 5000), 7000);
      assert.deepEqual((await store.deliveries.due('I1', 'https://a.example/', 9500, 10)).map((x) => x.id), ['d3', 'd1'], 'earliest due first');
      await store.deliveries.record([
        { id: 'd3', result: 'failed', httpStatus: 500, error: 'HTTP 500', at: 9600 },
        // Order within one batch is kept: the later outcome of the same delivery wins.
        { id: 'd1', result: 'delivered', httpStatus: 204, at: 9600 },
        { id: 'd1', result: 'retrying', httpStatus: 503, error: 'again', nextAttemptAt: 20_000, at: 9700 },
      ]);
      const d1 = await store.deliveries.find('I1', 'd1');
      assert.equal(d1?.status, 'retrying');
      assert.equal(d1?.attempts, 3);
      const d3 = await store.deliveries.find('I1', 'd3');
      assert.deepEqual([d3?.status, d3?.attempts, d3?.lastStatus, d3?.nextAttemptAt], ['failed', 2, 500, null]);

      // 410 on lane a: everything still to attempt there fails; lane b is untouched.
      assert.equal(await store.deliveries.failLane('I1', 'https://a.example/', 'gone', 10_000), 1);
      assert.equal((await store.deliveries.find('I1', 'd1'))?.status, 'failed');
      assert.equal((await store.deliveries.find('I1', 'd4'))?.status, 'pending');

      // Replay: only a failed delivery, back to attempt 0, at the given URL.
      assert.equal(await store.deliveries.requeue('I1', 'd2', 'https://c.example/', 11_000), false, 'delivered is not requeued');
      assert.equal(await store.deliveries.requeue('I1', 'd3', 'https://c.example/', 11_000), true);
      const r = await store.deliveries.find('I1', 'd3');
      assert.deepEqual([r?.status, r?.attempts, r?.url, r?.nextAttemptAt, r?.lastError], ['pending', 0, 'https://c.example/', 11_000, null]);

      const page1 = await store.deliveries.list('I1', undefined, 0, 2);
      assert.deepEqual(page1.map((x) => x.id), ['d1', 'd2']);
      const page2 = await store.deliveries.list('I1', undefined, page1[1]!.seq, 2);
      assert.deepEqual(page2.map((x) => x.id), ['d3', 'd4']);
      assert.deepEqual((await store.deliveries.list('I1', 'failed', 0, 10)).map((x) => x.id), ['d1']);
      assert.equal(await store.deliveries.find('other', 'd1'), undefined, 'scoped to the instance');
    } finally {
      await t.dispose();
    }
  });

  test(`${d.name}: retention sweeps old failed and delivered deliveries and their events`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await seed(store, 'I1');
      // Time moves only when the test moves it.
      const clock = new VirtualClock({ mode: 'frozen' });
      const now = clock.now();
      const old = now - 8 * DAY;
      await add(store, 'I1', 'https://a.example/', ['old-failed', 'new-failed', 'old-delivered', 'old-pending'], old);
      await store.deliveries.record([
        { id: 'old-failed', result: 'failed', httpStatus: 500, error: 'x', at: old },
        { id: 'new-failed', result: 'failed', httpStatus: 500, error: 'x', at: now },
        { id: 'old-delivered', result: 'delivered', httpStatus: 200, at: old },
      ]);
      const settings = { failedKeepMs: 7 * DAY, deliveredKeepMs: HOUR, sweepEveryMs: HOUR };
      const sweeper = new RetentionSweeper(store.deliveries, clock, createLogger('silent'), createMetrics(false), settings);
      assert.equal(await sweeper.sweep(), 2);
      const left = (await store.deliveries.list('I1', undefined, 0, 10)).map((x) => x.id);
      assert.deepEqual(left, ['new-failed', 'old-pending'], 'young failures and anything still to attempt stay');
      const events = await store.events.listForInstance('I1');
      assert.deepEqual(events.map((e) => e.id).sort(), ['e-new-failed', 'e-old-pending'], 'their events went with them');

      // On its timer: the young failure goes once it is older than 7 days, at the next hourly sweep.
      const onTimer = new RetentionSweeper(store.deliveries, clock, createLogger('silent'), createMetrics(false), settings);
      // The next sweep is timed from the end of the one before: once it is scheduled, time jumps to it.
      const nextSweep = async (): Promise<void> => {
        while (clock.nextAt() === null) await new Promise((r) => setImmediate(r));
        await clock.advanceToNext();
      };
      onTimer.start();
      try {
        await clock.advance(7 * DAY - HOUR);
        assert.ok((await store.deliveries.find('I1', 'new-failed')) !== undefined, 'swept before its 7 days');
        for (let sweeps = 0; (await store.deliveries.find('I1', 'new-failed')) !== undefined; sweeps++) {
          assert.ok(sweeps < 4, 'the failed delivery was not swept after its retention');
          await nextSweep();
        }
        assert.ok(clock.now() - now > 7 * DAY, 'swept only after its 7 days');
      } finally {
        await onTimer.stop();
      }
      assert.equal((await store.deliveries.find('I1', 'old-pending'))?.status, 'pending');
    } finally {
      await t.dispose();
    }
  });
}
