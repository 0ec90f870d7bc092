// History sync at pairing (migration 013 + ChatsRepo.importHistory) on both dialects: the settings'
// defaults, and an import that fills the stored copy without ever overriding what live events wrote,
// reports each message as new once, and changes nothing when a batch comes again.
import assert from 'node:assert/strict';
import type { ChatSeen, HistoryBatch, HistoryChat } from '../../src/store/chats-repo.js';
import type { ChatMessageRow } from '../../src/store/schema.js';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';

const BOB = '5511900000002';

function msg(instanceId: string, id: string, at: number, fromMe = false, chat = BOB): ChatMessageRow {
  return { instance_id: instanceId, chat_id: chat, message_id: id, from_me: fromMe ? 1 : 0, sender: fromMe ? null : chat, at, type: 'text', body: `m ${id}`, media_id: null, status: fromMe ? 'SENT' : 'RECEIVED' };
}

function chat(chatId: string, last: HistoryChat['last'], extra: Partial<HistoryChat> = {}): HistoryChat {
  return { chatId, jid: `${chatId}@s.whatsapp.net`, isGroup: false, name: null, last, unread: 0, archived: false, pinnedAt: 0, mutedUntil: null, ephemeral: null, ...extra };
}

storeTest('history settings: off by default, 7 days, no webhook; stored per instance', async (store) => {
  const { instanceId } = await seedInstance(store);
  let row = await store.instances.findById(instanceId);
  assert.deepEqual({ i: row?.history_import, d: row?.history_days, w: row?.history_webhook }, { i: 0, d: 7, w: 0 }, 'defaults');
  await store.instances.update(instanceId, { history_import: 1, history_days: 30, history_webhook: 1 });
  row = await store.instances.findById(instanceId);
  assert.deepEqual({ i: row?.history_import, d: row?.history_days, w: row?.history_webhook }, { i: 1, d: 30, w: 1 }, 'stored');
});

storeTest('history import: chats, contacts and messages land; a repeated batch changes nothing and reports nothing new', async (store) => {
  const { instanceId } = await seedInstance(store);
  const batch: HistoryBatch = {
    instanceId,
    at: 9_000,
    chats: [
      chat(BOB, { id: 'B2', at: 2_000, fromMe: false }, { name: 'Bob', unread: 2, archived: true, pinnedAt: 1_500, mutedUntil: -1, ephemeral: 604_800 }),
      chat('120363000000000001-group', { id: 'G1', at: 1_000, fromMe: true }, { jid: '120363000000000001@g.us', isGroup: true, name: 'Team' }),
    ],
    contacts: [
      { phone: BOB, patch: { name: 'Bob Smith' } },
      { phone: BOB, patch: { notify: 'bobby' } },
      { phone: '5511900000003', patch: { notify: 'Carla', lid: '77@lid' } },
    ],
    messages: [msg(instanceId, 'B1', 1_500), msg(instanceId, 'B2', 2_000), msg(instanceId, 'G1', 1_000, true, '120363000000000001-group')],
  };
  const fresh = await store.chats.importHistory(batch);
  assert.deepEqual([...fresh].sort(), ['B1', 'B2', 'G1'], 'every message is new the first time');
  const bob = await store.chats.findChat(instanceId, BOB);
  assert.deepEqual(
    { n: bob?.name, last: bob?.last_message_id, at: bob?.last_message_at, u: bob?.unread, a: bob?.archived, p: bob?.pinned_at, m: bob?.muted_until, e: bob?.ephemeral },
    { n: 'Bob', last: 'B2', at: 2_000, u: 2, a: 1, p: 1_500, m: -1, e: 604_800 },
    'the chat as the phone had it',
  );
  assert.deepEqual((await store.chats.listChats(instanceId, 0, 10)).map((c) => c.chat_id), [BOB, '120363000000000001-group'], 'listed newest first');
  const bobContact = await store.chats.findContact(instanceId, BOB);
  assert.deepEqual({ n: bobContact?.name, no: bobContact?.notify }, { n: 'Bob Smith', no: 'bobby' }, 'two entries of one contact merge');
  assert.equal((await store.chats.findContact(instanceId, '5511900000003'))?.lid, '77@lid', 'push-name contact with its LID');

  assert.deepEqual(await store.chats.importHistory(batch), [], 'nothing is new the second time');
  assert.equal((await store.chats.listMessages(instanceId, BOB, 100)).length, 2, 'no duplicate message');
  assert.equal((await store.chats.findChat(instanceId, BOB))?.unread, 2, 'unread not added twice');
});

storeTest('history import never overrides a newer live message, unread state, name or chat setting', async (store) => {
  const { instanceId } = await seedInstance(store);
  const live: ChatSeen = { jid: `${BOB}@s.whatsapp.net`, isGroup: false, name: 'Bob (push)' };
  await store.chats.record({ kind: 'message', message: msg(instanceId, 'L1', 5_000), chat: live, countsUnread: true });
  // A chat the phone archived after pairing (app state), with no message yet.
  await store.chats.record({ kind: 'chat', instanceId, chatId: '5511900000004', jid: '5511900000004@s.whatsapp.net', isGroup: false, patch: { archived: false, unread: 0 }, at: 6_000 });
  await store.chats.putContact(instanceId, BOB, { name: 'Robert' }, 6_000);
  const fresh = await store.chats.importHistory({
    instanceId,
    at: 7_000,
    chats: [
      chat(BOB, { id: 'H1', at: 3_000, fromMe: false }, { name: 'Bob (book)', unread: 9, archived: true }),
      chat('5511900000004', { id: 'H2', at: 4_000, fromMe: true }, { unread: 3, archived: true }),
    ],
    contacts: [{ phone: BOB, patch: { name: 'Bob (book)', notify: 'bobby' } }],
    messages: [msg(instanceId, 'H1', 3_000), msg(instanceId, 'H2', 4_000, true, '5511900000004')],
  });
  assert.deepEqual([...fresh].sort(), ['H1', 'H2']);
  const bob = await store.chats.findChat(instanceId, BOB);
  assert.deepEqual({ last: bob?.last_message_id, at: bob?.last_message_at, u: bob?.unread, n: bob?.name, a: bob?.archived }, { last: 'L1', at: 5_000, u: 1, n: 'Bob (push)', a: 0 }, 'the live chat keeps its newer state');
  assert.deepEqual((await store.chats.listMessages(instanceId, BOB, 10)).map((m) => m.message_id), ['L1', 'H1'], 'the older message is still imported');
  const other = await store.chats.findChat(instanceId, '5511900000004');
  assert.deepEqual({ last: other?.last_message_id, at: other?.last_message_at, u: other?.unread, a: other?.archived }, { last: 'H2', at: 4_000, u: 3, a: 0 }, 'a chat with no message gets the last one; its live setting stays');
  const contact = await store.chats.findContact(instanceId, BOB);
  assert.deepEqual({ n: contact?.name, no: contact?.notify }, { n: 'Robert', no: 'bobby' }, 'contact fields only fill what is empty');
});

storeTest('history import for a deleted instance writes nothing and does not fail', async (store) => {
  const { instanceId } = await seedInstance(store);
  await store.instances.delete(instanceId);
  const fresh = await store.chats.importHistory({ instanceId, at: 1, chats: [chat(BOB, { id: 'X', at: 1, fromMe: false })], contacts: [], messages: [msg(instanceId, 'X', 1)] });
  assert.deepEqual(fresh, [], 'nothing imported');
});

storeTest('history import of a large batch (1,200 messages over 300 chats) in one call', async (store) => {
  const { instanceId } = await seedInstance(store);
  const messages: ChatMessageRow[] = [];
  const chats: HistoryChat[] = [];
  for (let c = 0; c < 300; c++) {
    const id = String(5511800000000 + c);
    for (let m = 0; m < 4; m++) messages.push(msg(instanceId, `c${c}m${m}`, 10_000 + c * 10 + m, false, id));
    chats.push(chat(id, { id: `c${c}m3`, at: 10_000 + c * 10 + 3, fromMe: false }, { unread: 4 }));
  }
  const fresh = await store.chats.importHistory({ instanceId, at: 1, chats, contacts: chats.map((c) => ({ phone: c.chatId, patch: { notify: `n${c.chatId}` } })), messages });
  assert.equal(fresh.length, 1200, 'all new');
  assert.equal((await store.chats.listChats(instanceId, 0, 1000)).length, 300, 'every chat');
  assert.equal((await store.chats.listContacts(instanceId, 0, 1000)).length, 300, 'every contact');
});
