// The receive side's store on SQLite and PostgreSQL: a network message id becomes at most one event
// per instance (in the commit that records it, across batches and within one), ids are kept per
// instance, old ids are pruned; media rows are recorded once, move to stored or failed, expire, and
// the gateway's media key is made once and then shared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, type Store } from '../../src/store/index.js';
import type { NewDelivery } from '../../src/store/deliveries-repo.js';
import { dialects } from '../helpers/databases.js';

async function seed(store: Store, id: string): Promise<void> {
  await store.accounts.create({ id: `acc-${id}`, name: 'a', token_hash: `h-${id}`, created_at: 1 });
  await store.instances.create({
    id,
    account_id: `acc-${id}`,
    name: 'i',
    token_hash: `t-${id}`,
    status: 'connected',
    status_reason: null,
    status_since: 1,
    phone: null,
    lid: null,
    antiban: 0,
    disable_enqueue_when_disconnected: 0,
    list_mode: 'poll',
    notify_sent_by_me: 0,
    webhook_secret: 'whsec_x',
    webhook_secret_previous: null,
    created_at: 1,
    paired_at: 1,
  });
}

function event(id: string, instanceId = 'I1') {
  return { id: `e-${id}`, instanceId, type: 'ReceivedCallback', body: '{}', createdAt: 1 };
}
function delivery(id: string, instanceId = 'I1'): NewDelivery {
  return { id: `d-${id}`, eventId: `e-${id}`, instanceId, kind: 'received', url: 'https://a.example/', createdAt: 1 };
}

for (const d of dialects) {
  test(`${d.name}: a network message id becomes one event per instance, ever`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await seed(store, 'I1');
      await seed(store, 'I2');
      const once = (id: string, messageId: string, instanceId = 'I1', withEvent = true) => ({ instanceId, messageId, eventId: withEvent ? `e-${id}` : null, at: 10 });

      let repeated = await store.deliveries.commit([event('a'), event('b')], [delivery('a'), delivery('b')], [once('a', 'M1'), once('b', 'M2')]);
      assert.deepEqual([...repeated], []);
      // A redelivery of M1 (and M1 twice within one batch), next to a new M3 and M1 on another instance.
      repeated = await store.deliveries.commit(
        [event('c'), event('d'), event('e'), event('f', 'I2')],
        [delivery('c'), delivery('d'), delivery('e'), delivery('f', 'I2')],
        [once('c', 'M1'), once('d', 'M3'), once('e', 'M3'), once('f', 'M1', 'I2')],
      );
      assert.deepEqual([...repeated].sort(), ['e-c', 'e-e']);
      const events = await t.database.db.selectFrom('events').select('id').orderBy('id').execute();
      assert.deepEqual(events.map((e) => e.id), ['e-a', 'e-b', 'e-d', 'e-f']);
      const deliveries = await t.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute();
      assert.deepEqual(deliveries.map((x) => x.id), ['d-a', 'd-b', 'd-d', 'd-f']);
      // An id recorded with no event (no webhook then) still counts as reported.
      await store.deliveries.commit([], [], [once('g', 'M9', 'I1', false)]);
      repeated = await store.deliveries.commit([event('h')], [delivery('h')], [once('h', 'M9')]);
      assert.deepEqual([...repeated], ['e-h']);

      assert.equal(await store.deliveries.pruneOnceKeys(11, 100), 5);
      repeated = await store.deliveries.commit([event('i')], [delivery('i')], [once('i', 'M1')]);
      assert.deepEqual([...repeated], [], 'a pruned id is new again');
    } finally {
      await t.dispose();
    }
  });

  test(`${d.name}: a received message's chat copy and remembered message commit with its event; a redelivery changes nothing; a deleted instance's are dropped`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await seed(store, 'I1');
      const copies = (messageId: string, instanceId = 'I1') => ({
        chats: [
          {
            kind: 'message' as const,
            message: { instance_id: instanceId, chat_id: '5511900000002', message_id: messageId, from_me: 0, sender: '5511900000002', at: 20, type: 'text', body: 'hi', media_id: null, status: 'RECEIVED' },
            chat: { jid: '5511900000002@s.whatsapp.net', isGroup: false, name: 'Ana' },
            countsUnread: true,
          },
        ],
        remembered: [{ instance_id: instanceId, message_id: messageId, remote_jid: '5511900000002@s.whatsapp.net', from_me: 0, participant: null, message: 'AA==', meta: null, created_at: 20 }],
      });
      const once = (id: string, messageId: string) => ({ instanceId: 'I1', messageId, eventId: `e-${id}`, at: 10 });
      await store.deliveries.commit([event('a')], [delivery('a')], [once('a', 'M1')], copies('M1'));
      assert.equal((await store.chats.findChat('I1', '5511900000002'))?.unread, 1, 'the chat counts the message');
      assert.deepEqual((await store.chats.listMessages('I1', '5511900000002', 10)).map((m) => m.message_id), ['M1']);
      assert.equal((await store.waMessages.find('I1', 'M1'))?.message, 'AA==', 'remembered');
      // The network delivers M1 again (its receipt was lost): no second event, and the copy is unchanged.
      const repeated = await store.deliveries.commit([event('b')], [delivery('b')], [once('b', 'M1')], copies('M1'));
      assert.deepEqual([...repeated], ['e-b']);
      assert.equal((await store.chats.findChat('I1', '5511900000002'))?.unread, 1, 'not counted twice');
      // Copies of an instance that no longer exists (deleted while its batch was built) are dropped, not failed.
      await store.deliveries.commit([], [], [], copies('M2', 'GONE'));
      assert.equal(await store.waMessages.find('GONE', 'M2'), undefined);
    } finally {
      await t.dispose();
    }
  });

  test(`${d.name}: media rows — recorded once, stored or failed, expired in order; the media key is made once`, async () => {
    const t = await d.open();
    try {
      const store = createStore(t.database);
      await seed(store, 'I1');
      const row = (id: string, expiresAt: number, stored?: { sha256: string; size: number }) => ({
        id,
        instanceId: 'I1',
        messageId: 'M1',
        kind: 'file',
        mimetype: 'image/png',
        fileName: null,
        ...(stored ? { stored } : {}),
        source: '{"directPath":"/x"}',
        createdAt: 1,
        expiresAt,
      });
      const sha = 'a'.repeat(64);
      await store.media.add([row('F1', 100), row('F2', 50, { sha256: sha, size: 3 })]);
      await store.media.add([row('F1', 999)]);
      assert.equal((await store.media.find('F1'))?.expires_at, 100, 'a redelivered message keeps its row');
      assert.equal((await store.media.find('F1'))?.status, 'pending');
      assert.equal((await store.media.find('F2'))?.status, 'stored');
      await store.media.failed('F1', 'HTTP 500');
      await store.media.failed('F1', 'HTTP 500');
      assert.equal((await store.media.find('F1'))?.attempts, 2);
      await store.media.stored('F1', sha, 3, '{"directPath":"/y"}');
      const f1 = await store.media.find('F1');
      assert.deepEqual([f1?.status, f1?.sha256, f1?.error, f1?.source], ['stored', sha, null, '{"directPath":"/y"}']);
      assert.deepEqual((await store.media.expired(100, 10)).map((r) => r.id), ['F2', 'F1']);
      assert.deepEqual([...(await store.media.addresses())], [sha]);
      await store.media.remove(['F2']);
      assert.equal(await store.media.referenced(sha), true, 'F1 still references the bytes');
      await store.media.remove(['F1']);
      assert.equal(await store.media.referenced(sha), false);

      const k1 = await store.secrets.getOrCreate('media-url-key', () => 'first', 1);
      const k2 = await store.secrets.getOrCreate('media-url-key', () => 'second', 2);
      assert.deepEqual([k1, k2], ['first', 'first']);
    } finally {
      await t.dispose();
    }
  });
}
