// The warm-up and the governor against simnet's spam detector (docs/contract.md §12), through the
// real engine: a newly paired number runs a campaign of 120 first contacts on a network that
// refuses (nack 463) a number's sixth new chat in an hour, then refuses all its new chats for two
// hours (each attempt another refusal), and bans it at the fourth refusal.
// - Anti-ban strategy on (warm-up + governor): the first refusal pauses the number (ANTIBAN_PAUSED)
//   and its campaign (CAMPAIGN_AUTO_PAUSED, with the reason); GET …/health shows the pause, the
//   refusal and the warm-up's cap. Resumed by the user while still restricted, the next refusal
//   pauses both again, for twice as long: the number is never banned.
// - Off: the same campaign keeps going through the refusals and the number is banned.
// - The warm-up alone, at its default ramp: a day-0 number's first contacts stay under what the
//   network takes, hour after hour, so the campaign goes on with no refusal at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';
import { passTime, skipWaits } from '../helpers/protocol-time.js';

const N = 120;
const BAN_AFTER = 4;
const SPAM = { enabled: true, maxNewChatsPerWindow: 5, maxIdenticalRecipients: 10_000, windowMs: 3_600_000, banAfterViolations: BAN_AFTER, restrictNewChatsMs: 7_200_000 };
// The warm-up lets a day-0 number make 0.2 × 40 = 8 first contacts an hour: more than this network
// takes, so it is the governor that must act. The gaps, typing and pauses are protocol time, which
// the test jumps.
const ENV = {
  ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR: '40',
  ZAPGATE_ANTIBAN_STRANGER_GAP_MS: '1000',
  ZAPGATE_ANTIBAN_MIN_GAP_MS: '200',
  ZAPGATE_ANTIBAN_MAX_GAP_MS: '400',
  ZAPGATE_ANTIBAN_MAX_TYPING_MS: '1000',
  ZAPGATE_ANTIBAN_PAUSE_MS: '300000',
};
const contact = (i: number): string => `55119420${String(i).padStart(5, '0')}`;

async function runCampaign(h: Harness, owner: string, antiban: boolean): Promise<{ inst: Instance; id: string }> {
  const inst = await h.pairNew(owner);
  assert.equal((await h.call('PUT', `${inst.prefix}/update-antiban`, { value: antiban })).status, 200);
  const recipients = Array.from({ length: N }, (_, i) => ({ phone: contact(i), vars: { name: `C${i}` } }));
  const created = await h.call('POST', '/campaigns', { name: 'launch', message: 'Hello {{name}}, our new shop is open', instanceIds: [inst.instanceId], recipients, dailyCap: N });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  const id = String(created.json.id);
  assert.equal((await h.call('POST', `/campaigns/${id}/start`)).status, 200);
  return { inst, id };
}

const counter = async (h: Harness, name: string): Promise<number> => (await h.admin.counters()).counters[name] ?? 0;

test('with warm-up and governor on, the number pauses at the first refusal and is never banned', async () => {
  const h = await startHarness({ simnet: { spam: SPAM }, env: ENV });
  try {
    const owner = '5511942100001';
    const { inst, id } = await runCampaign(h, owner, true);
    const auto = await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_AUTO_PAUSED', 60_000, 'CAMPAIGN_AUTO_PAUSED'));
    const paused = h.webhooks.hits.find((x) => x.body.notification === 'ANTIBAN_PAUSED');
    assert.ok(paused, 'ANTIBAN_PAUSED reported');
    assert.ok(h.webhooks.hits.indexOf(paused) < h.webhooks.hits.indexOf(auto), 'the number pauses, then its campaign');
    const [reason] = paused.body.notificationParameters as string[];
    assert.match(String(reason), /463/);
    const [campaignId, name, why] = auto.body.notificationParameters as string[];
    assert.deepEqual([campaignId, name], [id, 'launch']);
    assert.ok(why?.includes(String(reason)) && why.startsWith(owner), `the campaign says which number and why: ${why}`);
    // The pause came at the first refusal: the ban (at the fourth) never would.
    assert.equal(await counter(h, 'spam.restricted'), 1);

    // Time passes (a tenth of the pause, every timer due in it fired): nothing more goes out, and
    // the number stays. The lane waits for the pause's end, the campaign for a resume.
    await passTime(h.clock, 30_000);
    assert.equal(await counter(h, 'spam.restricted'), 1, 'no further refusal');
    assert.equal(await counter(h, 'spam.banned'), 0, 'never banned');
    const status = (await h.call('GET', `${inst.prefix}/status`)).json;
    assert.equal(status.status, 'connected');
    const campaign = (await h.call('GET', `/campaigns/${id}`)).json;
    assert.equal(campaign.state, 'paused');
    const progress = campaign.progress as Record<string, number>;
    assert.equal(progress.sent, SPAM.maxNewChatsPerWindow, 'what the network took went out');
    assert.ok((progress.pending ?? 0) >= N - SPAM.maxNewChatsPerWindow - 1, 'the rest waits');

    const health = await h.call('GET', `${inst.prefix}/health`);
    assert.equal(health.status, 200, JSON.stringify(health.json));
    const hj = health.json as { governor: Record<string, unknown>; strangers: { lastDay: number; warmup: Record<string, unknown> }; messages: Record<string, unknown> };
    assert.equal(hj.governor.paused, true);
    assert.equal(hj.governor.reason, reason);
    assert.equal(hj.strangers.lastDay, SPAM.maxNewChatsPerWindow, 'first contacts that left');
    assert.equal(hj.strangers.warmup.capPerHour, 8, 'the warm-up cap of a day-0 number');
    assert.equal(hj.messages.sent, SPAM.maxNewChatsPerWindow);

    // The user resumes while the network still restricts the number's new chats: the next first
    // contact is refused, and the governor pauses the number and the campaign again, twice as long.
    assert.equal((await h.call('POST', `/campaigns/${id}/resume`)).status, 200);
    // The number's own pause (5 min) has to end before its next send: the clock jumps there, and
    // no further (the next pause, 10 min, must not run out before the test has looked at it).
    await skipWaits(h.clock, h.webhooks.waitFor((x) => x.body.notification === 'ANTIBAN_PAUSED' && x !== paused, 60_000, 'second ANTIBAN_PAUSED'), { horizonMs: 6 * 60_000 });
    const autoAgain = await h.webhooks.waitFor((x) => x.body.notification === 'CAMPAIGN_AUTO_PAUSED' && x !== auto, 60_000, 'second CAMPAIGN_AUTO_PAUSED');
    const pauses = h.webhooks.hits.filter((x) => x.body.notification === 'ANTIBAN_PAUSED');
    assert.equal(pauses.length, 2);
    const length = (x: (typeof pauses)[number]): number => Number((x.body.notificationParameters as string[])[1]) - Number(x.body.momment);
    assert.ok(Math.abs(length(pauses[1]!) / length(pauses[0]!) - 2) < 0.05, `second pause twice the first: ${length(pauses[0]!)} then ${length(pauses[1]!)} ms`);
    assert.equal((autoAgain.body.notificationParameters as string[])[0], id);
    assert.equal(await counter(h, 'spam.restricted'), 2);
    assert.equal(await counter(h, 'spam.banned'), 0, 'still never banned');
    assert.equal((await h.call('GET', `${inst.prefix}/status`)).json.status, 'connected');
    assert.equal((await h.call('GET', `/campaigns/${id}`)).json.state, 'paused');
  } finally {
    await h.close();
  }
});

test('with them off, the same campaign runs into the refusals and the number is banned', async () => {
  const h = await startHarness({ simnet: { spam: SPAM }, env: ENV });
  try {
    const owner = '5511942100002';
    const { inst, id } = await runCampaign(h, owner, false);
    await skipWaits(h.clock, h.waitForStatus(inst, 'banned', 60_000));
    assert.equal(await counter(h, 'spam.banned'), 1);
    assert.equal(await counter(h, 'spam.restricted'), BAN_AFTER, 'refused again and again, then banned');
    assert.ok(!h.webhooks.hits.some((x) => x.body.notification === 'ANTIBAN_PAUSED' || x.body.notification === 'CAMPAIGN_AUTO_PAUSED'), 'nothing paused it');
    const campaign = await until('the refusals are recorded', async () => (await h.call('GET', `/campaigns/${id}`)).json, (c) => ((c.progress as Record<string, number>).failed ?? 0) >= BAN_AFTER - 1);
    assert.equal(campaign.state, 'running');
  } finally {
    await h.close();
  }
});

test('the warm-up keeps a new number under the network\'s limit hour after hour: no refusal, the campaign goes on', async () => {
  // Day 0 of the warm-up allows 0.2 × 20 = 4 first contacts an hour; the network takes 5 (and would
  // restrict at the sixth). The hours are protocol time: the test jumps them.
  const h = await startHarness({
    simnet: { spam: SPAM },
    env: { ...ENV, ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR: '20', ZAPGATE_ANTIBAN_STRANGER_GAP_MS: '10000', ZAPGATE_ANTIBAN_MAX_GAP_MS: '200', ZAPGATE_ANTIBAN_MIN_GAP_MS: '100' },
  });
  try {
    const { inst, id } = await runCampaign(h, '5511942100003', true);
    const progress = async (): Promise<Record<string, number>> => (await h.call('GET', `/campaigns/${id}`)).json.progress as Record<string, number>;
    const first = await skipWaits(h.clock, until('the first hour\'s sends', progress, (p) => (p.sent ?? 0) >= 4, 30_000));
    // The hour's cap is reached: nothing more for now. Half an hour passes (every timer due in it
    // fired: the lane's gaps, its re-reads), and the fifth first contact still waits for the hour.
    await passTime(h.clock, 30 * 60_000);
    assert.equal((await progress()).sent, first.sent, 'held by the warm-up cap');
    const health = (await h.call('GET', `${inst.prefix}/health`)).json as { strangers: { lastDay: number; warmup: { capPerHour: number } } };
    assert.equal(health.strangers.warmup.capPerHour, 4);
    assert.equal(health.strangers.lastDay, first.sent, 'each was a first contact');
    // The next hour brings the next ones, still without a refusal.
    await skipWaits(h.clock, until('the second hour\'s sends', progress, (p) => (p.sent ?? 0) >= 6, 60_000), { horizonMs: 2 * 3_600_000 });
    assert.equal(await counter(h, 'spam.restricted'), 0, 'never refused');
    assert.equal(await counter(h, 'spam.banned'), 0);
    assert.ok(!h.webhooks.hits.some((x) => x.body.notification === 'ANTIBAN_PAUSED'), 'nothing to pause');
    assert.equal((await h.call('GET', `/campaigns/${id}`)).json.state, 'running');
    assert.equal((await h.call('GET', `${inst.prefix}/status`)).json.status, 'connected');
  } finally {
    await h.close();
  }
});
