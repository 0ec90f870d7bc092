// LabelSync: the store follows the label events of the app-state sync; a chat association is
// reported as CHAT_LABEL_ASSOCIATION only when it changes what is stored (a replayed patch is
// silent); labels on single messages are not kept; a deleted label goes; settled() waits for work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayEvent } from '../../src/events/types.js';
import { LabelSync } from '../../src/sessions/families/business/label-sync.js';
import type { LabelEvents } from '../../src/sessions/session-hooks.js';
import type { Session } from '../../src/sessions/link/session.js';
import type { LabelValue } from '../../src/store/labels-repo.js';

function fakes() {
  const labels = new Map<string, LabelValue>();
  const chats = new Set<string>();
  const emitted: GatewayEvent[] = [];
  const repo = {
    async upsert(_i: string, l: LabelValue) {
      labels.set(l.id, l);
    },
    async remove(_i: string, id: string) {
      for (const k of [...chats]) if (k.startsWith(`${id}|`)) chats.delete(k);
      return labels.delete(id);
    },
    async associate(_i: string, labelId: string, chat: { chatId: string }, labeled: boolean) {
      const key = `${labelId}|${chat.chatId}`;
      const had = chats.has(key);
      if (labeled) chats.add(key);
      else chats.delete(key);
      return had !== labeled;
    },
  };
  const session = {
    id: 'i1',
    me: { pn: '5511900000001@s.whatsapp.net', lid: null },
    async phoneOf(jid: string) {
      return jid.endsWith('@lid') ? '5511900000009' : jid.split('@')[0]!;
    },
    async emit(events: readonly GatewayEvent[]) {
      emitted.push(...events);
    },
    failed(err: unknown) {
      throw err;
    },
  } as unknown as Session;
  return { labels, chats, emitted, sync: new LabelSync({ labels: repo, now: () => 1_000 }), session };
}

// Baileys types the association's kind as an enum; the engine hands over its string value.
const chat = (labelId: string, chatId: string, type: 'add' | 'remove') => ({ association: { type: 'label_jid', labelId, chatId }, type }) as unknown as LabelEvents['association'];

test('associations are stored and reported once; replays are silent; LIDs become phones, groups group ids', async () => {
  const { emitted, sync, session, chats } = fakes();
  void sync.engineEvents(session, { edit: { id: '1', name: 'VIP', color: 2, deleted: false } });
  void sync.engineEvents(session, { association: chat('1', '5511977776666@s.whatsapp.net', 'add') });
  void sync.engineEvents(session, { association: chat('1', '5511977776666@s.whatsapp.net', 'add') });
  void sync.engineEvents(session, { association: chat('1', '120363000000000001@g.us', 'add') });
  void sync.engineEvents(session, { association: chat('1', '123456789012345@lid', 'add') });
  void sync.engineEvents(session, { association: { type: 'add', association: { type: 'label_message', labelId: '1', chatId: '5511977776666@s.whatsapp.net', messageId: 'ABC' } } as never });
  await sync.settled('i1');
  assert.deepEqual([...chats].sort(), ['1|120363000000000001-group', '1|5511900000009', '1|5511977776666']);
  const params = emitted.map((e) => (e as { notificationParameters: unknown }).notificationParameters);
  assert.deepEqual(params, [
    [{ phone: '5511977776666', label: '1', assigned: true }],
    [{ phone: '120363000000000001-group', label: '1', assigned: true }],
    [{ phone: '5511900000009', label: '1', assigned: true }],
  ]);
  const first = emitted[0] as Record<string, unknown>;
  assert.deepEqual([first.notification, first.fromMe, first.phone, first.momment], ['CHAT_LABEL_ASSOCIATION', true, '5511900000001', 1_000]);
  assert.notEqual(first.messageId, (emitted[1] as Record<string, unknown>).messageId, 'each notification has its own id');
});

test('a removal is reported when the label was on the chat; a deleted label goes with its chats', async () => {
  const { emitted, sync, session, labels, chats } = fakes();
  void sync.engineEvents(session, { edit: { id: '2', name: 'Paid', color: 0, deleted: false } });
  void sync.engineEvents(session, { association: chat('2', '5511977776666@s.whatsapp.net', 'remove') });
  void sync.engineEvents(session, { association: chat('2', '5511977776666@s.whatsapp.net', 'add') });
  void sync.engineEvents(session, { association: chat('2', '5511977776666@s.whatsapp.net', 'remove') });
  await sync.settled('i1');
  assert.deepEqual(emitted.map((e) => (e as { notificationParameters: { assigned: boolean }[] }).notificationParameters[0]!.assigned), [true, false], 'a removal of what was not there is silent');
  void sync.engineEvents(session, { association: chat('2', '5511977776666@s.whatsapp.net', 'add') });
  void sync.engineEvents(session, { edit: { id: '2', name: 'Paid', color: 0, deleted: true } });
  await sync.settled('i1');
  assert.equal(labels.has('2'), false);
  assert.equal(chats.size, 0);
});
