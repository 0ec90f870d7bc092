// Messages that arrive while the gateway process is down are not lost: a simnet contact writes while
// the real gateway (a child process, real Baileys) is stopped with SIGTERM or killed with kill -9,
// and after the restart each message reaches the webhook once, in order. A kill -9 in the middle of
// the catch-up itself loses none and reports none under a second event id. On SQLite and PostgreSQL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { metricValue } from '../helpers/process-gateway.js';
import { startProcessHarness, type ProcessHarness, type WebhookPost } from '../helpers/process-harness.js';
import { until } from '../helpers/wait.js';

const OWNERS = { sqlite: '5511999997001', postgres: '5511999997002' };
const CONTACTS = { sqlite: '5511988887001', postgres: '5511988887002' };

for (const dialect of ['sqlite', 'postgres'] as const) describe(`catch-up across process crashes on ${dialect} (gateway process + Baileys + simnet)`, () => {
  const OWNER = OWNERS[dialect];
  const CONTACT = CONTACTS[dialect];
  let h: ProcessHarness;

  before(async () => {
    h = await startProcessHarness({ owner: OWNER, contacts: [CONTACT], dialect });
  });

  after(async () => {
    await h.close();
  });

  const texts = (ids: readonly string[]): WebhookPost[] => h.posts.filter((x) => x.body.type === 'ReceivedCallback' && ids.includes(String(x.body.messageId)));
  const reported = (ids: readonly string[]): number => new Set(texts(ids).map((x) => String(x.body.messageId))).size;

  async function all(ids: readonly string[]): Promise<void> {
    await until(`all ${ids.length} messages reported (count so far)`, () => reported(ids), (n) => n === ids.length);
  }

  /**
   * Once nothing more can come: the gateway has no webhook left to post and the network holds
   * none of the messages for the device (nothing will be delivered again). A message reported
   * under a second event id would have been posted by then.
   */
  async function quiet(ids: readonly string[]): Promise<void> {
    await until(
      'the gateway to have no webhook left to post and the network none of the messages held',
      async () => ({
        pending: await metricValue(h.gateway().url, 'zapgate_webhook_pending'),
        held: (await h.admin.user(OWNER)).devices.flatMap((d) => d.heldMessages).filter((m) => ids.includes(m)),
      }),
      (v) => v.pending === 0 && v.held.length === 0,
      { pollMs: 100 },
    );
  }

  async function sendWhileDown(n: number, label: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 1; i <= n; i++) ids.push((await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'text', text: `${label} ${i}` })).messageId);
    return ids;
  }

  function assertOnceInOrder(ids: readonly string[], label: string): void {
    const got = texts(ids);
    // At-least-once delivery may POST an event again after a crash, always under the same webhook-id.
    const byMessage = new Map<string, Set<string>>();
    for (const x of got) byMessage.set(String(x.body.messageId), (byMessage.get(String(x.body.messageId)) ?? new Set()).add(x.webhookId));
    for (const [id, events] of byMessage) assert.equal(events.size, 1, `${id} was reported as ${events.size} different events`);
    const firstSeen = [...new Map(got.map((x) => [String(x.body.messageId), (x.body.text as { message: string }).message])).values()];
    assert.deepEqual(firstSeen, ids.map((_, i) => `${label} ${i + 1}`));
  }

  test('stopped with SIGTERM: three messages sent meanwhile arrive once each, in order', async () => {
    await h.gateway().stop();
    assert.equal(await h.gateway().exited, 0);
    const ids = await sendWhileDown(3, 'after sigterm');
    await h.restart();
    await h.connected();
    await all(ids);
    await quiet(ids);
    assertOnceInOrder(ids, 'after sigterm');
  });

  test('killed with kill -9: three messages sent meanwhile arrive once each, in order', async () => {
    await h.gateway().kill9();
    const ids = await sendWhileDown(3, 'after kill');
    await h.restart();
    await h.connected();
    await all(ids);
    await quiet(ids);
    assertOnceInOrder(ids, 'after kill');
  });

  test('kill -9 during the catch-up itself: none lost, none reported under a second event id', async (t) => {
    await h.gateway().kill9();
    const ids = await sendWhileDown(40, 'catch-up');
    await h.restart();
    // Kill in the middle of the catch-up: a third of it reported (read often, to kill near that point).
    await until('a third of the catch-up reported', () => reported(ids), (n) => n >= 13, { pollMs: 2 });
    const before = reported(ids);
    await h.gateway().kill9();
    await h.restart();
    await h.connected();
    await all(ids);
    await quiet(ids);
    assertOnceInOrder(ids, 'catch-up');
    const user = await h.admin.user(OWNER);
    assert.deepEqual(user.devices.flatMap((d) => d.heldMessages).filter((m) => ids.includes(m)), [], 'nothing left held by the network');
    t.diagnostic(`the first process reported ${before} of ${ids.length} before the kill`);
  });
});
