// The chats and contacts routes over real HTTP with no session: listings come from the stored copy
// (so they work offline) with Z-API's field shapes and paging; chat changes are 409 offline; bad
// input is a 400 naming the field and changes nothing; every route is documented with an example.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, type TestGateway, type TestInstance } from '../helpers/gateway.js';

const BOB = '5511900007002';
const BOB_LID = '90000000000001@lid';
const CARLA = '5511900007003';
const GROUP = '120363000000007001-group';

describe('chats and contacts routes with no session', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('chats');
    const chats = g.gateway.store.chats;
    const id = inst.instanceId;
    const text = (chat: string, mid: string, at: number, fromMe = false) => ({
      instance_id: id, chat_id: chat, message_id: mid, from_me: fromMe ? 1 : 0, sender: fromMe ? null : chat, at, type: 'text', body: mid, media_id: null, status: 'RECEIVED',
    });
    await Promise.all([
      chats.record({ kind: 'message', message: text(BOB, 'B1', 1_700_000_001_000), chat: { jid: `${BOB}@s.whatsapp.net`, isGroup: false, name: 'Bob' }, countsUnread: true }),
      chats.record({ kind: 'message', message: text(BOB, 'B2', 1_700_000_002_000), chat: { jid: `${BOB}@s.whatsapp.net`, isGroup: false, name: 'Bob' }, countsUnread: true }),
      chats.record({ kind: 'message', message: text(CARLA, 'C1', 1_700_000_003_000, true), chat: { jid: `${CARLA}@s.whatsapp.net`, isGroup: false, name: null }, countsUnread: false }),
      chats.record({ kind: 'chat', instanceId: id, chatId: GROUP, jid: '120363000000007001@g.us', isGroup: true, patch: { name: 'Team', archived: true, mutedUntil: -1 }, at: 1 }),
      chats.record({ kind: 'contact', instanceId: id, phone: BOB, patch: { notify: 'Bob', lid: BOB_LID }, at: 1 }),
      chats.record({ kind: 'contact', instanceId: id, phone: CARLA, patch: { notify: 'Carla', name: 'Carla Souza', short: 'Carla' }, at: 1 }),
    ]);
  });
  after(() => g.close());

  test('GET /chats: newest first, Z-API fields (flags as strings, times in ms)', async () => {
    const r = await g.request('GET', `${inst.prefix}/chats?page=1&pageSize=10`);
    assert.equal(r.status, 200, r.text);
    const list = r.body as Record<string, unknown>[];
    assert.deepEqual(list.map((c) => c.phone), [CARLA, BOB, GROUP]);
    assert.deepEqual(list[1], {
      phone: BOB, lid: BOB_LID, name: 'Bob', isGroup: false, archived: 'false', pinned: 'false', unread: '2', messagesUnread: 2,
      lastMessageTime: '1700000002000', lastMessageId: 'B2', isMuted: '0', muteEndTime: null, isMarkedSpam: 'false', isGroupAnnouncement: false,
      lastMessage: { type: 'text', body: 'B2', fromMe: false },
    });
    assert.deepEqual(list[0]?.lastMessage, { type: 'text', body: 'C1', fromMe: true }, 'our own last message');
    assert.equal(list[2]?.lastMessage, null, 'a chat with no stored message');
    assert.equal(list[0]?.unread, '0', 'a chat we wrote last has nothing unread');
    assert.deepEqual([list[2]?.name, list[2]?.isGroup, list[2]?.archived, list[2]?.isMuted, list[2]?.muteEndTime], ['Team', true, 'true', '1', -1]);
    assert.deepEqual([list[0]?.lid, list[2]?.lid], [null, null], 'no LID known for Carla; a group has none');
  });

  test('GET /chats pages: page 2 of size 2 is the third chat; past the end is empty; defaults apply', async () => {
    const p2 = await g.request('GET', `${inst.prefix}/chats?page=2&pageSize=2`);
    assert.deepEqual((p2.body as { phone: string }[]).map((c) => c.phone), [GROUP]);
    const p9 = await g.request('GET', `${inst.prefix}/chats?page=9&pageSize=2`);
    assert.deepEqual(p9.body, []);
    const all = await g.request('GET', `${inst.prefix}/chats`);
    assert.equal((all.body as unknown[]).length, 3, 'no query: page 1 of 100');
  });

  test('GET /chats/{phone}: the chat\'s metadata; an unknown chat is 404', async () => {
    const r = await g.request('GET', `${inst.prefix}/chats/+55 11 90000-7002`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.phone, BOB, 'the number normalised');
    assert.equal(r.json.unread, '2');
    assert.equal(r.json.profileThumbnail, null);
    assert.equal((await g.request('GET', `${inst.prefix}/chats/${GROUP}`)).json.name, 'Team');
    expectError(await g.request('GET', `${inst.prefix}/chats/5511900007999`), 404, 'Chat not found');
    expectError(await g.request('GET', `${inst.prefix}/chats/abc`), 400, 'Invalid request', /^phone: /);
  });

  test('GET /contacts and GET /contacts/{phone} (offline: the stored contact, else 409)', async () => {
    const r = await g.request('GET', `${inst.prefix}/contacts?page=1&pageSize=50`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, [
      { phone: BOB, lid: BOB_LID, name: null, short: null, notify: 'Bob', vname: null },
      { phone: CARLA, lid: null, name: 'Carla Souza', short: 'Carla', notify: 'Carla', vname: null },
    ]);
    const one = await g.request('GET', `${inst.prefix}/contacts/${CARLA}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.json, { phone: CARLA, name: 'Carla Souza', short: 'Carla', notify: 'Carla', imgUrl: null, about: null });
    expectError(await g.request('GET', `${inst.prefix}/contacts/5511900007999`), 409, 'Instance not connected');
    expectError(await g.request('GET', `${inst.prefix}/contacts/${GROUP}`), 400, 'Invalid request', /^phone: /);
  });

  test('paging validation → 400 naming the field', async () => {
    for (const q of ['page=0', 'page=x', 'pageSize=0', 'pageSize=1001', 'pageSize=-1']) {
      expectError(await g.request('GET', `${inst.prefix}/chats?${q}`), 400, 'Invalid request', new RegExp(`^${q.split('=')[0]!}`));
      expectError(await g.request('GET', `${inst.prefix}/contacts?${q}`), 400, 'Invalid request', new RegExp(`^${q.split('=')[0]!}`));
    }
  });

  test('POST /modify-chat: bad input → 400 and nothing changed; offline → 409 and nothing changed', async () => {
    const before = await g.request('GET', `${inst.prefix}/chats`);
    expectError(await g.request('POST', `${inst.prefix}/modify-chat`, { body: { phone: BOB, action: 'explode' } }), 400, 'Invalid request', /^action/);
    expectError(await g.request('POST', `${inst.prefix}/modify-chat`, { body: { action: 'archive' } }), 400, 'Invalid request', /^phone/);
    expectError(await g.request('POST', `${inst.prefix}/modify-chat`, { body: { phone: 'nope', action: 'archive' } }), 400, 'Invalid request', /^phone: /);
    for (const action of ['archive', 'pin', 'mute', 'read', 'unread', 'clear', 'delete']) {
      expectError(await g.request('POST', `${inst.prefix}/modify-chat`, { body: { phone: BOB, action } }), 409, 'Instance not connected');
    }
    assert.deepEqual((await g.request('GET', `${inst.prefix}/chats`)).body, before.body, 'the stored chats are as they were');
  });

  test('GET /chat-messages/{phone}: newest first from the copy, paged by lastMessageId, offline too', async () => {
    const r = await g.request('GET', `${inst.prefix}/chat-messages/${BOB}`);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, [
      { messageId: 'B2', phone: BOB, fromMe: false, participantPhone: null, momment: 1_700_000_002_000, type: 'text', body: 'B2', status: 'RECEIVED', mediaUrl: null },
      { messageId: 'B1', phone: BOB, fromMe: false, participantPhone: null, momment: 1_700_000_001_000, type: 'text', body: 'B1', status: 'RECEIVED', mediaUrl: null },
    ]);
    const next = await g.request('GET', `${inst.prefix}/chat-messages/${BOB}?amount=1&lastMessageId=B2`);
    assert.deepEqual((next.body as { messageId: string }[]).map((m) => m.messageId), ['B1']);
    expectError(await g.request('GET', `${inst.prefix}/chat-messages/5511900007999`), 404, 'Chat not found');
    expectError(await g.request('GET', `${inst.prefix}/chat-messages/${BOB}?amount=0`), 400, 'Invalid request', /^amount/);
  });

  test('GET /chat-messages/{phone}: a received file is linked (signed) while it is kept, not after', async () => {
    const DORA = '5511900007004';
    const id = inst.instanceId;
    const now = Date.now();
    const image = (mid: string, at: number) => ({
      instance_id: id, chat_id: DORA, message_id: mid, from_me: 0, sender: DORA, at, type: 'image', body: 'a photo', media_id: `${id}.${mid}.file`, status: 'RECEIVED',
    });
    const chat = { jid: `${DORA}@s.whatsapp.net`, isGroup: false, name: 'Dora' };
    await g.gateway.store.chats.record({ kind: 'message', message: image('D1', now - 2000), chat, countsUnread: true });
    await g.gateway.store.chats.record({ kind: 'message', message: image('D2', now - 1000), chat, countsUnread: true });
    const file = (mid: string, expiresAt: number) => ({ id: `${id}.${mid}.file`, instanceId: id, messageId: mid, kind: 'file', mimetype: 'image/png', fileName: null, source: '{}', createdAt: now, expiresAt });
    await g.gateway.store.media.add([file('D1', now - 1), file('D2', now + 3_600_000)]);
    const r = await g.request('GET', `${inst.prefix}/chat-messages/${DORA}`);
    assert.equal(r.status, 200, r.text);
    const [kept, gone] = r.body as { messageId: string; mediaUrl: string | null }[];
    assert.equal(kept?.messageId, 'D2');
    assert.match(String(kept?.mediaUrl), new RegExp(`/media/${id}\\.D2\\.file\\?exp=${Math.floor((now + 3_600_000) / 1000)}&sig=[\\w-]+$`), 'signed, expiring with the file');
    // The link is the media route's own: accepted (not 403), though this gateway has no engine to fetch the file.
    const served = await g.request('GET', new URL(String(kept?.mediaUrl)).pathname + new URL(String(kept?.mediaUrl)).search, { token: null });
    assert.notEqual(served.status, 403, served.text);
    assert.equal(gone?.mediaUrl, null, 'past its retention: no link');
    assert.deepEqual((await g.request('GET', `${inst.prefix}/chats/${DORA}`)).json.lastMessage, { type: 'image', body: 'a photo', fromMe: false });
  });

  test('POST /contacts/add and DELETE /contacts/remove: bad input → 400 before anything; offline → 409', async () => {
    const before = await g.request('GET', `${inst.prefix}/contacts`);
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: [] }), 400, 'Invalid request');
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: [{ phone: BOB }] }), 400, 'Invalid request', /firstName/);
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: [{ firstName: 'A', phone: BOB }, { firstName: 'B', phone: 'abc' }] }), 400, 'Invalid request', /^\[1\]\.phone: /);
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: [{ firstName: 'G', phone: GROUP }] }), 400, 'Invalid request', /must be a phone number/);
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: Array.from({ length: 51 }, () => ({ firstName: 'A', phone: BOB })) }), 400, 'Invalid request');
    expectError(await g.request('DELETE', `${inst.prefix}/contacts/remove`, { body: ['5511'] }), 400, 'Invalid request', /^\[0\]: /);
    expectError(await g.request('POST', `${inst.prefix}/contacts/add`, { body: [{ firstName: 'Bob', phone: BOB }] }), 409, 'Instance not connected');
    expectError(await g.request('DELETE', `${inst.prefix}/contacts/remove`, { body: [BOB] }), 409, 'Instance not connected');
    assert.deepEqual((await g.request('GET', `${inst.prefix}/contacts`)).body, before.body, 'the stored contacts are as they were');
  });

  test('every chats/contacts route is in /openapi.json with a description and an example', async () => {
    const doc = (await g.request('GET', '/openapi.json')).json as { paths: Record<string, Record<string, { description?: string; parameters?: unknown[]; requestBody?: unknown }>> };
    const prefix = '/instances/{instanceId}/token/{instanceToken}';
    for (const [method, path] of [['get', '/chats'], ['get', '/chats/{phone}'], ['post', '/modify-chat'], ['get', '/contacts'], ['get', '/contacts/{phone}'], ['get', '/chat-messages/{phone}'], ['post', '/contacts/add'], ['delete', '/contacts/remove']] as const) {
      const op = doc.paths[`${prefix}${path}`]?.[method];
      assert.ok(op, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(op.description, `${method.toUpperCase()} ${path} has a description`);
      assert.match(JSON.stringify(op), /example/, `${method.toUpperCase()} ${path} has an example`);
    }
  });
});
