// Migration 010 on both dialects: the stored copy of the account (chats, contacts, recent messages)
// as the engine feeds it and the API reads it — last message and unread counts, replays that change
// nothing, chat settings, contacts merged field by field, paging order, and both retention sweeps.
import assert from 'node:assert/strict';
import type { ChatSeen } from '../../src/store/chats-repo.js';
import type { ChatMessageRow } from '../../src/store/schema.js';
import { seedInstance, storeTest } from '../helpers/store-fixtures.js';

const BOB: ChatSeen = { jid: '5511900000002@s.whatsapp.net', isGroup: false, name: 'Bob' };

function msg(instanceId: string, id: string, at: number, fromMe = false, chat = '5511900000002'): ChatMessageRow {
  return { instance_id: instanceId, chat_id: chat, message_id: id, from_me: fromMe ? 1 : 0, sender: fromMe ? null : chat, at, type: 'text', body: `m ${id}`, media_id: null, status: fromMe ? 'SENT' : 'RECEIVED' };
}

storeTest('chats: received messages count unread, a reply reads the chat, the newest is the last message; a replay changes nothing', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  await Promise.all([
    chats.record({ kind: 'message', message: msg(instanceId, 'A', 1000), chat: BOB, countsUnread: true }),
    chats.record({ kind: 'message', message: msg(instanceId, 'B', 2000), chat: BOB, countsUnread: true }),
    // A late, older message (catch-up) counts but is not the last one.
    chats.record({ kind: 'message', message: msg(instanceId, 'C', 1500), chat: BOB, countsUnread: true }),
  ]);
  let chat = await chats.findChat(instanceId, '5511900000002');
  assert.ok(chat, 'the chat was created by its first message');
  assert.deepEqual({ unread: chat.unread, last: chat.last_message_id, at: chat.last_message_at, name: chat.name }, { unread: 3, last: 'B', at: 2000, name: 'Bob' });
  await chats.record({ kind: 'message', message: msg(instanceId, 'B', 2000), chat: BOB, countsUnread: true });
  assert.equal((await chats.findChat(instanceId, '5511900000002'))?.unread, 3, 'the same message again is not counted twice');
  await chats.record({ kind: 'message', message: msg(instanceId, 'D', 3000, true), chat: { ...BOB, name: null }, countsUnread: false });
  chat = await chats.findChat(instanceId, '5511900000002');
  assert.deepEqual({ unread: chat?.unread, last: chat?.last_message_id, fromMe: chat?.last_message_from_me, name: chat?.name }, { unread: 0, last: 'D', fromMe: 1, name: 'Bob' });
  await chats.record({ kind: 'status', instanceId, ids: ['D'], status: 'READ' });
  assert.equal((await chats.lastMessage(instanceId, '5511900000002'))?.status, 'READ', 'status follows the network');
  assert.deepEqual((await chats.listMessages(instanceId, '5511900000002', 10)).map((m) => m.message_id), ['D', 'B', 'C', 'A']);
});

storeTest('chats: settings patch an existing chat or create one; listing pages by last message time', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  for (let i = 0; i < 5; i++) {
    await chats.record({ kind: 'message', message: msg(instanceId, `m${i}`, 1000 + i, false, `55119000000${10 + i}`), chat: { jid: `55119000000${10 + i}@s.whatsapp.net`, isGroup: false, name: null }, countsUnread: true });
  }
  await chats.patchChat(instanceId, '5511900000012', '5511900000012@s.whatsapp.net', { archived: true, pinnedAt: 77, mutedUntil: -1 }, 5000);
  await chats.record({ kind: 'chat', instanceId, chatId: '120363000000000001-group', jid: '120363000000000001@g.us', isGroup: true, patch: { name: 'Team', unread: -1 }, at: 6000 });
  const page1 = await chats.listChats(instanceId, 0, 3);
  const page2 = await chats.listChats(instanceId, 3, 3);
  assert.deepEqual(page1.map((c) => c.chat_id), ['5511900000014', '5511900000013', '5511900000012']);
  assert.deepEqual(page2.map((c) => c.chat_id), ['5511900000011', '5511900000010', '120363000000000001-group'], 'a chat with no message yet comes last');
  const patched = page1[2]!;
  assert.deepEqual({ a: patched.archived, p: patched.pinned_at, m: patched.muted_until, u: patched.unread }, { a: 1, p: 77, m: -1, u: 1 }, 'patched fields only');
  const group = page2[2]!;
  assert.deepEqual({ g: group.is_group, n: group.name, u: group.unread, at: group.last_message_at }, { g: 1, n: 'Team', u: -1, at: 0 });
  await chats.patchChat(instanceId, '5511900000012', '5511900000012@s.whatsapp.net', { archived: false, mutedUntil: null }, 7000);
  const again = await chats.findChat(instanceId, '5511900000012');
  assert.deepEqual({ a: again?.archived, p: again?.pinned_at, m: again?.muted_until }, { a: 0, p: 77, m: null });
  await chats.clearChat(instanceId, '5511900000012');
  assert.equal((await chats.listMessages(instanceId, '5511900000012', 10)).length, 0, 'cleared');
  assert.ok(await chats.findChat(instanceId, '5511900000012'), 'a cleared chat stays');
  await chats.deleteChat(instanceId, '5511900000013');
  assert.equal(await chats.findChat(instanceId, '5511900000013'), undefined, 'a deleted chat is gone');
  assert.equal((await chats.listMessages(instanceId, '5511900000013', 10)).length, 0, 'with its messages');
});

storeTest('contacts: fields merge one by one; listing by phone', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  await chats.record({ kind: 'contact', instanceId, phone: '5511900000003', patch: { notify: 'Carla' }, at: 1 });
  await chats.record({ kind: 'contact', instanceId, phone: '5511900000002', patch: { notify: 'Bob', lid: '123@lid' }, at: 2 });
  await chats.putContact(instanceId, '5511900000002', { name: 'Bob Smith', short: 'Bob S' }, 3);
  await chats.putContact(instanceId, '5511900000002', { imgUrl: 'https://pps.example/x', imgFetchedAt: 4 }, 4);
  const bob = await chats.findContact(instanceId, '5511900000002');
  assert.deepEqual(
    { n: bob?.name, s: bob?.short, no: bob?.notify, l: bob?.lid, i: bob?.img_url, f: bob?.img_fetched_at, b: bob?.blocked },
    { n: 'Bob Smith', s: 'Bob S', no: 'Bob', l: '123@lid', i: 'https://pps.example/x', f: 4, b: 0 },
  );
  assert.deepEqual((await chats.listContacts(instanceId, 0, 10)).map((c) => c.phone), ['5511900000002', '5511900000003']);
  assert.deepEqual((await chats.listContacts(instanceId, 1, 10)).map((c) => c.phone), ['5511900000003']);
});

storeTest('chats retention: by age in slices, and the newest N per chat', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  const writes = [];
  for (let i = 0; i < 30; i++) writes.push(chats.record({ kind: 'message', message: msg(instanceId, `a${i}`, 1000 + i), chat: BOB, countsUnread: true }));
  for (let i = 0; i < 5; i++) writes.push(chats.record({ kind: 'message', message: msg(instanceId, `b${i}`, 1000 + i, false, '5511900000009'), chat: { ...BOB, jid: '5511900000009@s.whatsapp.net' }, countsUnread: true }));
  await Promise.all(writes);
  assert.equal(await chats.pruneOlderThan(1010, 4), 10 + 5, 'everything before 1010, four rows per statement');
  assert.equal(await chats.prunePerChat(8), 20 - 8, 'the chat over the cap keeps its newest 8');
  assert.deepEqual((await chats.listMessages(instanceId, '5511900000002', 100)).map((m) => m.message_id), ['a29', 'a28', 'a27', 'a26', 'a25', 'a24', 'a23', 'a22']);
  assert.equal((await chats.findChat(instanceId, '5511900000002'))?.last_message_id, 'a29', 'the chat row keeps its last message');
});

storeTest('chats: writes for a deleted instance are dropped, the batch still commits', async (store) => {
  const { instanceId } = await seedInstance(store);
  const other = await seedInstance(store);
  await store.instances.delete(other.instanceId);
  await Promise.all([
    store.chats.record({ kind: 'message', message: msg(other.instanceId, 'X', 1), chat: BOB, countsUnread: true }),
    store.chats.record({ kind: 'message', message: msg(instanceId, 'Y', 1), chat: BOB, countsUnread: true }),
  ]);
  assert.equal((await store.chats.findChat(instanceId, '5511900000002'))?.last_message_id, 'Y', 'the live instance was written');
});

storeTest('chats: importMessages loads many rows in multi-row statements and skips ones already stored', async (store) => {
  const { instanceId } = await seedInstance(store);
  const rows = Array.from({ length: 2500 }, (_, i) => msg(instanceId, `i${i}`, 10_000 + i));
  await store.chats.importMessages(rows.slice(0, 1200));
  await store.chats.importMessages(rows);
  const newest = await store.chats.listMessages(instanceId, '5511900000002', 5000);
  assert.equal(newest.length, 2500, 'every row once');
  assert.equal(newest[0]?.message_id, 'i2499', 'newest first');
  assert.equal(await store.chats.findChat(instanceId, '5511900000002'), undefined, 'chats are not touched by an import');
});

storeTest('chats: an edit replaces the text, a revoke drops the content; only that message of that chat', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  await chats.record({ kind: 'message', message: { ...msg(instanceId, 'A', 1000), media_id: 'f1', type: 'image' }, chat: BOB, countsUnread: true });
  await chats.record({ kind: 'message', message: msg(instanceId, 'B', 2000), chat: BOB, countsUnread: true });
  await chats.record({ kind: 'message', message: msg(instanceId, 'B', 2000, false, '5511900000003'), chat: { ...BOB, jid: '5511900000003@s.whatsapp.net' }, countsUnread: true });
  await chats.record({ kind: 'edit', instanceId, chatId: '5511900000002', messageId: 'B', body: 'edited' });
  await chats.record({ kind: 'revoke', instanceId, chatId: '5511900000002', messageId: 'A' });
  const rows = await chats.listMessages(instanceId, '5511900000002', 10);
  assert.deepEqual(rows.map((m) => [m.message_id, m.type, m.body, m.media_id]), [['B', 'text', 'edited', null], ['A', 'revoked', null, null]]);
  assert.equal((await chats.listMessages(instanceId, '5511900000003', 10))[0]?.body, 'm B', 'the same id in another chat is untouched');
});

storeTest('chats: read on the phone leaves unread = received messages after the newest read one; unknown ids change nothing', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  for (const [id, at] of [['A', 1000], ['B', 2000], ['C', 3000]] as const) await chats.record({ kind: 'message', message: msg(instanceId, id, at), chat: BOB, countsUnread: true });
  await chats.record({ kind: 'read', instanceId, chatId: '5511900000002', ids: ['nope'] });
  assert.equal((await chats.findChat(instanceId, '5511900000002'))?.unread, 3, 'an id not stored changes nothing');
  await chats.record({ kind: 'read', instanceId, chatId: '5511900000002', ids: ['A', 'B'] });
  assert.equal((await chats.findChat(instanceId, '5511900000002'))?.unread, 1, 'C is still unread');
  await chats.record({ kind: 'read', instanceId, chatId: '5511900000002', ids: ['C'] });
  assert.equal((await chats.findChat(instanceId, '5511900000002'))?.unread, 0);
});

storeTest('chats: listMessages pages with a message id as cursor, same-millisecond messages neither skipped nor repeated', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  for (const [id, at] of [['A', 1000], ['B', 2000], ['C', 2000], ['D', 3000]] as const) await chats.record({ kind: 'message', message: msg(instanceId, id, at), chat: BOB, countsUnread: true });
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 10; i++) {
    const page = await chats.listMessages(instanceId, '5511900000002', 1, cursor);
    if (page.length === 0) break;
    seen.push(page[0]!.message_id);
    cursor = page[0]!.message_id;
  }
  assert.deepEqual(seen, ['D', 'C', 'B', 'A']);
  assert.deepEqual(await chats.listMessages(instanceId, '5511900000002', 10, 'unknown'), [], 'an unknown cursor answers nothing');
});

storeTest('chats: a LID\'s number learned later merges the LID chat, its messages, labels and contact into the number\'s; a repeat changes nothing', async (store) => {
  const { instanceId } = await seedInstance(store);
  const chats = store.chats;
  const LID = '364298416926543@lid';
  const PHONE = '5511900000002';
  const lidSeen: ChatSeen = { jid: LID, isGroup: false, name: 'Bea' };
  // Written while the number was hidden: two unread under the LID, one of them also under the number (a replay).
  await chats.record({ kind: 'message', message: msg(instanceId, 'L1', 1000, false, LID), chat: lidSeen, countsUnread: true });
  await chats.record({ kind: 'message', message: msg(instanceId, 'L2', 3000, false, LID), chat: lidSeen, countsUnread: true });
  await chats.record({ kind: 'message', message: msg(instanceId, 'P1', 2000), chat: { ...BOB, name: null }, countsUnread: true });
  await chats.record({ kind: 'message', message: msg(instanceId, 'L1', 1000), chat: { ...BOB, name: null }, countsUnread: true });
  await chats.putContact(instanceId, LID, { notify: 'Bea' }, 1000);
  await chats.record({ kind: 'person', instanceId, phone: PHONE, lid: LID, at: 4000 });
  assert.equal(await chats.findChat(instanceId, LID), undefined, 'no chat left under the LID');
  const merged = await chats.findChat(instanceId, PHONE);
  assert.deepEqual({ unread: merged?.unread, last: merged?.last_message_id, at: merged?.last_message_at, name: merged?.name }, { unread: 4, last: 'L2', at: 3000, name: 'Bea' });
  assert.deepEqual((await chats.listMessages(instanceId, PHONE, 10)).map((m) => m.message_id), ['L2', 'P1', 'L1'], 'one copy of each message, under the number');
  assert.deepEqual((await chats.listMessages(instanceId, LID, 10)).length, 0);
  const contact = await chats.findContact(instanceId, PHONE);
  assert.deepEqual({ lid: contact?.lid, notify: contact?.notify }, { lid: LID, notify: 'Bea' }, 'the contact under the number, with its LID');
  assert.equal(await chats.findContact(instanceId, LID), undefined);
  await chats.record({ kind: 'person', instanceId, phone: PHONE, lid: LID, at: 5000 });
  assert.equal((await chats.findChat(instanceId, PHONE))?.unread, 4, 'learning it again changes nothing');
});
