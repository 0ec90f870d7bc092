// The dashboard's account views and number health in real Chromium against a real gateway (Baileys
// engine) and simnet: a number added to the opt-out list on the page; a campaign made on the page
// from a CSV file with a header row and a {{name}} template, started, its progress moving without a
// reload, paused (nothing more leaves), resumed, finished — the opted-out number skipped, the others
// receiving their own text; the list exported as CSV (through the page, no secret in a URL) and the
// number taken off again; the sending instance's health panel showing what GET …/health says, and
// on a number the network restricted, the anti-ban governor's pause with its reason.
// A read-only key sees the account views without their controls; values from the account (a
// campaign's name) are shown as text, never read as HTML. No console error (a CSP violation
// included), no refused request. Screenshots go to ZAPGATE_SCREENSHOT_DIR (docs/screenshots when
// regenerating them for the README), else a temp dir.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium, pageProblems, type Browser } from '../helpers/chromium.js';
import { campaignRunnerStepped } from '../helpers/campaign-runner-step.js';
import { startHarness, until, type Harness } from '../helpers/engine-harness.js';
import { skipWaits } from '../helpers/protocol-time.js';

const OWNER = '5511960001000';
const PEOPLE = [
  { phone: '5511960001001', name: 'Ana' },
  { phone: '5511960001002', name: 'Bruno' },
  { phone: '5511960001003', name: 'Carla' },
  { phone: '5511960001004', name: 'Davi' },
  { phone: '5511960001005', name: 'Eva' },
  { phone: '5511960001006', name: 'Fábio' },
];
/** Opted out on the page before the campaign: skipped by it. */
const OPTED = PEOPLE[2]!;
const WAIT = 60_000;
const NAME = 'Spring sale';
/** A name that would make an element if the page ever read it as HTML. */
const HOSTILE = 'Draft <img src=x id=pwned> one';

const shotsDir = process.env.ZAPGATE_SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'zapgate-shots-'));
mkdirSync(shotsDir, { recursive: true });

async function shot(page: Page, name: string, selector?: string): Promise<void> {
  await page.evaluate("document.getElementById('toast')?.setAttribute('class', 'toast')");
  const png = selector ? await page.locator(selector).screenshot() : await page.screenshot({ fullPage: true });
  await sharp(png).png({ palette: true, colours: 64, compressionLevel: 9 }).toFile(join(shotsDir, `${name}.png`));
}

/** Polls `read` until `done` holds (at most `ms` of real time); the last value. */
const waitUntil = <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, ms = WAIT): Promise<T> => until(what, read, done, ms);
/** The campaign's pace, on the gateway's clock: the test moves the clock by it. */
const PACE_MS = 40_000;

let h: Harness;
let browser: Browser;

before(async () => {
  h = await startHarness();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await h?.close();
  if (process.env.ZAPGATE_SCREENSHOT_DIR === undefined) rmSync(shotsDir, { recursive: true, force: true });
});

test('opt-out list, a campaign from a CSV (progress, pause, resume, the opted-out number skipped), number health — all on the page', async () => {
  for (const p of PEOPLE) await h.admin.createUser({ phone: p.phone, pushName: p.name });
  const inst = await h.pairNew(OWNER, 'promotions');

  const page = await browser.context.newPage();
  page.on('dialog', (d) => void d.accept()); // the page asks before taking a number off the list
  const problems = pageProblems(page, { uncaught: true, secretInUrl: h.clientToken });
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill(h.clientToken);
    await page.keyboard.press('Enter');
    await page.locator('#app').waitFor({ state: 'visible', timeout: WAIT });
    await page.getByText('Live updates: on').waitFor({ timeout: WAIT });

    // ---- the opt-out list: a number added by hand ----
    await page.getByRole('button', { name: 'Opt-out list' }).click();
    await page.getByRole('heading', { name: 'Opt-out list' }).waitFor({ timeout: WAIT });
    await page.getByRole('cell', { name: 'Nobody has opted out.' }).waitFor({ timeout: WAIT });
    await page.getByLabel(/^Add numbers/).fill(`+${OPTED.phone}`);
    await page.getByRole('button', { name: 'Add to list' }).click();
    await page.locator(`#optout-body tr[data-optout="${OPTED.phone}"]`).filter({ hasText: 'added' }).waitFor({ timeout: WAIT });
    const listed = await h.call('GET', '/opt-outs');
    assert.deepEqual((listed.json.optOuts as { phone: string }[]).map((o) => o.phone), [OPTED.phone], 'the API lists the number added on the page');

    // ---- a campaign from a CSV file ----
    await page.getByRole('button', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { name: 'New campaign' }).waitFor({ timeout: WAIT });
    await page.getByRole('cell', { name: 'No campaigns yet.' }).waitFor({ timeout: WAIT });
    const csv = ['phone,name,code', ...PEOPLE.map((p, i) => `${p.phone},${p.name},${100 + i}`)].join('\r\n') + '\r\n';
    await page.getByLabel('Campaign name').fill(NAME);
    await page.getByLabel('Recipients (CSV file)').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv, 'utf8') });
    // A variable the CSV lacks is pointed out before sending…
    await page.getByLabel('Message template').fill('Hi {{name}}, your code is {{coupon}}.');
    await page.locator('#cmp-csv-info').filter({ hasText: `${PEOPLE.length} row(s); columns: phone, name, code — not in the CSV: coupon` }).waitFor({ timeout: WAIT });
    await page.getByLabel('Message template').fill('Hi {{name}}, your code is {{code}}.');
    await page.locator('#cmp-csv-info').filter({ hasNotText: 'not in the CSV' }).waitFor({ timeout: WAIT });
    // The paired instance is offered and chosen; 40 s between messages on the gateway's clock,
    // which the test moves one pace at a time: it sees progress move and pauses it midway.
    assert.equal(await page.getByRole('checkbox', { name: new RegExp(`^promotions \\+${OWNER}`) }).isChecked(), true, 'the connected instance is chosen');
    await page.getByLabel('Seconds between messages per number').fill(String(PACE_MS / 1000));
    await page.getByRole('button', { name: 'Create campaign' }).click();

    const row = page.locator('#campaign-body tr[data-campaign]');
    await row.first().waitFor({ timeout: WAIT });
    const campaignId = String(await row.first().getAttribute('data-campaign'));
    const count = async (k: string): Promise<number> => Number(await row.locator(`td[data-count="${k}"]`).textContent());
    await row.locator('.badge.running').waitFor({ timeout: WAIT });
    await row.getByText(NAME, { exact: true }).waitFor({ timeout: WAIT });
    // Progress moves without a reload: the first message goes at once (the lane's gap jumped), the
    // second a pace later; a pace after that the opted-out third recipient is skipped.
    await skipWaits(h.clock, waitUntil('progress moves: a message sent', () => count('sent'), (n) => n >= 1));
    await h.clock.advance(PACE_MS);
    await skipWaits(h.clock, waitUntil('a pace later, the second', () => count('sent'), (n) => n >= 2));
    await h.clock.advance(PACE_MS);
    await waitUntil('the opted-out number shows as skipped', () => count('skipped'), (n) => n === 1);
    await shot(page, 'campaigns');
    // At phone width nothing sticks out (the table scrolls inside its card).
    await page.setViewportSize({ width: 390, height: 844 });
    assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth')) <= 0, 'nothing wider than a phone');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Pause: nothing more leaves (the one message already waiting may still go).
    await page.getByRole('button', { name: `pause campaign ${NAME}` }).click();
    await row.locator('.badge.paused').waitFor({ timeout: WAIT });
    await skipWaits(h.clock, waitUntil('nothing waits in the queue once paused', () => count('queued'), (n) => n === 0));
    const sentAtPause = await count('sent');
    // More than two paces pass, and the campaign runner steps after that: a running campaign would
    // have queued its next message by then (and the lane's gap is jumped for it to leave).
    await h.clock.advance(2 * PACE_MS + 1_000);
    await skipWaits(h.clock, campaignRunnerStepped(h));
    const refreshed = page.waitForResponse((r) => new URL(r.url()).pathname === '/campaigns' && r.request().method() === 'GET', { timeout: WAIT });
    await page.getByRole('button', { name: 'Refresh campaigns' }).click();
    await refreshed;
    assert.equal(await count('queued'), 0, 'nothing queued while paused');
    assert.equal(await count('sent'), sentAtPause, 'no message sent while paused');
    assert.ok(sentAtPause < PEOPLE.length - 1, `paused before the end (${sentAtPause} sent)`);
    assert.equal((await h.call('GET', `/campaigns/${campaignId}`)).json.state, 'paused', 'the API says paused');

    // Resume: it runs to the end (a pace at a time: the clock moves by one whenever nothing else is due).
    await page.getByRole('button', { name: `resume campaign ${NAME}` }).click();
    await skipWaits(h.clock, row.locator('.badge.done').waitFor({ timeout: WAIT }), { idleStepMs: PACE_MS });
    await waitUntil('every other recipient sent', () => count('sent'), (n) => n === PEOPLE.length - 1);
    assert.equal(await count('skipped'), 1);
    assert.equal(await count('failed'), 0);
    assert.equal(await row.locator('progress').getAttribute('value'), String(PEOPLE.length), 'the bar is full');
    for (const [i, p] of PEOPLE.entries()) {
      if (p === OPTED) continue;
      const got = await h.admin.waitForReceived(p.phone, (m) => JSON.stringify(m).includes(`Hi ${p.name}, your code is ${100 + i}.`), WAIT);
      assert.ok(got, `${p.name} received their own text`);
    }
    assert.equal(await page.getByRole('button', { name: new RegExp(`^(start|pause|resume|cancel) campaign`) }).count(), 0, 'a finished campaign offers no action');
    // Each recipient's outcome: the opted-out number skipped, the others delivered.
    await page.getByRole('button', { name: `Recipients of campaign ${NAME}` }).click();
    const outcome = (phone: string) => page.locator(`#recipient-table tr[data-recipient="${phone}"] .badge`);
    await outcome(OPTED.phone).filter({ hasText: 'skipped' }).waitFor({ timeout: WAIT });
    for (const p of PEOPLE) if (p !== OPTED) await outcome(p.phone).filter({ hasText: /^(delivered|read)$/ }).waitFor({ timeout: WAIT });

    // ---- the opt-out list: export, then the number taken off ----
    await page.getByRole('button', { name: 'Opt-out list' }).click();
    const optRow = page.locator(`#optout-body tr[data-optout="${OPTED.phone}"]`);
    await optRow.waitFor({ timeout: WAIT });
    await shot(page, 'opt-outs');
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: WAIT }), page.getByRole('button', { name: 'Export CSV' }).click()]);
    assert.equal(download.suggestedFilename(), 'opt-outs.csv');
    const exported = readFileSync(String(await download.path()), 'utf8').trim().split('\n');
    assert.equal(exported[0], 'phone,source,instanceId,keyword,created');
    assert.match(exported[1] ?? '', new RegExp(`^${OPTED.phone},api,`), 'the exported file holds the number');
    await page.getByRole('button', { name: `Remove +${OPTED.phone} from the opt-out list` }).click();
    await optRow.waitFor({ state: 'detached', timeout: WAIT });
    await page.getByRole('cell', { name: 'Nobody has opted out.' }).waitFor({ timeout: WAIT });
    assert.deepEqual((await h.call('GET', '/opt-outs')).json.optOuts, [], 'the API no longer lists it');

    // ---- number health of the sending instance ----
    await page.getByRole('button', { name: /^promotions/ }).click();
    await page.getByLabel('Instance token').fill(inst.instanceToken);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Number health' }).waitFor({ timeout: WAIT });
    const fact = (k: string) => page.locator(`#number-health dd[data-health="${k}"]`);
    const api = (await h.call('GET', `/instances/${inst.instanceId}/token/${inst.instanceToken}/health`)).json as {
      messages: { sent: number; failed: number };
      strangers: { lastDay: number };
      governor: { paused: boolean };
      disconnections: { count: number; reasons: { status: string; count: number }[] };
    };
    assert.ok(api.messages.sent >= PEOPLE.length - 1 && api.strangers.lastDay >= PEOPLE.length - 1, JSON.stringify(api));
    await waitUntil('the panel shows the messages sent', async () => fact('sent').textContent(), (t) => Number(t) === api.messages.sent);
    assert.equal(Number(await fact('first-contacts').textContent()), api.strangers.lastDay, 'first contacts as the API counts them');
    assert.match(String(await fact('failed').textContent()), /^0 \(0 % of attempts\)$/);
    assert.match(String(await fact('governor').textContent()), /^not paused$/);
    await page.locator('#nh-badge').filter({ hasText: 'sending' }).waitFor({ timeout: WAIT });
    // Disconnections as the API lists them (pairing itself restarts the connection once).
    const lost = page.locator('#nh-disconnections li');
    if (api.disconnections.count === 0) await lost.filter({ hasText: 'No disconnections in the last day.' }).waitFor({ timeout: WAIT });
    else for (const r of api.disconnections.reasons) await lost.filter({ hasText: `${r.status} \u00d7${r.count}` }).first().waitFor({ timeout: WAIT });
    await shot(page, 'number-health', '#number-health');

    assert.deepEqual(problems, [], 'no console error, no secret in a URL');
  } finally {
    await page.close();
  }
});

test('a read-only key sees the campaigns and the opt-out list but no control, and is refused nothing', async () => {
  const inst = (await h.call('GET', '/instances')).json as unknown as { instanceId: string }[];
  const draft = await h.call('POST', '/campaigns', { name: HOSTILE, message: 'Hi', instanceIds: [inst[0]!.instanceId], recipients: [{ phone: PEOPLE[0]!.phone }] });
  assert.equal(draft.status, 200, draft.body.toString());
  const r = await h.call('POST', '/keys', { name: 'reporting', scopes: ['read'] });
  assert.equal(r.status, 201, r.body.toString());
  const page = await browser.context.newPage();
  const problems = pageProblems(page, { refused: true });
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill(String(r.json.key));
    await page.keyboard.press('Enter');
    await page.locator('#whoami').filter({ hasText: 'reporting' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Campaigns' }).click();
    await page.locator('#campaign-body tr[data-campaign] .badge.done').waitFor({ timeout: WAIT });
    // A name from the account is text: the markup in it shows as typed and made no element.
    await page.locator('#campaign-body').getByText(HOSTILE, { exact: true }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('#pwned, #campaign-body img').count(), 0, 'a campaign name is never read as HTML');
    assert.equal(await page.getByRole('heading', { name: 'New campaign' }).count(), 0, 'no campaign form');
    await page.getByRole('button', { name: 'Opt-out list' }).click();
    await page.getByRole('heading', { name: 'Opt-out list' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Export CSV' }).waitFor({ timeout: WAIT });
    assert.equal(await page.getByRole('button', { name: 'Add to list' }).count(), 0, 'no adding');
    assert.deepEqual(problems, [], 'no refused request, no error in the console');
  } finally {
    await page.close();
  }
});

test('number health shows the governor\'s pause, its reason and the warm-up\'s cap', async () => {
  // The network restricts a number after 5 new chats; with the anti-ban strategy on, the first
  // refusal pauses it (as in campaign-governor.test.ts).
  const spam = { enabled: true, maxNewChatsPerWindow: 5, maxIdenticalRecipients: 10_000, windowMs: 3_600_000, banAfterViolations: 4, restrictNewChatsMs: 7_200_000 };
  const env = {
    ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR: '40',
    ZAPGATE_ANTIBAN_STRANGER_GAP_MS: '1000',
    ZAPGATE_ANTIBAN_MIN_GAP_MS: '200',
    ZAPGATE_ANTIBAN_MAX_GAP_MS: '400',
    ZAPGATE_ANTIBAN_MAX_TYPING_MS: '1000',
    ZAPGATE_ANTIBAN_PAUSE_MS: '300000',
  };
  const g = await startHarness({ simnet: { spam }, env });
  const page = await browser.context.newPage();
  const problems = pageProblems(page);
  try {
    const inst = await g.pairNew('5511960002000', 'outreach');
    assert.equal((await g.call('PUT', `${inst.prefix}/update-antiban`, { value: true })).status, 200);
    for (let i = 0; i < 7; i++) assert.equal((await g.call('POST', `${inst.prefix}/send-text`, { phone: `55119600030${String(i).padStart(2, '0')}`, message: `hello ${i}` })).status, 200);
    // The gaps and typing ahead of each send are protocol time: jumped.
    const paused = await skipWaits(g.clock, g.webhooks.waitFor((x) => x.body.notification === 'ANTIBAN_PAUSED', WAIT, 'ANTIBAN_PAUSED'));
    const [reason] = paused.body.notificationParameters as string[];
    const health = (await g.call('GET', `${inst.prefix}/health`)).json as {
      messages: { failures: { code: string; count: number }[] };
      strangers: { warmup: { capPerDay: number | null; capPerHour: number | null } };
      governor: { paused: boolean; reason: string | null };
    };
    assert.equal(health.governor.paused, true, JSON.stringify(health));

    await page.goto(`${g.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill(g.clientToken);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: /^outreach/ }).click();
    await page.getByLabel('Instance token').fill(inst.instanceToken);
    await page.getByRole('button', { name: 'Open' }).click();
    const fact = (k: string) => page.locator(`#number-health dd[data-health="${k}"]`);
    await page.locator('#nh-badge').filter({ hasText: 'sending paused' }).waitFor({ timeout: WAIT });
    assert.match(String(await fact('governor').textContent()), /^paused until /);
    assert.equal(await fact('pause-reason').textContent(), String(reason), 'the reason the network gave');
    assert.equal(await fact('antiban').textContent(), 'on');
    const w = health.strangers.warmup;
    assert.equal(await fact('cap').textContent(), `${w.capPerDay} a day, ${w.capPerHour} an hour`, 'the warm-up\'s cap for today');
    // Failures as the API lists them (the refused message waits for the pause to end: not failed yet).
    if (health.messages.failures.length === 0) await page.locator('#nh-failures li').filter({ hasText: 'No failures in the last day.' }).waitFor({ timeout: WAIT });
    for (const f of health.messages.failures) await page.locator('#nh-failures li').filter({ hasText: `${f.code} \u00d7${f.count}` }).waitFor({ timeout: WAIT });
    await shot(page, 'number-health-paused', '#number-health');
    assert.deepEqual(problems, [], 'no error in the console');
  } finally {
    await page.close();
    await g.close();
  }
});
