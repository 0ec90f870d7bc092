// The stored copy of the account end to end: HTTP → services → Baileys → simnet, one pairing.
// Messages exchanged show in GET /chats with their last message and unread counts; contacts who
// wrote are listed with their push names; modify-chat reaches the phone (simnet reads the app-state
// patch) and the listing; a chat archived on the phone reads archived; retention prunes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900008001';
const CARLA = '5511900008003';
const DAN = '5511900008004';

type ChatJson = Record<string, unknown> & { phone: string };

describe('engine chats: the stored copy of chats, contacts and messages (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;

  before(async () => {
    h = await startHarness({ env: { ZAPGATE_CHAT_MESSAGES_PER_CHAT: '3' } });
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: DAN, pushName: 'Dan' });
    inst = await h.pairNew(OWNER, 'chats');
  });
  after(async () => {
    await h?.close();
  });

  const chats = async (): Promise<ChatJson[]> => JSON.parse((await h.call('GET', `${inst.prefix}/chats?page=1&pageSize=100`)).body.toString()) as ChatJson[];
  const chat = async (phone: string): Promise<ChatJson | undefined> => (await chats()).find((c) => c.phone === phone);
  const modify = (phone: string, action: string) => h.call('POST', `${inst.prefix}/modify-chat`, { phone, action });

  test('received messages: the chat\'s last message, unread count and name; contacts with push names', async () => {
    await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'hi there' });
    // Message times are in seconds on the network: a second apart on its clock, so "the last one" is defined.
    await h.clock.advance(1_100);
    const second = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'are you open today?' });
    const fromDan = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'hello' });
    const carla = await until('Carla\'s chat with both messages', () => chat(CARLA), (c) => c?.lastMessageId === second.messageId && c.unread === '2');
    assert.equal(carla?.name, 'Carla', 'named by the push name');
    assert.equal(carla?.isGroup, false);
    assert.equal(carla?.archived, 'false');
    assert.ok(Number(carla?.lastMessageTime) > 1_600_000_000_000, `lastMessageTime in ms: ${String(carla?.lastMessageTime)}`);
    const dan = await until('Dan\'s chat', () => chat(DAN), (c) => c?.lastMessageId === fromDan.messageId);
    assert.equal(dan?.unread, '1', 'one unread');
    const list = await h.call('GET', `${inst.prefix}/contacts?page=1&pageSize=50`);
    assert.equal(list.status, 200, list.body.toString());
    const contacts = JSON.parse(list.body.toString()) as Record<string, unknown>[];
    assert.deepEqual(
      contacts.filter((c) => c.phone === CARLA || c.phone === DAN).map((c) => [c.phone, c.notify]),
      [[CARLA, 'Carla'], [DAN, 'Dan']],
      'the contacts who wrote, with their push names',
    );
  });

  test('a message sent through the API becomes the last message and reads the chat', async () => {
    const sent = await h.call('POST', `${inst.prefix}/send-text`, { phone: CARLA, message: 'yes, until 6pm' });
    assert.equal(sent.status, 200, sent.body.toString());
    await h.sendQueued(inst);
    const id = String(sent.json.messageId);
    await h.admin.waitForReceived(CARLA, (m) => m.id === id || JSON.stringify(m).includes('until 6pm'));
    const c = await until('the sent message as the last one', () => chat(CARLA), (x) => x?.lastMessageId === id);
    assert.equal(c?.unread, '0', 'writing in a chat reads it');
    const meta = await h.call('GET', `${inst.prefix}/chats/${CARLA}`);
    assert.equal(meta.status, 200, meta.body.toString());
    assert.equal(meta.json.lastMessageId, id, 'GET /chats/{phone} agrees');
  });

  test('modify-chat archive, pin, mute, unread: the phone sees each change and GET /chats shows it', async () => {
    for (const action of ['archive', 'pin', 'mute']) {
      const r = await modify(CARLA, action);
      assert.equal(r.status, 200, `${action}: ${r.body.toString()}`);
      assert.deepEqual(r.json, { value: true });
    }
    const onPhone = await until('the phone to apply the patches', () => h.admin.chatState(OWNER, CARLA), (s) => s.archived && s.pinned !== null && s.mutedUntil !== null);
    assert.equal(onPhone.mutedUntil, -1, 'muted for ever');
    const c = await chat(CARLA);
    assert.deepEqual([c?.archived, c?.pinned, c?.isMuted, c?.muteEndTime], ['true', 'true', '1', -1]);

    assert.equal((await modify(DAN, 'unread')).status, 200);
    await until('the phone to mark Dan\'s chat unread', () => h.admin.chatState(OWNER, DAN), (s) => s.read === false);
    assert.equal((await chat(DAN))?.unread, '-1', 'marked unread');
    assert.equal((await modify(DAN, 'read')).status, 200);
    await until('the phone to mark it read', () => h.admin.chatState(OWNER, DAN), (s) => s.read === true);
    assert.equal((await chat(DAN))?.unread, '0', 'read');

    for (const action of ['unarchive', 'unpin', 'unmute']) assert.equal((await modify(CARLA, action)).status, 200, action);
    await until('the phone to undo them', () => h.admin.chatState(OWNER, CARLA), (s) => !s.archived && s.pinned === null && s.mutedUntil === null);
    const undone = await chat(CARLA);
    assert.deepEqual([undone?.archived, undone?.pinned, undone?.isMuted], ['false', 'false', '0']);
  });

  test('a chat archived on the phone reads archived (app-state sync), and unarchived again', async () => {
    const r = await h.admin.archiveChat(OWNER, DAN, true);
    assert.ok(r.devices >= 1, `the patch went to the linked device: ${JSON.stringify(r)}`);
    await until('Dan\'s chat to read archived', () => chat(DAN), (c) => c?.archived === 'true');
    await h.admin.changeChat(OWNER, DAN, { archived: false, pinned: true });
    const c = await until('unarchived and pinned on the phone', () => chat(DAN), (x) => x?.archived === 'false' && x.pinned === 'true');
    assert.equal(c?.phone, DAN);
  });

  test('GET /contacts/{phone} online: names from the copy, about from the network', async () => {
    const r = await h.call('GET', `${inst.prefix}/contacts/${CARLA}`);
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(r.json.phone, CARLA);
    assert.equal(r.json.notify, 'Carla', 'push name from her messages');
    assert.equal(r.json.about, 'Hey there! I am using WhatsApp.', 'the default about text, read from the network');
    assert.equal(r.json.imgUrl, null, 'no picture');
    // simnet knows every 55 11 9… number; a German landline is not on it.
    const unknown = await h.call('GET', `${inst.prefix}/contacts/49301234567`);
    assert.equal(unknown.status, 404, unknown.body.toString());
  });

  test('GET /chats/{phone} carries the contact\'s about from the network', async () => {
    const meta = await h.call('GET', `${inst.prefix}/chats/${CARLA}`);
    assert.equal(meta.status, 200, meta.body.toString());
    assert.equal(meta.json.about, 'Hey there! I am using WhatsApp.', 'the about text, read from the network');
  });

  test('contacts/add saves names in the phone\'s address book; contacts/remove takes them out', async () => {
    const add = await h.call('POST', `${inst.prefix}/contacts/add`, [
      { firstName: 'Carla', lastName: 'Souza', phone: CARLA },
      { firstName: 'Nobody', phone: '49301234567' },
    ]);
    assert.equal(add.status, 200, add.body.toString());
    assert.equal(add.json.success, false, 'one entry refused');
    assert.deepEqual((add.json.errors as { phone: string }[]).map((e) => e.phone), ['49301234567'], 'the number not on WhatsApp is listed');
    const book = await until('the phone to save Carla', () => h.admin.addressBook(OWNER), (b) => b.some((e) => e.jid.startsWith(CARLA)));
    assert.deepEqual(
      book.map((e) => [e.jid, e.fullName, e.firstName, e.savedOnPhone]),
      [[`${CARLA}@s.whatsapp.net`, 'Carla Souza', 'Carla', true]],
      'only the WhatsApp user is in the address book, with her full name',
    );
    const listed = JSON.parse((await h.call('GET', `${inst.prefix}/contacts?page=1&pageSize=50`)).body.toString()) as Record<string, unknown>[];
    assert.deepEqual(listed.filter((c) => c.phone === CARLA).map((c) => [c.name, c.short, c.notify]), [['Carla Souza', 'Carla', 'Carla']], 'GET /contacts shows the saved name');

    const bad = await h.call('POST', `${inst.prefix}/contacts/add`, [{ firstName: 'X', phone: '120363000000000001-group' }]);
    assert.equal(bad.status, 400, `a group is not a contact: ${bad.body.toString()}`);

    const remove = await h.call('DELETE', `${inst.prefix}/contacts/remove`, [CARLA]);
    assert.equal(remove.status, 200, remove.body.toString());
    assert.deepEqual(remove.json, { success: true, errors: [] });
    await until('the phone to remove Carla', () => h.admin.addressBook(OWNER), (b) => b.length === 0);
    // The phone tells the device by an app-state patch, which the gateway records a moment later.
    const carla = async () => (JSON.parse((await h.call('GET', `${inst.prefix}/contacts?page=1&pageSize=50`)).body.toString()) as Record<string, unknown>[]).filter((c) => c.phone === CARLA).map((c) => [c.name, c.notify]);
    const after = await until('the gateway to drop the saved name', carla, (c) => c[0]?.[0] === null).catch(() => carla());
    assert.deepEqual(after, [[null, 'Carla']], 'the saved name is gone, the push name stays');
  });

  test('chat-messages: edits show the new text, a revoke leaves a revoked row; READ_BY_ME from the phone clears unread', async () => {
    const first = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'price is 10' });
    await h.clock.advance(1_100);
    const second = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'call me' });
    await until('both in Dan\'s chat', () => chat(DAN), (c) => c?.lastMessageId === second.messageId);
    await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'edit', targetId: first.messageId, text: 'price is 12' });
    await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'revoke', targetId: second.messageId });
    const listMessages = async (q = '') => {
      const r = await h.call('GET', `${inst.prefix}/chat-messages/${DAN}${q}`);
      assert.equal(r.status, 200, r.body.toString());
      return JSON.parse(r.body.toString()) as { messageId: string; type: string; body: string | null; fromMe: boolean }[];
    };
    const msgs = await until('the edit and the revoke applied', () => listMessages(), (m) => m.some((x) => x.body === 'price is 12') && m.some((x) => x.type === 'revoked'));
    const byId = new Map(msgs.map((m) => [m.messageId, m]));
    assert.deepEqual([byId.get(first.messageId)?.type, byId.get(first.messageId)?.body], ['text', 'price is 12'], 'the edited text');
    assert.deepEqual([byId.get(second.messageId)?.type, byId.get(second.messageId)?.body], ['revoked', null], 'deleted for everyone: no content kept');
    assert.equal(msgs[0]?.messageId, second.messageId, 'newest first');
    const page2 = await listMessages(`?amount=1&lastMessageId=${second.messageId}`);
    assert.deepEqual(page2.map((m) => m.messageId), [first.messageId], 'the next page starts after the given id');
    assert.equal((await h.call('GET', `${inst.prefix}/chat-messages/5511900008999`)).status, 404, 'a chat never seen');

    await until('two unread', () => chat(DAN), (c) => c?.unread === '2');
    await h.admin.ownerRead({ phone: OWNER, chat: DAN, ids: [first.messageId] });
    await until('one unread after the phone read the older one', () => chat(DAN), (c) => c?.unread === '1');
    await h.admin.ownerRead({ phone: OWNER, chat: DAN, ids: [second.messageId] });
    await until('read on the phone: none unread', () => chat(DAN), (c) => c?.unread === '0');
  });

  test('DELETE /messages owner=true of an id this instance never sent: 404, nothing sent', async () => {
    const r = await h.call('DELETE', `${inst.prefix}/messages?messageId=3EB0FFFFFFFFFFFFFFFF&phone=${CARLA}&owner=true`);
    assert.equal(r.status, 404, r.body.toString());
  });

  test('retention: each chat keeps its newest ZAPGATE_CHAT_MESSAGES_PER_CHAT messages', async () => {
    const last = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'one more' });
    await until('the new message', () => chat(CARLA), (c) => c?.lastMessageId === last.messageId);
    const store = h.gateway.store.chats;
    assert.equal((await store.listMessages(inst.instanceId, CARLA, 100)).length, 4, 'two received, one sent, one more');
    const pruned = await h.gateway.engine!.pruneChatCopy();
    assert.ok(pruned >= 1, `pruned ${pruned}`);
    const kept = await store.listMessages(inst.instanceId, CARLA, 100);
    assert.equal(kept.length, 3, 'the newest three stay');
    assert.equal(kept[0]?.message_id, last.messageId, 'the newest first');
    assert.equal((await chat(CARLA))?.lastMessageId, last.messageId, 'the chat keeps its last message');
  });
});
