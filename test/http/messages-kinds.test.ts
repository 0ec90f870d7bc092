// Tag "messages", the send-kinds over real HTTP: each route queues the normalised request and
// answers {zaapId, messageId, id}; bad input gets 400 naming the field and queues nothing;
// forward-message needs a message the instance knows; read-message is synchronous (409 offline).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { expectError, startGateway, WA_MESSAGE_ID, type TestGateway, type TestInstance } from '../helpers/gateway.js';
import { GROUP, PHONE, SEND_KINDS_SAMPLES } from '../helpers/samples.js';

interface Queued {
  zaapId: string;
  messageId: string;
  phone: string;
  type: string;
  message: { content: Record<string, unknown> };
}

const KIND: Record<string, string> = {
  'send-link': 'link',
  'send-contact': 'contacts',
  'send-contacts': 'contacts',
  'send-poll': 'poll',
  'send-reaction': 'reaction',
  'send-remove-reaction': 'reaction',
  'pin-message': 'pin',
  'send-button-actions': 'button-actions',
  'send-button-otp': 'button-otp',
  'send-button-pix': 'button-pix',
  'send-carousel': 'carousel',
};

describe('send-kinds routes', () => {
  let g: TestGateway;
  let inst: TestInstance;

  before(async () => {
    g = await startGateway();
    inst = await g.createInstance('kinds');
  });
  after(() => g.close());

  async function queue(): Promise<Queued[]> {
    const r = await g.request('GET', `${inst.prefix}/queue?pageSize=1000`);
    assert.equal(r.status, 200);
    return r.json.messages as Queued[];
  }

  async function content(route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await g.request('POST', `${inst.prefix}/${route}`, { body });
    assert.equal(r.status, 200, `${route}: ${r.text}`);
    const q = (await queue()).find((m) => m.zaapId === r.json.zaapId);
    assert.ok(q, `${route}: queued`);
    return q.message.content;
  }

  for (const [route, body] of Object.entries(SEND_KINDS_SAMPLES)) {
    test(`${route} → 200 {zaapId, messageId, id}, queued as ${KIND[route]}`, async () => {
      const r = await g.request('POST', `${inst.prefix}/${route}`, { body });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json).sort(), ['id', 'messageId', 'zaapId']);
      assert.match(String(r.json.messageId), WA_MESSAGE_ID);
      const q = (await queue()).find((m) => m.zaapId === r.json.zaapId);
      assert.equal(q?.type, KIND[route]);
      assert.equal(q?.messageId, r.json.messageId);
    });
  }

  test('the queued content is the normalised request', async () => {
    assert.deepEqual(await content('send-link', { phone: PHONE, message: 'Look', linkUrl: 'https://z-api.io', title: 'T', linkDescription: 'D' }), {
      type: 'link', message: 'Look\nhttps://z-api.io', linkUrl: 'https://z-api.io', title: 'T', linkDescription: 'D', linkType: 'SMALL',
    });
    assert.deepEqual(await content('send-contact', SEND_KINDS_SAMPLES['send-contact']!), { type: 'contacts', contacts: [{ name: 'Ana', phones: ['554498398733'] }] });
    assert.deepEqual(await content('send-poll', { phone: GROUP, message: 'Q', poll: [{ name: 'a' }, { name: 'b' }] }), { type: 'poll', message: 'Q', options: ['a', 'b'], maxOptions: 0 });
    assert.deepEqual(await content('send-remove-reaction', SEND_KINDS_SAMPLES['send-remove-reaction']!), { type: 'reaction', targetId: '3EB0AAAAAAAAAAAAAAAAAA', reaction: '' });
    assert.deepEqual(await content('pin-message', SEND_KINDS_SAMPLES['pin-message']!), { type: 'pin', targetId: '3EB0AAAAAAAAAAAAAAAAAA', action: 'pin', durationSeconds: 2_592_000 });
    assert.deepEqual(await content('pin-message', { phone: PHONE, messageId: 'X', messageAction: 'unpin' }), { type: 'pin', targetId: 'X', action: 'unpin', durationSeconds: 0 });
    assert.deepEqual((await content('send-button-actions', SEND_KINDS_SAMPLES['send-button-actions']!)).buttons, [
      { id: '1', type: 'CALL', label: 'Call', phone: '554498398733' },
      { id: '2', type: 'URL', label: 'Site', url: 'https://z-api.io' },
      { id: 'r', type: 'REPLY', label: 'Agent' },
    ]);
    assert.deepEqual(await content('send-button-pix', SEND_KINDS_SAMPLES['send-button-pix']!), { type: 'button-pix', pixKey: 'pay@acme.com', keyType: 'EMAIL', merchantName: 'Pix' });
    assert.equal((await content('send-button-otp', SEND_KINDS_SAMPLES['send-button-otp']!)).buttonText, 'Copy code');
  });

  test('bad input → 400 naming the field, and nothing is queued', async () => {
    const before = (await queue()).length;
    const p = inst.prefix;
    const bad = async (route: string, body: Record<string, unknown>, message: string | RegExp) =>
      expectError(await g.request('POST', `${p}/${route}`, { body }), 400, 'Invalid request', message);
    const s = SEND_KINDS_SAMPLES;
    await bad('send-link', { ...s['send-link'], linkUrl: undefined }, 'linkUrl: is required');
    await bad('send-link', { ...s['send-link'], linkUrl: 'ftp://z-api.io' }, /^linkUrl: /);
    await bad('send-link', { ...s['send-link'], title: undefined }, 'title: is required');
    await bad('send-link', { ...s['send-link'], image: 'logo.png' }, /^image: /);
    await bad('send-link', { ...s['send-link'], linkType: 'HUGE' }, /^linkType: /);
    await bad('send-contact', { ...s['send-contact'], contactPhone: 'abc' }, /^contactPhone: /);
    await bad('send-contact', { ...s['send-contact'], contactName: '' }, /^contactName: /);
    await bad('send-contacts', { phone: PHONE, contacts: [] }, /^contacts: /);
    await bad('send-contacts', { phone: PHONE, contacts: [{ name: 'a', phones: ['5544999999999'] }, { name: 'b', phones: ['12'] }] }, /^contacts\[1\]\.phones\[0\]: /);
    await bad('send-contacts', { phone: PHONE, contacts: [{ name: 'a' }] }, 'contacts[0].phones: is required');
    await bad('send-poll', { ...s['send-poll'], poll: [{ name: 'only' }] }, /^poll: /);
    await bad('send-poll', { ...s['send-poll'], poll: [{ name: 'a' }, { name: 'a' }] }, /^poll: .*unique/);
    await bad('send-poll', { ...s['send-poll'], pollMaxOptions: 3 }, /^pollMaxOptions: /);
    await bad('send-poll', { ...s['send-poll'], poll: [{ title: 'a' }, { name: 'b' }] }, 'poll[0].name: is required');
    await bad('send-reaction', { ...s['send-reaction'], reaction: undefined }, 'reaction: is required');
    await bad('send-reaction', { ...s['send-reaction'], messageId: '' }, /^messageId: /);
    await bad('send-remove-reaction', { phone: PHONE }, 'messageId: is required');
    await bad('pin-message', { ...s['pin-message'], messageAction: 'stick' }, /^messageAction: /);
    await bad('pin-message', { ...s['pin-message'], pinMessageDuration: '1_day' }, /^pinMessageDuration: /);
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [{ type: 'URL', label: 'x' }] }, 'buttonActions[0].url: required for a URL button');
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [{ type: 'URL', label: 'x', url: 'javascript:alert(1)' }] }, /^buttonActions\[0\]\.url: /);
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [{ type: 'CALL', label: 'x' }] }, 'buttonActions[0].phone: required for a CALL button');
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [{ type: 'COPY', label: 'x' }] }, /^buttonActions\/0\/type: |^buttonActions\[0\]\.type: /);
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [{ id: 'a', type: 'REPLY', label: 'x' }, { id: 'a', type: 'REPLY', label: 'y' }] }, /^buttonActions: .*unique/);
    await bad('send-button-actions', { phone: PHONE, message: 'm', buttonActions: [] }, /^buttonActions: /);
    await bad('send-button-otp', { phone: PHONE, message: 'm' }, 'code: is required');
    await bad('send-button-pix', { ...s['send-button-pix'], type: 'BTC' }, /^type: /);
    await bad('send-button-pix', { phone: PHONE, type: 'EVP' }, 'pixKey: is required');
    await bad('send-carousel', { phone: PHONE, message: 'm', carousel: [{ text: 't', image: 'x.png' }] }, /^carousel\[0\]\.image: /);
    await bad('send-carousel', { phone: PHONE, message: 'm', carousel: [{ image: 'https://hooks.example.com/b.png' }] }, 'carousel[0].text: is required');
    await bad('send-carousel', { phone: PHONE, message: 'm', carousel: [] }, /^carousel: /);
    await bad('send-poll', { ...s['send-poll'], phone: 'abc' }, /^phone: /);
    await bad('send-poll', { ...s['send-poll'], mentionAll: true, phone: PHONE }, 'mentionAll can only be used in groups');
    assert.equal((await queue()).length, before);
  });

  test('forward-message: an unknown id → 422 with the reason; a known one in the named chat is queued', async () => {
    const before = (await queue()).length;
    const r = await g.request('POST', `${inst.prefix}/forward-message`, { body: { phone: PHONE, messageId: '3EB0BBBBBBBBBBBBBBBBBB', messagePhone: '5511888887777' } });
    expectError(r, 422, 'Unable to process request', /^messageId: .*not known/);
    expectError(await g.request('POST', `${inst.prefix}/forward-message`, { body: { phone: PHONE, messageId: 'X' } }), 400, 'Invalid request', 'messagePhone: is required');
    assert.equal((await queue()).length, before);
    await g.gateway.store.waMessages.put({
      instance_id: inst.instanceId, message_id: 'KNOWN1', remote_jid: '5511888887777@s.whatsapp.net', from_me: 0,
      participant: null, message: '', meta: null, created_at: Date.now(),
    });
    expectError(
      await g.request('POST', `${inst.prefix}/forward-message`, { body: { phone: PHONE, messageId: 'KNOWN1', messagePhone: '5511777776666' } }),
      400, 'Invalid request', /^messagePhone: .*5511888887777/,
    );
    const ok = await g.request('POST', `${inst.prefix}/forward-message`, { body: { phone: PHONE, messageId: 'KNOWN1', messagePhone: '+55 11 88888-7777' } });
    assert.equal(ok.status, 200, ok.text);
    const q = (await queue()).find((m) => m.zaapId === ok.json.zaapId);
    assert.deepEqual(q?.message.content, { type: 'forward', sourceId: 'KNOWN1', sourcePhone: '5511888887777' });
  });

  test('read-message is synchronous: 400 on bad input, 409 while not connected', async () => {
    expectError(await g.request('POST', `${inst.prefix}/read-message`, { body: { phone: PHONE } }), 400, 'Invalid request', 'messageId: is required');
    expectError(await g.request('POST', `${inst.prefix}/read-message`, { body: { phone: 'x', messageId: 'A' } }), 400, 'Invalid request', /^phone: /);
    expectError(await g.request('POST', `${inst.prefix}/read-message`, { body: { phone: PHONE, messageId: 'A' } }), 409, 'Instance not connected');
  });

  test('update-list-reply-hint stores the wording; "" restores the default; too long → 400', async () => {
    const url = `${inst.prefix}/update-list-reply-hint`;
    assert.deepEqual((await g.request('PUT', url, { body: { value: 'Responda com o número.' } })).json, { value: true });
    assert.equal((await g.gateway.store.instances.findById(inst.instanceId))?.list_reply_hint, 'Responda com o número.');
    assert.deepEqual((await g.request('PUT', url, { body: { value: '' } })).json, { value: true });
    assert.equal((await g.gateway.store.instances.findById(inst.instanceId))?.list_reply_hint, null);
    expectError(await g.request('PUT', url, { body: { value: 'x'.repeat(201) } }), 400, 'Invalid request', /^value: /);
    expectError(await g.request('PUT', url, { body: {} }), 400, 'Invalid request', 'value: is required');
  });

  test('every send-kinds route is in /openapi.json with a description and a valid example', async () => {
    // @fastify/swagger moves a body schema's `examples` to the media type's `example`.
    const doc = (await g.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, { description?: string; requestBody?: { content: Record<string, { example?: unknown }> } }>> };
    for (const route of [...Object.keys(SEND_KINDS_SAMPLES), 'forward-message', 'read-message']) {
      const op = doc.paths[`/instances/{instanceId}/token/{instanceToken}/${route}`]?.post;
      assert.ok(op, route);
      assert.ok((op.description ?? '').length > 40, `${route}: description`);
      const example = op.requestBody?.content['application/json']?.example as Record<string, unknown> | undefined;
      assert.ok(example, `${route}: example`);
      if (route === 'forward-message' || route === 'read-message') continue;
      const r = await g.request('POST', `${inst.prefix}/${route}`, { body: example });
      assert.equal(r.status, 200, `${route} example: ${r.text}`);
    }
  });
});
