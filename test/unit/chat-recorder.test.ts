// ChatRecorder: what reaches the stored copy from Baileys' chat events. Pins down the double count
// found end to end: Baileys' chats.update carries unreadCount +1 per received message, which the
// copy already counts from the message itself; only read (0) and marked unread (-1) are states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChatRecorder } from '../../src/sessions/inbound/chat-recorder.js';
import type { ChatWrite } from '../../src/store/chats-repo.js';

function recorder(real = { ms: 0 }): { r: ChatRecorder; writes: ChatWrite[] } {
  const writes: ChatWrite[] = [];
  const r = new ChatRecorder({
    realMs: () => real.ms,
    instanceId: 'i1',
    sink: { record: async (w) => void writes.push(w), drain: async () => undefined },
    now: () => 1000,
    phoneOf: async (jid) => jid.split('@')[0] ?? '',
    failed: (err) => assert.fail(String(err)),
  });
  return { r, writes };
}

test('chats.update: a per-message unread increment is not a state; read and marked unread are', async () => {
  const { r, writes } = recorder();
  await r.engineEvents({ 'chats.update': [{ id: '5511900000002@s.whatsapp.net', unreadCount: 1, conversationTimestamp: 5 }] });
  assert.equal(writes.length, 0, 'nothing written for a +1');
  await r.engineEvents({ 'chats.update': [{ id: '5511900000002@s.whatsapp.net', unreadCount: 0 }, { id: '5511900000003@s.whatsapp.net', unreadCount: -1 }] });
  assert.deepEqual(writes.map((w) => (w.kind === 'chat' ? [w.chatId, w.patch.unread] : null)), [['5511900000002', 0], ['5511900000003', -1]]);
});

test('chats.update from app-state: archive, pin, mute map to the copy; groups keep their -group id', async () => {
  const { r, writes } = recorder();
  await r.engineEvents({
    'chats.update': [
      { id: '5511900000002@s.whatsapp.net', archived: true },
      { id: '120363000000000001@g.us', pinned: 1_700_000_000_000, muteEndTime: -1 },
      { id: 'status@broadcast', archived: true },
    ],
  });
  assert.deepEqual(
    writes.map((w) => (w.kind === 'chat' ? [w.chatId, w.jid, w.isGroup, w.patch] : null)),
    [
      ['5511900000002', '5511900000002@s.whatsapp.net', false, { archived: true }],
      ['120363000000000001-group', '120363000000000001@g.us', true, { pinnedAt: 1_700_000_000_000, mutedUntil: -1 }],
    ],
  );
});

test('contacts.upsert: phone from phoneNumber, LID kept, names bounded', async () => {
  const { r, writes } = recorder();
  await r.engineEvents({ 'contacts.upsert': [{ id: '123@lid', phoneNumber: '5511900000002@s.whatsapp.net', notify: 'x'.repeat(1000), name: 'Bob' }] });
  const w = writes[0];
  assert.ok(w?.kind === 'contact', 'one contact write');
  assert.equal(w.phone, '5511900000002');
  assert.equal(w.patch.lid, '123@lid');
  assert.equal(w.patch.name, 'Bob');
  assert.equal(w.patch.notify?.length, 256, 'bounded');
});

test('a contact is rewritten only when what the network says of it changes (the push name comes with every message)', async () => {
  const { r, writes } = recorder();
  const update = (notify: string) => r.engineEvents({ 'contacts.update': [{ id: '5511900000002@s.whatsapp.net', notify }] });
  await update('Ana');
  await update('Ana');
  await update('Ana');
  assert.equal(writes.length, 1, 'the same push name again writes nothing');
  await update('Ana Maria');
  assert.deepEqual(
    writes.map((w) => (w.kind === 'contact' ? w.patch.notify : null)),
    ['Ana', 'Ana Maria'],
    'a new push name is written',
  );
  await r.engineEvents({ 'contacts.update': [{ id: '5511900000003@s.whatsapp.net', notify: 'Ana Maria' }] });
  assert.equal(writes.length, 3, 'another contact with the same name is its own write');
});

test('the echo of an own contacts/add or /remove is not taken as the saved name for 10 s (it put a removed name back)', async () => {
  const real = { ms: 0 };
  const { r, writes } = recorder(real);
  const upsert = (name: string | undefined) =>
    r.engineEvents({ 'contacts.upsert': [{ id: '5511900000002@s.whatsapp.net', phoneNumber: '5511900000002@s.whatsapp.net', name, notify: `n-${real.ms}` }] });
  r.expectOwnContactChange('5511900000002');
  // The add's echo, merged in Baileys' buffer with the removal's (which has no name), arrives late.
  real.ms = 9_000;
  await upsert('Carla Souza');
  assert.deepEqual(writes.map((w) => (w.kind === 'contact' ? w.patch : null)), [{ notify: 'n-9000' }], 'the push name is kept, the echoed name is not');
  // Another contact is not affected.
  await r.engineEvents({ 'contacts.upsert': [{ id: '5511900000003@s.whatsapp.net', name: 'Bia' }] });
  const other = writes.at(-1);
  assert.ok(other?.kind === 'contact');
  assert.deepEqual([other.phone, other.patch.name], ['5511900000003', 'Bia']);
  // After the window, a name from the phone is the saved name again.
  real.ms = 10_001;
  await upsert('Carla S.');
  const last = writes.at(-1);
  assert.ok(last?.kind === 'contact');
  assert.equal(last.patch.name, 'Carla S.');
});
