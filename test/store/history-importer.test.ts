// HistoryImporter over a real store (both dialects): what a history set imports for an instance
// depending on its settings — nothing without the opt-in; only the window (and within the retention
// age and per-chat cap); chats' settings from the phone; the webhook only when asked, marked
// fromHistory and once; a set imported again adds nothing.
import assert from 'node:assert/strict';
import type { WAMessage } from 'baileys';
import type { GatewayEvent } from '../../src/events/types.js';
import { HistoryImporter, type HistorySet } from '../../src/sessions/inbound/history-import.js';
import type { IncomingContext } from '../../src/sessions/inbound/incoming.js';
import type { Store } from '../../src/store/index.js';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;
const BOB = '5511900000002';
const CARLA = '5511900000003';
const GROUP = '120363000000000001@g.us';

function message(chat: string, id: string, at: number, fromMe = false, participant?: string): WAMessage {
  return {
    key: { remoteJid: chat, id, fromMe, ...(participant ? { participant } : {}) },
    message: { conversation: `text ${id}` },
    messageTimestamp: Math.floor(at / 1000),
    pushName: fromMe ? null : 'Bob',
  } as WAMessage;
}

const context: IncomingContext = {
  me: { pn: '5511900000001@s.whatsapp.net', lid: null },
  phoneOf: async (jid) => (jid ?? '').split('@')[0]!,
  personOf: async (jid) => ({ phone: (jid ?? '').split('@')[0]!, lid: null }),
  senderJids: async (jid) => (jid ? [jid] : []),
  chatName: async () => '',
  listById: async () => undefined,
  latestList: async () => undefined,
  stored: async () => undefined,
  media: async () => new Map(),
  now: () => NOW,
};

function importer(store: Store, instanceId: string, retention = { maxAgeMs: 365 * DAY, maxPerChat: 0 }) {
  const events: GatewayEvent[] = [];
  const keys: (string | null)[] = [];
  const failures: unknown[] = [];
  const imp = new HistoryImporter({
    instanceId,
    store,
    events: {
      emit: async (_id, e, k) => {
        events.push(...e);
        keys.push(...(k ?? []));
      },
    },
    now: () => NOW,
    context: () => context,
    retention,
    failed: (err) => failures.push(err),
  });
  return { imp, events, keys, failures };
}

function set(): HistorySet {
  const bob = `${BOB}@s.whatsapp.net`;
  const carla = `${CARLA}@s.whatsapp.net`;
  return {
    syncType: 3,
    progress: 100,
    chats: [
      { id: bob, name: 'Bob', unreadCount: 2, archived: true, pinned: Math.floor((NOW - DAY) / 1000), muteEndTime: -1, ephemeralExpiration: 86_400, conversationTimestamp: Math.floor((NOW - DAY) / 1000) },
      // Only old messages: stays out of the list.
      { id: carla, name: 'Carla', unreadCount: 1, conversationTimestamp: Math.floor((NOW - 20 * DAY) / 1000) },
      { id: GROUP, name: 'Team', markedAsUnread: true, conversationTimestamp: Math.floor((NOW - 2 * DAY) / 1000) },
    ],
    contacts: [{ id: bob, name: 'Bob Smith' }, { id: carla, notify: 'carla' }, { id: GROUP, name: 'Team' }],
    messages: [
      message(bob, 'B-old', NOW - 10 * DAY),
      message(bob, 'B1', NOW - 3 * DAY),
      message(bob, 'B2', NOW - 2 * DAY, true),
      message(bob, 'B3', NOW - DAY),
      message(carla, 'C-old', NOW - 20 * DAY),
      message(GROUP, 'G1', NOW - 2 * DAY, false, `${CARLA}@s.whatsapp.net`),
    ],
  };
}

storeTest('history importer: an instance that did not opt in imports nothing', async (store) => {
  const { instanceId } = await seedInstance(store);
  const { imp, events, failures } = importer(store, instanceId);
  imp.take(set());
  await imp.idle();
  assert.deepEqual(failures, [], 'no failure');
  assert.equal((await store.chats.listChats(instanceId, 0, 100)).length, 0, 'no chat');
  assert.equal((await store.chats.listContacts(instanceId, 0, 100)).length, 0, 'no contact');
  assert.equal(events.length, 0, 'no event');
});

storeTest('history importer: the window, the phone\'s chat settings, contacts; no webhook by default; a set again adds nothing', async (store) => {
  const { instanceId } = await seedInstance(store, { history_import: 1, history_days: 7 });
  const { imp, events, failures } = importer(store, instanceId);
  imp.take(set());
  imp.take(set());
  await imp.idle();
  assert.deepEqual(failures, [], 'no failure');
  const chats = await store.chats.listChats(instanceId, 0, 100);
  assert.deepEqual(chats.map((c) => c.chat_id), [BOB, '120363000000000001-group'], 'chats with a message in the window, newest first');
  const bob = chats[0]!;
  assert.deepEqual(
    { last: bob.last_message_id, at: bob.last_message_at, u: bob.unread, a: bob.archived, p: bob.pinned_at, m: bob.muted_until, e: bob.ephemeral, n: bob.name },
    { last: 'B3', at: NOW - DAY, u: 2, a: 1, p: NOW - DAY, m: -1, e: 86_400, n: 'Bob' },
    'as the phone had it (pinned in ms)',
  );
  assert.deepEqual((await store.chats.listMessages(instanceId, BOB, 100)).map((m) => m.message_id), ['B3', 'B2', 'B1'], 'older than 7 days dropped');
  assert.deepEqual({ n: chats[1]!.name, u: chats[1]!.unread }, { n: 'Team', u: -1 }, 'group subject; marked unread on the phone');
  const group = await store.chats.listMessages(instanceId, '120363000000000001-group', 10);
  assert.deepEqual(group.map((m) => [m.message_id, m.sender]), [['G1', CARLA]], 'group message with its author');
  const contacts = await store.chats.listContacts(instanceId, 0, 100);
  assert.deepEqual(contacts.map((c) => [c.phone, c.name, c.notify]), [[BOB, 'Bob Smith', null], [CARLA, null, 'carla']], 'people only, not the group');
  assert.equal(events.length, 0, 'no webhook unless asked');
});

storeTest('history importer: retention age and per-chat cap bound the import', async (store) => {
  const { instanceId } = await seedInstance(store, { history_import: 1, history_days: 30 });
  const { imp } = importer(store, instanceId, { maxAgeMs: 2.5 * DAY, maxPerChat: 1 });
  imp.take(set());
  await imp.idle();
  assert.deepEqual((await store.chats.listMessages(instanceId, BOB, 100)).map((m) => m.message_id), ['B3'], 'the newest one (cap 1) within 2.5 days');
  assert.deepEqual((await store.chats.listChats(instanceId, 0, 100)).map((c) => c.chat_id), [BOB, '120363000000000001-group']);
});

storeTest('history importer with the webhook: new messages reported once, marked fromHistory, keyed by message id', async (store) => {
  const { instanceId } = await seedInstance(store, { history_import: 1, history_days: 7, history_webhook: 1 });
  const { imp, events, keys } = importer(store, instanceId);
  imp.take(set());
  imp.take(set());
  await imp.idle();
  assert.deepEqual(keys.slice().sort(), ['B1', 'B2', 'B3', 'G1'], 'each message of the window once (fromMe filtered later by notify-sent-by-me)');
  assert.ok(events.every((e) => e.type === 'ReceivedCallback' && e.fromHistory === true), 'marked fromHistory');
  const b1 = events.find((e) => e.type === 'ReceivedCallback' && e.messageId === 'B1');
  assert.deepEqual(b1 && b1.type === 'ReceivedCallback' ? { phone: b1.phone, text: b1.text, at: b1.momment } : null, { phone: BOB, text: { message: 'text B1' }, at: NOW - 3 * DAY });
});
