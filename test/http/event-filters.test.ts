// Event filters over real HTTP (docs/contract.md §5b): Z-API's update-filters for the webhook URLs,
// update-sink-filters for a broker sink. An excluded type or chat never reaches that URL or sink (no
// delivery row at all); the other targets and other instances are unaffected. The sink points at a
// closed loopback port: whether its deliveries exist is what the filter decides, not the broker.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { GatewayEvent, ReceivedCallback } from '../../src/events/types.js';
import { startHarness, startReceiver, type Harness, type HarnessInstance, type Receiver, type ReceivedRequest } from '../helpers/webhook-harness.js';

const PRIVATE = '5511988887777';
const EXCLUDED = '5511900000001';
const GROUP = '120363012345678901-group';

let seq = 0;
function message(phone: string, extra: Partial<ReceivedCallback> = {}): ReceivedCallback {
  seq++;
  return {
    type: 'ReceivedCallback',
    messageId: `3EB0${String(seq).padStart(18, '0')}`,
    phone,
    fromMe: false,
    momment: 1_700_000_000_000 + seq,
    status: 'RECEIVED',
    chatName: 'Chat',
    senderName: 'Maria',
    participantPhone: phone.endsWith('-group') ? PRIVATE : null,
    isGroup: phone.endsWith('-group'),
    text: { message: `m${seq}` },
    ...extra,
  };
}

const status = (phone: string): GatewayEvent => ({ type: 'MessageStatusCallback', status: 'READ', ids: [`3EB0STATUS${++seq}`], momment: 1, phone, isGroup: false });

interface DeliveryRow {
  type: string;
  url: string;
  payload: { messageId?: string; phone?: string };
}

describe('event filters', () => {
  let h: Harness;
  let rx: Receiver;

  before(async () => {
    rx = await startReceiver('127.0.0.1');
    h = await startHarness({ env: { ZAPGATE_ALLOW_HOSTS: '127.0.0.1' } });
  });
  after(async () => {
    await h.close();
    await rx.close();
  });

  async function hooked(name: string): Promise<HarnessInstance> {
    const inst = await h.createInstance(name);
    for (const [route, path] of [['update-webhook-received', 'received'], ['update-webhook-message-status', 'status']] as const) {
      const r = await h.request('PUT', `${inst.prefix}/${route}`, { value: `${rx.origin}/${inst.id}/${path}` });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    // Nothing listens on port 9: the sink's deliveries are made and wait for their retry.
    const r = await h.request('PUT', `${inst.prefix}/update-sink-rabbitmq`, { value: 'amqp://127.0.0.1:9' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return inst;
  }

  const at = (inst: HarnessInstance, rs: readonly ReceivedRequest[]) =>
    rs.filter((r) => r.path.startsWith(`/${inst.id}/`)).map((r) => JSON.parse(r.body) as { messageId?: string; ids?: string[]; type: string });

  async function deliveries(inst: HarnessInstance): Promise<DeliveryRow[]> {
    const r = await h.request('GET', `${inst.prefix}/webhook-deliveries?pageSize=1000`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.json.deliveries as DeliveryRow[];
  }

  test('excluded types and chats never reach the webhooks; the sink and an unfiltered instance get them', async () => {
    const filtered = await hooked('filtered');
    const plain = await hooked('plain');
    let r = await h.request('PUT', `${filtered.prefix}/update-filters`, {
      messageFilters: ['FILTER_FROM_GROUP', 'FILTER_AUDIO_MESSAGE'],
      callbackTypeFilters: ['FILTER_MESSAGE_STATUS_CALLBACK'],
      excludeChats: [`+${EXCLUDED}`],
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { value: true });
    r = await h.request('PUT', `${filtered.prefix}/update-sink-filters`, { sink: 'rabbitmq', includeChats: [EXCLUDED, GROUP] });
    assert.equal(r.status, 200, JSON.stringify(r.body));

    const privateText = message(PRIVATE);
    const groupText = message(GROUP);
    const excludedText = message(EXCLUDED);
    const audio = message(PRIVATE, { text: undefined, audio: { audioUrl: 'https://files.example/a.ogg', mimeType: 'audio/ogg', ptt: true, seconds: 3, viewOnce: false } } as Partial<ReceivedCallback>);
    const marker = message(PRIVATE);
    const events = [privateText, groupText, excludedText, audio, status(PRIVATE), marker];
    for (const inst of [filtered, plain]) await h.gateway.events.emit(inst.id, events);

    await rx.waitFor((rs) => at(filtered, rs).some((p) => p.messageId === marker.messageId) && at(plain, rs).some((p) => p.messageId === marker.messageId), 15_000, 'both markers');
    // One lane per URL, in order: a filtered event that had been delivered would be there before the marker.
    assert.deepEqual(at(filtered, rx.requests).map((p) => p.messageId), [privateText.messageId, marker.messageId]);
    await rx.waitFor((rs) => at(plain, rs).length === 6, 15_000, 'every event of the unfiltered instance');
    assert.deepEqual(at(plain, rx.requests).filter((p) => p.type === 'ReceivedCallback').map((p) => p.messageId), [privateText, groupText, excludedText, audio, marker].map((m) => m.messageId));

    const rows = await deliveries(filtered);
    assert.deepEqual(rows.filter((d) => !d.url.startsWith('sink:')).map((d) => d.payload.messageId), [privateText.messageId, marker.messageId], 'no webhook row for a filtered event');
    assert.deepEqual(rows.filter((d) => d.url === 'sink:rabbitmq').map((d) => d.payload.messageId), [groupText.messageId, excludedText.messageId], 'the sink takes only its included chats');
    const plainRows = await deliveries(plain);
    assert.equal(plainRows.filter((d) => d.url === 'sink:rabbitmq').length, 6, 'the unfiltered instance\'s sink gets every event');

    const view = await h.request('GET', `${filtered.prefix}/filters`);
    assert.equal(view.status, 200);
    assert.deepEqual(view.body, {
      webhooks: { messageFilters: ['FILTER_FROM_GROUP', 'FILTER_AUDIO_MESSAGE'], callbackTypeFilters: ['FILTER_MESSAGE_STATUS_CALLBACK'], includeChats: [], excludeChats: [EXCLUDED] },
      sinks: { rabbitmq: { messageFilters: [], callbackTypeFilters: [], includeChats: [EXCLUDED, GROUP], excludeChats: [] }, nats: { messageFilters: [], callbackTypeFilters: [], includeChats: [], excludeChats: [] } },
    });
  });

  test('{} lifts the filter for the next events', async () => {
    const inst = await hooked('lifted');
    assert.equal((await h.request('PUT', `${inst.prefix}/update-filters`, { callbackTypeFilters: ['FILTER_RECEIVED_CALLBACK'] })).status, 200);
    const hidden = message(PRIVATE);
    const probe = status(PRIVATE);
    await h.gateway.events.emit(inst.id, [hidden, probe]);
    await rx.waitFor((rs) => at(inst, rs).some((p) => p.type === 'MessageStatusCallback'), 15_000, 'status');
    assert.equal((await h.request('PUT', `${inst.prefix}/update-filters`, {})).status, 200);
    const shown = message(PRIVATE);
    await h.gateway.events.emit(inst.id, [shown]);
    await rx.waitFor((rs) => at(inst, rs).some((p) => p.messageId === shown.messageId), 15_000, 'after the filter is lifted');
    assert.ok(!at(inst, rx.requests).some((p) => p.messageId === hidden.messageId));
  });

  test('an unknown filter or sink is a 400 and changes nothing', async () => {
    const inst = await hooked('invalid');
    assert.equal((await h.request('PUT', `${inst.prefix}/update-filters`, { messageFilters: ['FILTER_STICKER_MESSAGE'] })).status, 400);
    assert.equal((await h.request('PUT', `${inst.prefix}/update-sink-filters`, { sink: 'kafka', excludeChats: [PRIVATE] })).status, 400);
    assert.equal((await h.request('PUT', `${inst.prefix}/update-filters`, { excludeChats: [PRIVATE], extra: true })).status, 400);
    const view = await h.request('GET', `${inst.prefix}/filters`);
    assert.deepEqual((view.json.webhooks as { excludeChats: string[] }).excludeChats, []);
  });
});
