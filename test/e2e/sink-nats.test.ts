// The NATS JetStream sink end to end (docs/contract.md §5b): the real gateway process (real Baileys
// against simnet) publishes every event it reports to the machine's NATS, subject
// `<prefix>.<instanceId>.<eventType>`, acknowledged by a stream of the test's own. The outage is a
// TCP proxy in front of NATS that cuts every connection and refuses new ones for a while (the
// machine's NATS itself is not restarted). The stream de-duplicates by `Nats-Msg-Id`, so after a
// kill -9 mid-publish it holds each event once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CuttableProxy, NATS, natsStream, natsUnavailable, signatureValid, uniqueName, type Consumed, textsFromContact } from '../helpers/brokers.js';
import { startProcessHarness, type ProcessHarness } from '../helpers/process-harness.js';
import { sleep, waitFor } from '../helpers/wait.js';

const OWNER = '5511999996201';
const CONTACT = '5511988886201';
const unavailable = await natsUnavailable();
if (unavailable !== null) console.log(`# skipping the NATS sink tests: ${unavailable}`);

describe('NATS JetStream sink (gateway process + Baileys + simnet + NATS)', { skip: unavailable ?? false }, () => {
  let h: ProcessHarness;
  let proxy: CuttableProxy;
  let stream: Awaited<ReturnType<typeof natsStream>>;
  const prefix = uniqueName('p').replace(/-/g, '_');
  let got: Consumed[] = [];

  before(async () => {
    proxy = await CuttableProxy.start(NATS);
    stream = await natsStream(prefix);
    // A time-lapse: the sink's retry schedule (seconds to minutes) runs 20 times faster.
    h = await startProcessHarness({ owner: OWNER, contacts: [CONTACT], timeScale: 0.05, env: { ZAPGATE_SINK_NATS_URL: `nats://127.0.0.1:${proxy.port}`, ZAPGATE_SINK_NATS_PREFIX: prefix } });
  });

  after(async () => {
    await h?.close();
    await stream?.close();
    await proxy?.close();
  });

  const texts = (label: string): string[] =>
    got
      .map((m) => JSON.parse(m.body) as { type: string; text?: { message: string } })
      .filter((b) => b.type === 'ReceivedCallback' && b.text?.message.startsWith(`${label} `) === true)
      .map((b) => String(b.text?.message));

  /** Reads the stream (message by message: every 300 ms at most) until `done` holds over it. */
  async function streamed(what: string, done: () => boolean): Promise<void> {
    await waitFor(
      what,
      async () => {
        got = await stream.read();
        return done();
      },
      { timeoutMs: 90_000, pollMs: 300 },
    );
  }

  const fromContact = (label: string, n: number, during?: (i: number) => Promise<void>): Promise<string[]> => textsFromContact(h.admin, CONTACT, OWNER, label, n, during);

  test('events land in the stream once each, in order, on the instance subject, signed', async () => {
    const sent = await fromContact('plain', 150);
    await streamed('every text in the stream', () => texts('plain').length >= sent.length);
    assert.deepEqual(texts('plain'), sent);
    const instanceId = String(h.prefix.split('/')[2]);
    const secret = String((await h.api('GET', `${h.prefix}/webhook-secret`)).json.value);
    const hooks = new Map(h.posts.map((p) => [p.webhookId, p.body]));
    assert.equal(new Set(got.map((m) => m.id)).size, got.length, 'each id once in the stream');
    for (const m of got) {
      const type = (JSON.parse(m.body) as { type: string }).type;
      assert.equal(m.subject, `${prefix}.${instanceId}.${type}`);
      assert.equal(m.headers['webhook-id'], m.id);
      assert.ok(signatureValid(secret, m.id, m.headers['webhook-timestamp'] ?? '', m.body, m.headers['webhook-signature'] ?? ''), 'valid signature');
      const hook = hooks.get(m.id);
      if (hook !== undefined) assert.deepEqual(JSON.parse(m.body), hook, 'the webhook body');
    }
  });

  test('NATS unreachable for a while under traffic (connections cut, new ones refused): nothing lost, order kept', async () => {
    let cutAt = 0;
    const sent = await fromContact('outage', 60, async (i) => {
      if (i === 15) {
        proxy.cut();
        cutAt = Date.now();
      }
      if (i === 40) {
        // The scenario: unreachable for at least 3 s, whatever the pace of the sends.
        await sleep(Math.max(0, cutAt + 3_000 - Date.now()));
        proxy.restore();
      }
    });
    await streamed('every text after the outage', () => texts('outage').length >= sent.length);
    assert.deepEqual(texts('outage'), sent);
    const metrics = await fetch(`${h.gateway().url}/metrics`).then((r) => r.text());
    assert.match(metrics, /zapgate_sink_publishes_total\{sink="nats",result="retrying"\} [1-9]/);
  });

  test('kill -9 mid-publish: after the restart the stream holds every event once (de-duplicated by Nats-Msg-Id)', async () => {
    const sending = fromContact('crash', 80);
    await streamed('some published', () => texts('crash').length >= 20);
    await h.gateway().kill9();
    const sent = await sending;
    await h.restart();
    await streamed('every text after the restart', () => texts('crash').length >= sent.length);
    assert.deepEqual(texts('crash'), sent);
    assert.equal(new Set(got.map((m) => m.id)).size, got.length, 'each id once in the stream');
  });
});
