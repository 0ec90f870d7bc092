// Campaign notices (migration 029, docs/contract.md §12) on both dialects: a change of a campaign's
// state records one notice per number in its own transaction (a refused change records none); the
// owner of a number reports its notices in order through the real outbox sink, once, even when it
// stopped between the report and the delete; a deleted number takes its notices along. And the
// daily cap's count is answered from campaign_recipients_sent_since alone.
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { OutboxSink } from '../../src/outbox/sink.js';
import { CampaignEvents, campaignNotices } from '../../src/services/campaign-events.js';
import type { Store } from '../../src/store/index.js';
import type { CampaignRow, DB } from '../../src/store/schema.js';
import { instanceRow, messageRow, seedInstance, storeTest, uid } from '../helpers/store-fixtures.js';

const T = 1_800_000_000_000;

async function seedCampaign(store: Store): Promise<{ c: CampaignRow; numbers: string[] }> {
  const { accountId, instanceId: a } = await seedInstance(store, { phone: '5511900000001' });
  const b = instanceRow(accountId, { phone: '5511900000002' });
  await store.instances.create(b);
  const numbers = [a, b.id];
  const c: CampaignRow = {
    id: uid('cmp'), account_id: accountId, name: 'spring', template: 'Hi', instance_ids: JSON.stringify(numbers),
    state: 'draft', settings: '{}', started_at: null, created_at: T, updated_at: T,
  };
  const recipients = Array.from({ length: 6 }, (_, i) => ({
    campaign_id: c.id, position: i + 1, phone: `55119800000${i}`, vars: '{}', instance_id: numbers[i % 2]!,
    state: 'pending' as const, message_id: null, zaap_id: null, queued_at: null,
  }));
  await store.campaigns.create(c, recipients);
  for (const n of numbers) await store.webhooks.set(n, ['received'], `https://${n}.example/`, T);
  return { c, numbers };
}

const silent = createLogger('silent');

storeTest('a campaign change records a notice per number with it; the owner reports them in order, once', async (store) => {
  const { c, numbers } = await seedCampaign(store);
  const [a, b] = numbers as [string, string];
  assert.equal(await store.campaigns.move(c.id, ['draft'], 'running', T, { startedAt: T, notices: campaignNotices(c, 'started', T) }), true);
  // Refused (not a draft any more): neither the change nor a notice.
  assert.equal(await store.campaigns.move(c.id, ['draft'], 'running', T + 1, { notices: campaignNotices(c, 'started', T + 1) }), false);
  assert.equal(await store.campaigns.move(c.id, ['running'], 'paused', T + 2, { notices: campaignNotices(c, 'paused', T + 2) }), true);
  assert.equal(await store.campaigns.move(c.id, ['paused'], 'running', T + 2, { notices: campaignNotices(c, 'resumed', T + 2) }), true);
  assert.deepEqual((await store.campaigns.noticeNumbers()).sort(), [...numbers].sort());
  assert.deepEqual((await store.campaigns.notices(b, 10)).map((n) => n.notification), ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED', 'CAMPAIGN_RESUMED']);

  // The real outbox sink on this store: what a webhook would be sent is what it commits.
  const committed: { instanceId: string; body: Record<string, unknown> }[] = [];
  const sink = new OutboxSink(store.deliveries, systemClock(), (jobs) => committed.push(...jobs.map((j) => ({ instanceId: j.instanceId, body: JSON.parse(j.body) as Record<string, unknown> }))));
  const events = new CampaignEvents({ events: sink, store, log: silent });

  // This node owns only `a`: `b`'s notices wait for its owner.
  assert.equal(await events.deliver((id) => id === a), 3);
  assert.deepEqual(await store.campaigns.noticeNumbers(), [b]);
  assert.deepEqual(committed.map((x) => [x.instanceId, x.body.notification, x.body.notificationParameters]), [
    [a, 'CAMPAIGN_STARTED', [c.id, 'spring']],
    [a, 'CAMPAIGN_PAUSED', [c.id, 'spring']],
    [a, 'CAMPAIGN_RESUMED', [c.id, 'spring']],
  ]);
  const first = committed[0]!.body;
  assert.deepEqual([first.type, first.phone, first.fromMe, first.momment, first.instanceId], ['ReceivedCallback', '5511900000001', true, T, a]);

  // `b`'s owner stops after its events are committed and before the notices are deleted: the next
  // delivery (on any node that then owns `b`) reports nothing twice.
  const stopsBeforeDelete = new CampaignEvents({
    events: sink,
    store: { instances: store.instances, campaigns: { noticeNumbers: () => store.campaigns.noticeNumbers(), notices: (id, n) => store.campaigns.notices(id, n), noticesDone: () => Promise.reject(new Error('killed')) } },
    log: silent,
  });
  await stopsBeforeDelete.deliver(() => true);
  assert.equal(committed.filter((x) => x.instanceId === b).length, 3);
  assert.deepEqual(await store.campaigns.noticeNumbers(), [b], 'still recorded');
  await events.deliver(() => true);
  assert.deepEqual(await store.campaigns.noticeNumbers(), []);
  assert.deepEqual(committed.filter((x) => x.instanceId === b).map((x) => x.body.notification), ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED', 'CAMPAIGN_RESUMED'], 'each once');
  await sink.close();
});

storeTest('a deleted number takes its campaign notices along', async (store) => {
  const { c, numbers } = await seedCampaign(store);
  await store.campaigns.move(c.id, ['draft'], 'cancelled', T, { notices: campaignNotices(c, 'cancelled', T) });
  assert.equal(await store.instances.delete(numbers[0]!), true);
  assert.deepEqual(await store.campaigns.noticeNumbers(), [numbers[1]]);
});

storeTest('the daily cap counts from campaign_recipients_sent_since alone', async (store, dialect) => {
  const { c, numbers } = await seedCampaign(store);
  const a = numbers[0]!;
  await store.campaigns.move(c.id, ['draft'], 'running', T, { startedAt: T });
  const message = (phone: string, id: string) => messageRow(a, { phone, message_id: `m${id}`, zaap_id: `z${id}` });
  // `a` serves recipients 1, 3, 5: two queued on day 1, one on day 2.
  assert.ok(await store.campaigns.enqueue(c.id, '551198000000', message('551198000000', '1'), T));
  assert.ok(await store.campaigns.enqueue(c.id, '551198000002', message('551198000002', '2'), T + 1000));
  assert.ok(await store.campaigns.enqueue(c.id, '551198000004', message('551198000004', '3'), T + 86_400_000));
  assert.equal(await store.campaigns.queuedSince(c.id, a, T), 3);
  assert.equal(await store.campaigns.queuedSince(c.id, a, T + 86_400_000), 1);
  assert.equal(await store.campaigns.queuedSince(c.id, numbers[1]!, T), 0);
  if (dialect !== 'sqlite') return;
  // campaigns-repo.ts queuedSince's query, as `explain query plan` shows the planner's choice.
  const plan = await sql<{ detail: string }>`explain query plan select count(*) as n from campaign_recipients
    where campaign_id = ${c.id} and instance_id = ${a} and state = 'queued' and queued_at >= ${T}`.execute(db(store));
  assert.deepEqual(plan.rows.map((r) => r.detail), ['SEARCH campaign_recipients USING COVERING INDEX campaign_recipients_sent_since (campaign_id=? AND instance_id=? AND state=? AND queued_at>?)']);
});

/** The store's Kysely instance (its repos share one). */
function db(store: Store): Kysely<DB> {
  return (store.campaigns as unknown as { db: Kysely<DB> }).db;
}
