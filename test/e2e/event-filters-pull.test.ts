// Filters and the pull API with real traffic (docs/contract.md §5b): the real gateway process (real
// Baileys against simnet) receives texts from two contacts. The webhooks exclude one contact, the
// NATS sink includes only that one, and the pull API — which no filter touches — hands both
// contacts' texts, once each and in order, to two consumers taking turns.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NATS, natsStream, natsUnavailable, uniqueName } from '../helpers/brokers.js';
import { until } from '../helpers/engine-harness.js';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';

const OWNER = '5511999996301';
const KEPT = '5511988886301';
const EXCLUDED = '5511988886302';
const natsDown = await natsUnavailable();
if (natsDown !== null) console.log(`# the NATS part is skipped: ${natsDown}`);

interface Body {
  type: string;
  phone?: string;
  text?: { message: string };
}

describe('filters and pull with real traffic (gateway process + Baileys + simnet)', () => {
  let h: ProcessHarness;
  let stream: Awaited<ReturnType<typeof natsStream>> | null = null;
  const prefix = uniqueName('p').replace(/-/g, '_');

  before(async () => {
    if (natsDown === null) stream = await natsStream(prefix);
    h = await startProcessHarness({
      owner: OWNER,
      contacts: [KEPT, EXCLUDED],
      env: natsDown === null ? { ZAPGATE_SINK_NATS_URL: `nats://${NATS.host}:${NATS.port}`, ZAPGATE_SINK_NATS_PREFIX: prefix } : {},
    });
  });
  after(async () => {
    await h?.close();
    await stream?.close();
  });

  const texts = (bodies: readonly Body[], label: string): string[] =>
    bodies.filter((b) => b.type === 'ReceivedCallback' && b.text?.message.startsWith(label) === true).map((b) => `${b.phone}:${b.text?.message}`);

  test('an excluded chat never reaches the webhooks; the sink takes only its chat; pull sees everything in order', async () => {
    let r = await h.api('PUT', `${h.prefix}/update-filters`, { excludeChats: [EXCLUDED], callbackTypeFilters: ['FILTER_MESSAGE_STATUS_CALLBACK'] });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    r = await h.api('PUT', `${h.prefix}/update-sink-filters`, { sink: 'nats', includeChats: [EXCLUDED] });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    // Drain what the pairing left in the pull queue, so the count below is this test's.
    for (;;) {
      const n = await h.api('GET', `${h.prefix}/events/next`);
      if (n.status === 204) break;
      assert.equal((await h.api('DELETE', `${h.prefix}/events/${String(n.json.id)}`)).status, 200);
    }

    const sent: string[] = [];
    for (let i = 1; i <= 20; i++) {
      const from = i % 3 === 0 ? EXCLUDED : KEPT;
      await h.admin.sendAsContact({ from, to: OWNER, type: 'text', text: `flt ${i}` });
      sent.push(`${from}:flt ${i}`);
    }

    // Consumers taking turns (each request is independent: the queue position is the gateway's).
    const pulled: Body[] = [];
    const deadline = Date.now() + 90_000;
    while (texts(pulled, 'flt ').length < sent.length) {
      assert.ok(Date.now() < deadline, `pulled only ${texts(pulled, 'flt ').length} of ${sent.length}`);
      const got = await h.api('GET', `${h.prefix}/events/next?wait=5`);
      if (got.status === 204) continue;
      assert.equal(got.status, 200, JSON.stringify(got.json));
      pulled.push(got.json.body as Body);
      assert.equal((await h.api('DELETE', `${h.prefix}/events/${String(got.json.id)}`)).status, 200);
    }
    // Two senders' messages may reach the gateway interleaved otherwise than they were sent; each
    // chat's own order is kept, and the pull API hands over the commit order (test/http/event-pull.test.ts).
    const chat = (list: readonly string[], phone: string): string[] => list.filter((s) => s.startsWith(phone));
    const got = texts(pulled, 'flt ');
    assert.equal(got.length, sent.length, 'pull: every text once, whatever the filters');
    for (const phone of [KEPT, EXCLUDED]) assert.deepEqual(chat(got, phone), chat(sent, phone), `pull: ${phone}'s texts in order`);

    const kept = sent.filter((s) => s.startsWith(KEPT));
    const hookBodies = (): Body[] => h.posts.map((p) => p.body as unknown as Body);
    await until('the kept texts at the webhooks', async () => texts(hookBodies(), 'flt ').length, (n) => n >= kept.length, 60_000);
    // Anything late: every text above was committed (pull handed them over), and the webhooks get
    // the events in commit order; a text each contact sends now comes after all of them, so once the
    // kept chat's one is here, an excluded text would have been too (and the sink's the same way).
    for (const from of [KEPT, EXCLUDED]) await h.admin.sendAsContact({ from, to: OWNER, type: 'text', text: `end ${from}` });
    await until('a later text at the webhooks', async () => texts(hookBodies(), 'end ').length, (n) => n >= 1, 60_000);
    assert.deepEqual(texts(hookBodies(), 'flt '), kept, 'webhooks: the excluded chat never arrives, the other one all in order');
    assert.deepEqual(texts(hookBodies(), 'end '), [`${KEPT}:end ${KEPT}`], 'webhooks: the later text of the kept chat only');

    if (stream !== null) {
      const excluded = sent.filter((s) => s.startsWith(EXCLUDED));
      const streamed = async (): Promise<Body[]> => (await stream!.read()).map((m) => JSON.parse(m.body) as Body);
      await until('the excluded chat\'s later text in the sink', async () => texts(await streamed(), 'end ').length, (n) => n >= 1, 60_000);
      const bodies = await streamed();
      assert.deepEqual(texts(bodies, 'end '), [`${EXCLUDED}:end ${EXCLUDED}`], 'the sink: the later text of its chat only');
      assert.deepEqual(texts(bodies, 'flt '), excluded, 'the sink: only its included chat');
      assert.ok(!bodies.some((b) => b.phone === KEPT), "the other contact's chat never reaches the sink");
    }
  });
});
