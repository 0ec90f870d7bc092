// Number health through the real engine (docs/contract.md §12): what the network tells the engine
// about a number's sends and link shows in GET …/health and in the per-instance metrics — messages
// sent, delivered and read (contacts read automatically here), a send the network refuses with its
// reason, first contacts, and a dropped connection with its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startHarness, until } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511943000001';
const CONTACTS = ['5511943000011', '5511943000012', '5511943000013'];

interface Health {
  messages: { sent: number; delivered: number; read: number; failed: number; deliveredRatio: number | null; readRatio: number | null; failedRatio: number | null; failures: { code: string; count: number; reason: string | null }[] };
  strangers: { lastDay: number; perDay: number[]; warmup: { capPerDay: number | null } };
  disconnections: { count: number; reasons: { status: string; reason: string | null; count: number }[] };
  governor: { enabled: boolean; paused: boolean };
}

test('GET …/health and the zapgate_number_* metrics show what the network said', async () => {
  const h = await startHarness({ simnet: { receipts: { delivered: 'auto', deliveredDelayMs: 100, read: 'auto', readDelayMs: 200 } } });
  try {
    const inst = await h.pairNew(OWNER);
    const health = async (): Promise<Health> => {
      const r = await h.call('GET', `${inst.prefix}/health`);
      assert.equal(r.status, 200, r.body.toString());
      return r.json as unknown as Health;
    };
    const fresh = await health();
    assert.deepEqual(fresh.messages, { sent: 0, delivered: 0, read: 0, failed: 0, deliveredRatio: null, readRatio: null, failedRatio: null, failures: [] });

    for (const phone of CONTACTS) assert.equal((await h.call('POST', `${inst.prefix}/send-text`, { phone, message: `hi ${phone}` })).status, 200);
    // The sender's pacing gaps and the contacts' receipt delays are protocol time: jumped.
    await skipWaits(h.clock, until('three sent and read', health, (x) => x.messages.read === 3, 30_000));
    // The network refuses the next message.
    await h.admin.injectFault(OWNER, { kind: 'nack', code: 479, count: 1 });
    const refused = await h.call('POST', `${inst.prefix}/send-text`, { phone: CONTACTS[0], message: 'refused' });
    await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.type === 'DeliveryCallback' && x.body.messageId === refused.json.messageId && typeof x.body.error === 'string', 20_000, 'the refusal'));
    // The link drops, and comes back by itself.
    await h.admin.injectFault(OWNER, { kind: 'close' });
    await h.webhooks.waitFor((x) => x.body.type === 'DisconnectedCallback', 20_000, 'DisconnectedCallback');
    // The reconnection's backoff is protocol time: jumped.
    await skipWaits(h.clock, h.waitForStatus(inst, 'connected', 30_000));

    const x = await until('the disconnection recorded', health, (v) => v.disconnections.count >= 1, 10_000);
    assert.deepEqual(
      { sent: x.messages.sent, delivered: x.messages.delivered, read: x.messages.read, failed: x.messages.failed },
      { sent: 3, delivered: 3, read: 3, failed: 1 },
    );
    assert.equal(x.messages.deliveredRatio, 1);
    assert.equal(x.messages.failedRatio, 0.25);
    assert.equal(x.messages.failures.length, 1);
    assert.equal(x.messages.failures[0]!.count, 1);
    assert.match(String(x.messages.failures[0]!.reason), /479/);
    // Three first contacts, today; no warm-up cap with the anti-ban strategy off.
    assert.equal(x.strangers.lastDay, 3);
    assert.equal(x.strangers.perDay.at(-1), 3);
    assert.equal(x.strangers.warmup.capPerDay, null);
    assert.ok(x.disconnections.reasons.every((r) => r.reason !== null), 'each with its reason');
    // The drop the session reconnected from, with its cause (a new instance's first status is no loss).
    assert.ok(x.disconnections.reasons.some((r) => r.status === 'disconnected' && /^connection lost: /.test(String(r.reason))), JSON.stringify(x.disconnections));
    assert.ok(x.disconnections.reasons.every((r) => r.reason !== 'created'), JSON.stringify(x.disconnections));
    assert.deepEqual(x.governor, { ...x.governor, enabled: false, paused: false });

    const scrape = await (await request(`${h.url}/metrics`)).body.text();
    const sample = (line: string): number => Number(scrape.split('\n').find((l) => l.startsWith(line))?.slice(line.length + 1));
    assert.equal(sample(`zapgate_number_messages{instance_id="${inst.instanceId}",outcome="read"}`), 3);
    assert.equal(sample(`zapgate_number_messages{instance_id="${inst.instanceId}",outcome="failed"}`), 1);
    assert.equal(sample(`zapgate_number_first_contacts{instance_id="${inst.instanceId}"}`), 3);
    assert.ok(sample(`zapgate_number_disconnections{instance_id="${inst.instanceId}"}`) >= 1);
    assert.equal(sample(`zapgate_number_paused{instance_id="${inst.instanceId}"}`), 0);
  } finally {
    await h.close();
  }
});
