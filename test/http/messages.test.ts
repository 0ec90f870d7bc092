// Tag "messages" over real HTTP: every send route answers {zaapId, messageId, id} once the message
// is queued (and it is then in the queue with the same ids); validation names the field at fault.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, WA_MESSAGE_ID, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { GROUP, PHONE, SEND_SAMPLES } from '../helpers/samples.js';

interface Queued {
  zaapId: string;
  messageId: string;
  phone: string;
  type: string;
  state: string;
  delayMessage: number | null;
  delayTyping: number | null;
  created: number;
  message: { content: Record<string, unknown>; replyTo?: string; mentioned?: string[]; mentionAll?: boolean };
}

const KIND: Record<string, string> = {
  'send-text': 'text',
  'send-image': 'image',
  'send-sticker': 'sticker',
  'send-location': 'location',
  'send-option-list': 'option-list',
  'send-button-list': 'button-list',
  'send-audio': 'audio',
  'send-video': 'video',
  'send-ptv': 'ptv',
  'send-gif': 'gif',
  'send-document/pdf': 'document',
};

describe('send operations', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('sender');
  });
  after(() => g.close());

  async function queued(zaapId: string): Promise<Queued | undefined> {
    const r = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    assert.equal(r.status, 200);
    return (r.json.messages as Queued[]).find((m) => m.zaapId === zaapId);
  }

  for (const [route, body] of Object.entries(SEND_SAMPLES)) {
    test(`${route} → 200 {zaapId, messageId, id}, then queued with the same ids`, async () => {
      const before = Date.now();
      const r = await g.request('POST', `${inst.prefix}/${route}`, { body });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json).sort(), ['id', 'messageId', 'zaapId']);
      assert.match(String(r.json.messageId), WA_MESSAGE_ID);
      assert.equal(r.json.id, r.json.messageId);
      assert.match(String(r.json.zaapId), /^[0-9A-F]{32}$/);
      const q = await queued(String(r.json.zaapId));
      assert.ok(q, 'message is in the queue');
      assert.equal(q.messageId, r.json.messageId);
      assert.equal(q.type, KIND[route]);
      assert.equal(q.state, 'queued');
      assert.equal(q.phone, PHONE);
      assert.ok(q.created >= before - 1000 && q.created <= Date.now() + 1000, 'created is ms since the epoch');
    });
  }

  test('ids are unique across sends', async () => {
    const results = await Promise.all(
      Array.from({ length: 30 }, () => g.request('POST', `${inst.prefix}/send-text`, { body: SEND_SAMPLES['send-text'] })),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(new Set(results.map((r) => r.json.messageId)).size, 30);
    assert.equal(new Set(results.map((r) => r.json.zaapId)).size, 30);
  });

  test('the queued message holds the normalised request (reply, mentions, delays, list ids)', async () => {
    const r = await g.request('POST', `${inst.prefix}/send-text`, {
      body: { phone: GROUP, message: 'hi @all', messageId: '3EB0AAAAAAAAAAAAAAAAAA', mentioned: ['+55 11 98888-7777'], mentionAll: true, delayMessage: 3, delayTyping: 2 },
    });
    assert.equal(r.status, 200, r.text);
    const q = await queued(String(r.json.zaapId));
    assert.ok(q);
    assert.equal(q.phone, GROUP);
    assert.equal(q.delayMessage, 3);
    assert.equal(q.delayTyping, 2);
    assert.deepEqual(q.message, {
      content: { type: 'text', message: 'hi @all' },
      replyTo: '3EB0AAAAAAAAAAAAAAAAAA',
      mentioned: ['5511988887777'],
      mentionAll: true,
    });
    const list = await g.request('POST', `${inst.prefix}/send-option-list`, { body: SEND_SAMPLES['send-option-list'] });
    const ql = await queued(String(list.json.zaapId));
    assert.deepEqual(ql?.message.content.options, [
      { id: 'a', title: 'Pizza', description: 'with cheese' },
      { id: '2', title: 'Pasta', description: '' },
    ]);
    const loc = await g.request('POST', `${inst.prefix}/send-location`, { body: SEND_SAMPLES['send-location'] });
    const qloc = await queued(String(loc.json.zaapId));
    assert.equal(qloc?.message.content.latitude, -23.5614);
    assert.equal(qloc?.message.content.longitude, -46.6559);
  });

  test('phone normalisation: +, spaces, -, ( ) stripped; groups and @lid kept; anything else → 400', async () => {
    const cases: [string, string][] = [
      ['+55 (11) 99999-0000', '5511999990000'],
      [' 5511999990000 ', '5511999990000'],
      ['14155550123', '14155550123'],
      ['120363012345678901-group', '120363012345678901-group'],
      ['120363012345678901@g.us', '120363012345678901-group'],
      ['123456789012345@lid', '123456789012345@lid'],
    ];
    for (const [phone, stored] of cases) {
      const r = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone, message: 'x' } });
      assert.equal(r.status, 200, `${phone}: ${r.text}`);
      assert.equal((await queued(String(r.json.zaapId)))?.phone, stored, phone);
    }
    for (const phone of ['abc', '1234567', '1234567890123456', '55 11 9999O-0000', 'group', '-group', '5511999990000@s.whatsapp.net', '']) {
      expectError(await g.request('POST', `${inst.prefix}/send-text`, { body: { phone, message: 'x' } }), 400, 'Invalid request', /^phone: /);
    }
  });

  test('mentionAll outside a group → 400; inside a group → queued', async () => {
    for (const route of Object.keys(SEND_SAMPLES)) {
      const body = { ...SEND_SAMPLES[route], mentionAll: true };
      expectError(await g.request('POST', `${inst.prefix}/${route}`, { body }), 400, 'Invalid request', 'mentionAll can only be used in groups');
    }
    const ok = await g.request('POST', `${inst.prefix}/send-text`, { body: { phone: GROUP, message: 'all', mentionAll: true } });
    assert.equal(ok.status, 200);
  });

  test('common fields are validated on every send route, out of range is 400 (not clamped)', async () => {
    for (const route of Object.keys(SEND_SAMPLES)) {
      const base = SEND_SAMPLES[route] as Record<string, unknown>;
      const { phone: _phone, ...noPhone } = base;
      const url = `${inst.prefix}/${route}`;
      expectError(await g.request('POST', url, { body: noPhone }), 400, 'Invalid request', 'phone: is required');
      expectError(await g.request('POST', url, { body: { ...base, phone: 5511999990000 } }), 400, 'Invalid request', /^phone: /);
      for (const delayMessage of [0, 16, 1.5, '3']) {
        expectError(await g.request('POST', url, { body: { ...base, delayMessage } }), 400, 'Invalid request', /^delayMessage: /);
      }
      expectError(await g.request('POST', url, { body: { ...base, delayTyping: 99 } }), 400, 'Invalid request', /^delayTyping: /);
      expectError(await g.request('POST', url, { body: { ...base, mentioned: 'x' } }), 400, 'Invalid request', /^mentioned: /);
      expectError(await g.request('POST', url, { body: { ...base, mentioned: ['nope'] } }), 400, 'Invalid request', /^mentioned\[0\]: /);
      expectError(await g.request('POST', url, { body: { ...base, mentionAll: 'yes' } }), 400, 'Invalid request', /^mentionAll: /);
    }
  });

  test('route-specific fields are validated', async () => {
    const p = inst.prefix;
    expectError(await g.request('POST', `${p}/send-text`, { body: { phone: PHONE } }), 400, 'Invalid request', 'message: is required');
    expectError(await g.request('POST', `${p}/send-text`, { body: { phone: PHONE, message: '' } }), 400, 'Invalid request', /^message: /);
    expectError(await g.request('POST', `${p}/send-text`, { body: { phone: PHONE, message: 42 } }), 400, 'Invalid request', /^message: /);
    expectError(await g.request('POST', `${p}/send-image`, { body: { phone: PHONE } }), 400, 'Invalid request', 'image: is required');
    expectError(await g.request('POST', `${p}/send-image`, { body: { phone: PHONE, image: 'cat.png' } }), 400, 'Invalid request', /^image: /);
    expectError(await g.request('POST', `${p}/send-image`, { body: { phone: PHONE, image: 'ftp://x/cat.png' } }), 400, 'Invalid request', /^image: /);
    expectError(await g.request('POST', `${p}/send-sticker`, { body: { phone: PHONE, sticker: 'data:nope' } }), 400, 'Invalid request', /^sticker: /);
    for (const latitude of ['91', '-90.5', 'abc', '1e2', '']) {
      expectError(await g.request('POST', `${p}/send-location`, { body: { phone: PHONE, latitude, longitude: '0' } }), 400, 'Invalid request', /^latitude: /);
    }
    expectError(await g.request('POST', `${p}/send-location`, { body: { phone: PHONE, latitude: '0', longitude: '180.1' } }), 400, 'Invalid request', /^longitude: /);
    expectError(await g.request('POST', `${p}/send-location`, { body: { phone: PHONE, latitude: '0' } }), 400, 'Invalid request', 'longitude: is required');
    const list = SEND_SAMPLES['send-option-list'] as { optionList: Record<string, unknown> };
    expectError(
      await g.request('POST', `${p}/send-option-list`, { body: { ...list, optionList: { ...list.optionList, options: [] } } }),
      400,
      'Invalid request',
      /^optionList\.options: /,
    );
    expectError(
      await g.request('POST', `${p}/send-option-list`, {
        body: { ...list, optionList: { ...list.optionList, options: [{ id: 'a', title: 'x' }, { id: 'a', title: 'y' }] } },
      }),
      400,
      'Invalid request',
      /^optionList\.options: .*unique/,
    );
    expectError(
      await g.request('POST', `${p}/send-option-list`, { body: { ...list, optionList: { ...list.optionList, buttonLabel: undefined } } }),
      400,
      'Invalid request',
      'optionList.buttonLabel: is required',
    );
    expectError(
      await g.request('POST', `${p}/send-button-list`, { body: { phone: PHONE, buttonList: { buttons: [{ label: 'a' }] } } }),
      400,
      'Invalid request',
      'message: is required',
    );
    expectError(
      await g.request('POST', `${p}/send-button-list`, { body: { phone: PHONE, message: 'm', buttonList: { buttons: [{ label: 'a' }, { label: 'a' }] } } }),
      400,
      'Invalid request',
      /^buttonList\.buttons: .*unique/,
    );
    expectError(
      await g.request('POST', `${p}/send-button-list`, { body: { phone: PHONE, message: 'm', buttonList: { buttons: [{ id: 'x' }] } } }),
      400,
      'Invalid request',
      'buttonList.buttons[0].label: is required',
    );
  });

  test('nothing invalid was queued', async () => {
    const r = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    for (const m of r.json.messages as Queued[]) assert.match(m.messageId, WA_MESSAGE_ID);
    const count = (await g.request('GET', `${inst.prefix}/queue/count`)).json.count;
    assert.equal(count, (r.json.messages as Queued[]).length);
  });
});

describe('DELETE /messages', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('deleter');
  });
  after(() => g.close());

  test('missing or malformed parameters → 400 naming them', async () => {
    const p = `${inst.prefix}/messages`;
    expectError(await g.request('DELETE', `${p}?phone=${PHONE}&owner=true`), 400, 'Invalid request', 'messageId: is required');
    expectError(await g.request('DELETE', `${p}?messageId=3EB0AA&owner=true`), 400, 'Invalid request', 'phone: is required');
    expectError(await g.request('DELETE', `${p}?messageId=3EB0AA&phone=${PHONE}`), 400, 'Invalid request', 'owner: is required');
    expectError(await g.request('DELETE', `${p}?messageId=3EB0AA&phone=${PHONE}&owner=maybe`), 400, 'Invalid request', /^owner: /);
    expectError(await g.request('DELETE', `${p}?messageId=3EB0AA&phone=abc&owner=true`), 400, 'Invalid request', /^phone: /);
  });

  test('valid request with no connected session → 409', async () => {
    expectError(await g.request('DELETE', `${inst.prefix}/messages?messageId=3EB0AA&phone=${PHONE}&owner=false`), 409, 'Instance not connected');
    expectError(await g.request('DELETE', `${inst.prefix}/messages?messageId=3EB0AA&phone=${GROUP}&owner=true`), 409, 'Instance not connected');
  });
});
