// passesFilter (src/domain/event-filter.ts): Z-API's messageFilters on ReceivedCallback only, the
// callbackTypeFilters on every type, zapgate's chat lists on events that name a chat.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { normaliseFilter, passesFilter, type EventFilter } from '../../src/domain/event-filter.js';

const f = (x: Partial<EventFilter>): EventFilter => normaliseFilter(x);
const received = (extra: Record<string, unknown> = {}) => ({ type: 'ReceivedCallback', phone: '5511988887777', isGroup: false, text: { message: 'hi' }, ...extra });

test('no filter passes everything', () => {
  assert.equal(passesFilter(undefined, received()), true);
  assert.equal(passesFilter(f({}), received()), true);
});

test('messageFilters: by chat kind and content, on received messages only', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['FILTER_TEXT_MESSAGE', {}],
    ['FILTER_IMAGE_MESSAGE', { text: undefined, image: {} }],
    ['FILTER_VIDEO_MESSAGE', { text: undefined, video: {} }],
    ['FILTER_AUDIO_MESSAGE', { text: undefined, audio: {} }],
    ['FILTER_DOCUMENT_MESSAGE', { text: undefined, document: {} }],
    ['FILTER_FROM_GROUP', { phone: '120363019502650977-group', isGroup: true }],
    ['FILTER_FROM_PRIVATE_CHAT', {}],
  ];
  for (const [name, extra] of cases) {
    const filter = f({ messageFilters: [name as EventFilter['messageFilters'][number]] });
    assert.equal(passesFilter(filter, received(extra)), false, name);
    assert.equal(passesFilter(filter, { type: 'MessageStatusCallback', phone: '120363019502650977-group', isGroup: true }), true, `${name} leaves statuses alone`);
  }
  assert.equal(passesFilter(f({ messageFilters: ['FILTER_AUDIO_MESSAGE'] }), received()), true, 'a text is not audio');
  assert.equal(passesFilter(f({ messageFilters: ['FILTER_FROM_GROUP'] }), received()), true, 'a 1:1 chat is not a group');
});

test('callbackTypeFilters silence a whole type', () => {
  const filter = f({ callbackTypeFilters: ['FILTER_PRESENCE_CHAT_CALLBACK', 'FILTER_CONNECTED_CALLBACK'] });
  assert.equal(passesFilter(filter, { type: 'PresenceChatCallback', phone: '5511988887777' }), false);
  assert.equal(passesFilter(filter, { type: 'ConnectedCallback', phone: '5511999990000' }), false);
  assert.equal(passesFilter(filter, received()), true);
});

test('chat lists: normalised, include then exclude, never on connected/disconnected', () => {
  const include = f({ includeChats: ['+55 (11) 98888-7777'] });
  assert.equal(passesFilter(include, received()), true);
  assert.equal(passesFilter(include, received({ phone: '5511900000000' })), false);
  assert.equal(passesFilter(include, { type: 'DeliveryCallback', phone: '5511900000000' }), false);
  assert.equal(passesFilter(include, { type: 'ConnectedCallback', phone: '5511999990000' }), true, "ConnectedCallback's phone is the instance's own");
  assert.equal(passesFilter(include, { type: 'DisconnectedCallback' }), true);
  const exclude = f({ excludeChats: ['120363019502650977-group'] });
  assert.equal(passesFilter(exclude, received({ phone: '120363019502650977-group', isGroup: true })), false);
  assert.equal(passesFilter(exclude, { type: 'MessageStatusCallback', phone: '120363019502650977-group', isGroup: true }), false);
  assert.equal(passesFilter(exclude, received()), true);
});
