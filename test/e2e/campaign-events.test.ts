// Campaign events through the real engine: each change of a campaign's state (started, paused,
// resumed, finished, cancelled) reaches the "received" webhook of its number as a Z-API-style
// notification with the campaign's id and name (docs/contract.md §12), in the order it happened,
// and the live event stream (GET /events) carries the same notifications.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHarness, until } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511940000031';
const contact = (i: number): string => `55119400001${String(i).padStart(2, '0')}`;

test('a campaign reports started, paused, resumed, finished and cancelled on the received webhook', async () => {
  const h = await startHarness();
  try {
    const inst = await h.pairNew(OWNER);
    // The account's event stream, read as any SSE consumer would.
    const stream = new AbortController();
    let streamed = '';
    const sse = await request(`${h.url}/events`, { headers: { 'client-token': h.clientToken }, signal: stream.signal, bodyTimeout: 0 });
    assert.equal(sse.statusCode, 200);
    sse.body.on('data', (chunk: Buffer) => (streamed += chunk.toString('utf8')));
    sse.body.on('error', () => undefined);
    const notes = (): { notification: string; params: string[]; path: string }[] =>
      h.webhooks.hits
        .filter((x) => typeof x.body.notification === 'string' && String(x.body.notification).startsWith('CAMPAIGN_'))
        .map((x) => ({ notification: String(x.body.notification), params: x.body.notificationParameters as string[], path: x.path }));

    const created = await h.call('POST', '/campaigns', { name: 'spring', message: 'Hi {{phone}}', instanceIds: [inst.instanceId], recipients: [0, 1, 2, 3].map((i) => ({ phone: contact(i) })) });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const id = String(created.json.id);
    assert.equal((await h.call('POST', `/campaigns/${id}/start`)).status, 200);
    await h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_STARTED', 10_000, 'CAMPAIGN_STARTED');
    assert.equal((await h.call('POST', `/campaigns/${id}/pause`)).status, 200);
    await h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_PAUSED', 10_000, 'CAMPAIGN_PAUSED');
    // A refused change (already paused) reports nothing.
    assert.equal((await h.call('POST', `/campaigns/${id}/pause`)).status, 409);
    assert.equal((await h.call('POST', `/campaigns/${id}/resume`)).status, 200);
    // The sender's pacing gaps between the four messages are protocol time: jumped.
    const finished = await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_FINISHED', 60_000, 'CAMPAIGN_FINISHED'));
    assert.equal(finished.body.type, 'ReceivedCallback');
    assert.equal(finished.path, `/${inst.instanceId}`);
    assert.equal(finished.body.phone, OWNER);
    assert.deepEqual(finished.body.notificationParameters, [id, 'spring', 'every recipient served']);
    const state = (await h.call('GET', `/campaigns/${id}`)).json;
    assert.equal(state.state, 'done');
    assert.equal((state.progress as Record<string, number>).sent, 4);

    const other = await h.call('POST', '/campaigns', { name: 'later', message: 'Bye', instanceIds: [inst.instanceId], recipients: [{ phone: contact(9) }] });
    const otherId = String(other.json.id);
    assert.equal((await h.call('POST', `/campaigns/${otherId}/cancel`)).status, 200);
    await h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_CANCELLED', 10_000, 'CAMPAIGN_CANCELLED');

    await until('every event delivered', async () => notes(), (n) => n.length >= 5);
    assert.deepEqual(
      notes().map((n) => [n.notification, ...n.params.slice(0, 2)]),
      [
        ['CAMPAIGN_STARTED', id, 'spring'],
        ['CAMPAIGN_PAUSED', id, 'spring'],
        ['CAMPAIGN_RESUMED', id, 'spring'],
        ['CAMPAIGN_FINISHED', id, 'spring'],
        ['CAMPAIGN_CANCELLED', otherId, 'later'],
      ],
    );
    const fromStream = (): string[] => [...streamed.matchAll(/"notification":"(CAMPAIGN_[A-Z_]+)"/g)].map((m) => m[1]!);
    await until('the stream carries them', async () => fromStream(), (n) => n.length >= 5);
    stream.abort();
    assert.deepEqual(fromStream(), ['CAMPAIGN_STARTED', 'CAMPAIGN_PAUSED', 'CAMPAIGN_RESUMED', 'CAMPAIGN_FINISHED', 'CAMPAIGN_CANCELLED']);
  } finally {
    await h.close();
  }
});
