// The dashboard in real Chromium against a real gateway (Baileys engine) and simnet: a wrong token
// is refused; sign in → create an instance → its QR appears → simnet's phone scans the QR read off
// the page's pixels → the page turns "connected" without a reload → a test send and its status →
// a received image previewed → a failed webhook delivery replayed from the page; the conversations
// view: a contact's messages arrive live with an unread count, the image previewed, a reply reaches
// the contact, mark-read, an edit and a deletion shown live, message text never read as HTML. No
// console error anywhere (the page declares its icon: no /favicon.ico 404). Screenshots go to
// ZAPGATE_SCREENSHOT_DIR (docs/screenshots when regenerating them for the README), else a temp dir.
// Signed in with an API key, the page offers only what the key may do: a read-only key sees the
// instances, chats and queue and no control; an admin key every control, the account's keys (made
// and revoked on the page) and audit trail; a key limited to one instance that instance only; a
// wrong key the refusal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium, pageProblems, type Browser } from '../helpers/chromium.js';
import { startHarness, until, type Harness } from '../helpers/engine-harness.js';

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQRLoaded = jsQRModule as unknown as Decode | { default: Decode };
const jsQR: Decode = typeof jsQRLoaded === 'function' ? jsQRLoaded : jsQRLoaded.default;

const OWNER = '5511990001111';
const CONTACT = '5511990002222';
const WAIT = 60_000;

const shotsDir = process.env.ZAPGATE_SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'zapgate-shots-'));
mkdirSync(shotsDir, { recursive: true });

/** A webhook receiver whose answer the test chooses (410 Gone first, to get a failed delivery). */
class Receiver {
  answer = 410;
  readonly hits: { status: number; id: string; body: Record<string, unknown> }[] = [];
  private server: Server | null = null;
  url = '';
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = this.answer;
        this.hits.push({ status, id: String(req.headers['webhook-id']), body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    const closed = new Promise<void>((r) => s.close(() => r()));
    s.closeAllConnections();
    await closed;
  }
}

function decodePng(png: Buffer): string | null {
  const img = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(img.data.buffer, img.data.byteOffset, img.data.length), img.width, img.height)?.data ?? null;
}

async function shot(page: Page, name: string, fullPage = true, selector?: string): Promise<void> {
  // Without the passing notification, which would cover part of the picture.
  await page.evaluate("document.getElementById('toast')?.setAttribute('class', 'toast')");
  const png = selector ? await page.locator(selector).screenshot() : await page.screenshot({ fullPage });
  // A 64-colour palette: a fifth of the bytes for flat UI colours and text (they go in the repository).
  await sharp(png).png({ palette: true, colours: 64, compressionLevel: 9 }).toFile(join(shotsDir, `${name}.png`));
}

let h: Harness;
let browser: Browser;
let receiver: Receiver;

before(async () => {
  h = await startHarness();
  receiver = new Receiver();
  await receiver.start();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.close();
  if (process.env.ZAPGATE_SCREENSHOT_DIR === undefined) rmSync(shotsDir, { recursive: true, force: true });
});

test('a wrong Client-Token is refused and nothing of the account shows (keyboard only)', async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto(`${h.url}/dashboard`);
    // The token field has the focus on arrival; Enter submits.
    await page.locator('#signin-token:focus').waitFor({ timeout: WAIT });
    await page.keyboard.type('definitely-not-the-token');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'refused' }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('#app').isVisible(), false, 'the account view stays hidden');
    assert.equal(await page.evaluate("sessionStorage.getItem('zapgate.clientToken')"), null, 'a refused token is not kept');
    await shot(page, 'sign-in-refused');

    // A token kept in the tab that the gateway no longer accepts (rotated, deleted): said too.
    await page.evaluate("sessionStorage.setItem('zapgate.clientToken', 'rotated-since')");
    await page.reload();
    await page.locator('#signin-error[role="alert"]').filter({ hasText: 'refused' }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('#app').isVisible(), false, 'the account view stays hidden');
  } finally {
    await page.close();
  }
});

test('sign in, create, pair by the QR on the page, send, preview received media, replay a failed delivery', async () => {
  await h.admin.createUser({ phone: OWNER, pushName: 'Owner' });
  await h.admin.createUser({ phone: CONTACT, pushName: 'Contact' });
  const page = await browser.context.newPage();
  const failures: string[] = [];
  page.on('console', (m) => {
    // The QR loop asks for the image until it answers 404 (connected: the page then shows the
    // status); the browser logs that designed 404 as a failed load, and only that one is expected.
    const qrDone = /status of 404/.test(m.text()) && /\/qr-code\/image$/.test(m.location().url);
    if (m.type() === 'error' && !qrDone) failures.push(`${m.text()} (${m.location().url})`);
  });
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token').fill(h.clientToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#app').waitFor({ state: 'visible', timeout: WAIT });
    await page.getByText('Live updates: on').waitFor({ timeout: WAIT });

    // Create: the new instance is selected and its QR appears.
    await page.getByLabel('New instance name').fill('sales');
    await page.getByRole('button', { name: 'Create' }).click();
    const qr = page.locator('#qr[src^="data:image/png"]');
    await qr.waitFor({ timeout: WAIT });
    await shot(page, 'pairing-qr');

    // The page follows the network's rotation: a second, different code shows without a reload.
    // (The phone's camera: each code is read off the rendered page, a screenshot of the image.)
    // Baileys shows the first code for 60 s of real time (its own timer, not the gateway's clock):
    // the wait for the second one allows for that on top of the usual bound.
    const seen = new Set<string>();
    const rotationDeadline = Date.now() + 60_000 + WAIT;
    while (seen.size < 2) {
      assert.ok(Date.now() < rotationDeadline, `the QR on the page rotates (saw ${seen.size} distinct codes)`);
      const text = decodePng(await qr.screenshot());
      if (text !== null) seen.add(text);
      await page.waitForTimeout(250);
    }
    let scanned = false;
    const deadline = Date.now() + WAIT;
    while (!scanned) {
      assert.ok(Date.now() < deadline, 'the QR on the page could be decoded and scanned');
      const text = decodePng(await qr.screenshot());
      if (text !== null) {
        // A QR that rotated between the screenshot and the scan is refused: read the new one.
        scanned = await h.admin.scanQr(OWNER, text).then(
          () => true,
          () => false,
        );
      }
      if (!scanned) await page.waitForTimeout(300);
    }
    // Without a reload: the stream (ConnectedCallback) and the QR loop turn the page to connected.
    await page.locator('#pair-state').filter({ hasText: `Connected as +${OWNER}` }).waitFor({ timeout: WAIT });
    await page.locator('#inst-badge .badge.connected').waitFor({ timeout: WAIT });
    await page.locator('#history').filter({ hasText: 'connected' }).waitFor({ timeout: WAIT });
    await shot(page, 'connected');

    // A test send: queued, then its status arrives on the stream.
    await page.getByLabel('Phone (digits, with country code)').fill(CONTACT);
    await page.getByLabel('Message or caption').fill('hello from the dashboard');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const sentRow = page.locator('#sent-body tr');
    await sentRow.first().waitFor({ timeout: WAIT });
    await page.locator('#sent-body .badge').filter({ hasText: /SENT|RECEIVED|READ/ }).first().waitFor({ timeout: WAIT });
    const got = await h.admin.waitForReceived(CONTACT, (m) => JSON.stringify(m).includes('hello from the dashboard'), WAIT);
    assert.ok(got, 'the contact received it');

    // A received image is previewed (its signed link, loaded from this origin under the CSP).
    const png = await new Promise<Buffer>((resolve) => {
      const img = new PNG({ width: 64, height: 64 });
      for (let i = 0; i < img.data.length; i += 4) img.data.set([200, 30, 40, 255], i);
      resolve(PNG.sync.write(img));
    });
    await h.admin.sendAsContact({ from: CONTACT, to: OWNER, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png', caption: 'a red box' } as Parameters<Harness['admin']['sendAsContact']>[0]);
    const preview = page.locator('#media img');
    await preview.waitFor({ timeout: WAIT });
    // Loaded, not just present (browser-side code as strings: the tests compile without the DOM types).
    // (waitForFunction would build its predicate with eval, which the page's CSP rightly refuses.)
    const loadDeadline = Date.now() + WAIT;
    while (!(await page.evaluate("(() => { const img = document.querySelector('#media img'); return img !== null && img.complete && img.naturalWidth > 0; })()"))) {
      assert.ok(Date.now() < loadDeadline, 'the received image loads in the page');
      await page.waitForTimeout(100);
    }

    // Webhooks: the receiver answers 410 Gone, so the next event's delivery fails.
    await page.getByLabel('URL for every webhook').fill(receiver.url);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#hooks').filter({ hasText: receiver.url }).waitFor({ timeout: WAIT });
    await page.getByLabel('Message or caption').fill('second message');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByLabel('Show', { exact: true }).selectOption('failed');
    // The one the receiver refused (the others queued behind it on that URL failed with it, unsent).
    const failed = page.locator('#dlv-body tr', { has: page.locator('.badge.failed'), hasText: 'HTTP 410' }).first();
    const failDeadline = Date.now() + WAIT;
    while (!(await failed.isVisible())) {
      assert.ok(Date.now() < failDeadline, 'a failed delivery is listed');
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      await page.waitForTimeout(300);
    }
    const deliveryId = String(await failed.getAttribute('data-delivery'));
    // The instance token the page holds (this tab's session storage), to ask the API what it shows.
    const tokens = JSON.parse(String(await page.evaluate("sessionStorage.getItem('zapgate.instanceTokens')"))) as Record<string, string>;
    const [instanceId, instanceToken] = Object.entries(tokens)[0]!;
    const listed = await h.call('GET', `/instances/${instanceId}/token/${instanceToken}/webhook-deliveries?status=failed`);
    const delivery = (listed.json.deliveries as { id: string; webhookId: string; lastStatus: number }[]).find((d) => d.id === deliveryId);
    assert.equal(delivery?.lastStatus, 410, 'the page lists a delivery the receiver refused');
    const webhookId = delivery.webhookId;
    assert.ok(receiver.hits.some((x) => x.status === 410 && x.id === webhookId), 'the receiver was called and answered 410');
    await shot(page, 'deliveries-failed');

    // The receiver is back: set the URL again (410 disabled it) and replay from the page.
    receiver.answer = 200;
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.locator('#hooks').filter({ hasNotText: 'disabled' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: `Replay delivery ${deliveryId}` }).click();
    await page.getByLabel('Show', { exact: true }).selectOption('');
    const replayed = page.locator(`#dlv-body tr[data-delivery="${deliveryId}"] .badge.delivered`);
    const replayDeadline = Date.now() + WAIT;
    while (!(await replayed.isVisible())) {
      assert.ok(Date.now() < replayDeadline, 'the replayed delivery shows as delivered');
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      await page.waitForTimeout(300);
    }
    const redelivered = receiver.hits.filter((x) => x.status === 200 && x.id === webhookId);
    assert.ok(redelivered.length >= 1, 'the receiver got the failed event again, same webhook-id');
    await shot(page, 'dashboard');

    // Phone width: one column, everything reachable.
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
    const wide = (await page.evaluate(
      "[...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5).slice(0, 5).map((el) => el.tagName + '#' + el.id + '.' + el.className)",
    )) as string[];
    assert.ok(overflow <= 0, `nothing wider than a phone (${overflow} px too wide: ${wide.join(', ')})`);
    await page.locator('#pair-title').scrollIntoViewIfNeeded();
    await shot(page, 'phone', false);
    assert.deepEqual(failures, [], 'no errors in the page console (CSP violations and a missing icon included)');
  } finally {
    await page.close();
  }
});

test('pairing with a code instead of the QR', async () => {
  const phone = '5511990003333';
  await h.admin.createUser({ phone, pushName: 'Support' });
  const page = await browser.context.newPage();
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token').fill(h.clientToken);
    await page.keyboard.press('Enter');
    await page.getByLabel('New instance name').fill('support');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#qr[src^="data:image/png"]').waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByLabel('Or pair with a code', { exact: false }).fill(`+${phone}`);
    await page.getByRole('button', { name: 'Get code' }).click();
    const shown = page.locator('#pair-code').filter({ hasText: /^[A-Z0-9]{4}-?[A-Z0-9]{4}/ });
    await shown.waitFor({ timeout: WAIT });
    const code = /^([A-Z0-9]{4}-?[A-Z0-9]{4})/.exec(String(await shown.textContent()))![1]!;
    await h.admin.enterPairingCode(phone, code);
    await page.locator('#pair-state').filter({ hasText: `Connected as +${phone}` }).waitFor({ timeout: WAIT });
  } finally {
    await page.close();
  }
});

test('queue, rename and delete on an instance that is not paired', async () => {
  const page = await browser.context.newPage();
  page.on('dialog', (d) => void d.accept()); // the page asks before clearing and deleting
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token').fill(h.clientToken);
    await page.keyboard.press('Enter');
    await page.getByLabel('New instance name').fill('offline');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('#qr[src^="data:image/png"]').waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Stop' }).click();
    // Not paired: sends wait in the queue.
    for (const text of ['first', 'second', 'third']) {
      await page.getByLabel('Phone (digits, with country code)').fill(CONTACT);
      await page.getByLabel('Message or caption').fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.locator('#sent-body tr').nth(['first', 'second', 'third'].indexOf(text)).waitFor({ timeout: WAIT });
    }
    await page.locator('#queue-count').filter({ hasText: '3 waiting' }).waitFor({ timeout: WAIT });
    await page.locator('#queue-body tr').nth(2).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: /^Remove message / }).first().click();
    await page.locator('#queue-count').filter({ hasText: '2 waiting' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Clear queue' }).click();
    await page.locator('#queue-count').filter({ hasText: '0 waiting' }).waitFor({ timeout: WAIT });

    await page.getByLabel('Name', { exact: true }).fill('offline renamed');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.locator('#instance-list').filter({ hasText: 'offline renamed' }).waitFor({ timeout: WAIT });
    const before = (await h.call('GET', '/instances')).body.toString();
    assert.match(before, /offline renamed/, 'renamed in the API too');

    // Settings: anti-ban on, list mode, the signing secret rotated.
    await page.getByLabel('Anti-ban strategy').check();
    const tokens = JSON.parse(String(await page.evaluate("sessionStorage.getItem('zapgate.instanceTokens')"))) as Record<string, string>;
    const id = (await page.locator('#inst-facts').textContent())!.replace(/^.*id /, '').trim();
    const prefix = `/instances/${id}/token/${tokens[id]}`;
    await until('anti-ban on', async () => (await h.call('GET', `${prefix}/status`)).json.antiban as { enabled: boolean }, (a) => a.enabled);
    await page.getByLabel('List mode').selectOption('text');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('#toast').filter({ hasText: 'List mode: text' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'Show secret' }).click();
    const first = String(await page.locator('#secret').filter({ hasText: 'whsec_' }).textContent());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.locator('#secret').filter({ hasText: 'previous' }).waitFor({ timeout: WAIT });
    const secrets = (await h.call('GET', `${prefix}/webhook-secret`)).json;
    assert.ok(first.includes(String(secrets.previous)), 'the secret shown before is now the previous one');
    assert.ok(String(await page.locator('#secret').textContent()).includes(String(secrets.value)), 'the page shows the new one');

    // A reload keeps the session (this tab's storage); signing out forgets both tokens.
    await page.reload();
    await page.locator('#instance-list').filter({ hasText: 'offline renamed' }).waitFor({ timeout: WAIT });
    await page.getByRole('button', { name: 'offline renamed' }).click();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.locator('#detail').filter({ hasText: 'Deleted.' }).waitFor({ timeout: WAIT });
    await page.locator('#instance-list').filter({ hasNotText: 'offline renamed' }).waitFor({ timeout: WAIT });
    assert.doesNotMatch((await h.call('GET', '/instances')).body.toString(), /offline renamed/, 'gone from the API');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Client-Token').waitFor({ timeout: WAIT });
    assert.equal(await page.evaluate("sessionStorage.length"), 0, 'nothing kept after signing out');
  } finally {
    await page.close();
  }
});

test('conversations: a contact writes, the chat shows live with its unread count; read, reply, mark read, edit and deletion', async () => {
  const owner = '5511990004444';
  const contact = '5511990005555';
  await h.admin.createUser({ phone: contact, pushName: 'Carla Contact' });
  const inst = await h.pairNew(owner, 'conversations');
  const page = await browser.context.newPage();
  const failures: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') failures.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => failures.push(`page error: ${e.message}`));
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token').fill(h.clientToken);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: /^conversations/ }).click();
    // Made through the API, not in this tab: the page asks for its token once.
    await page.getByLabel('Instance token').fill(inst.instanceToken);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Conversations', exact: true }).waitFor({ timeout: WAIT });
    await page.getByText('Live updates: on').waitFor({ timeout: WAIT });

    // The contact writes: the chat appears without a reload, with its unread count and last message.
    const first = await h.admin.sendAsContact({ from: contact, to: owner, type: 'text', text: 'hello, is the shop open?' });
    const chatButton = page.locator(`#chat-list button[data-chat="${contact}"]`);
    await chatButton.filter({ hasText: 'hello, is the shop open?' }).waitFor({ timeout: WAIT });
    await chatButton.locator('.unread').filter({ hasText: /^1$/ }).waitFor({ timeout: WAIT });
    assert.equal(await chatButton.locator('.unread').getAttribute('aria-label'), '1 unread', 'the count is named for screen readers');

    // An image, and a text that would be markup if the page put it in as HTML.
    const red = new PNG({ width: 48, height: 48 });
    for (let i = 0; i < red.data.length; i += 4) red.data.set([200, 30, 40, 255], i);
    const image = await h.admin.sendAsContact({ from: contact, to: owner, type: 'image', imageBase64: PNG.sync.write(red).toString('base64'), mimetype: 'image/png', caption: 'our new sign' } as Parameters<Harness['admin']['sendAsContact']>[0]);
    const hostile = '<img src=x onerror="document.title=\'pwned\'"><b>bold?</b>';
    await h.admin.sendAsContact({ from: contact, to: owner, type: 'text', text: hostile });
    await chatButton.locator('.unread').filter({ hasText: /^3$/ }).waitFor({ timeout: WAIT });

    // Open it: the messages, oldest first, the image previewed through its signed link.
    await chatButton.click();
    await page.locator('#thread-title').filter({ hasText: 'Carla Contact' }).waitFor({ timeout: WAIT });
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.locator(`li[data-message-id="${first.messageId}"]`).filter({ hasText: 'hello, is the shop open?' }).waitFor({ timeout: WAIT });
    const picture = messages.locator(`li[data-message-id="${image.messageId}"] img`);
    await picture.waitFor({ timeout: WAIT });
    assert.match(String(await picture.getAttribute('src')), /^\/media\/[^?]+\?exp=\d+&sig=/, 'the signed link, from this origin');
    const loadDeadline = Date.now() + WAIT;
    while (!(await page.evaluate(`(() => { const img = document.querySelector('li[data-message-id="${image.messageId}"] img'); return img !== null && img.complete && img.naturalWidth === 48; })()`))) {
      assert.ok(Date.now() < loadDeadline, 'the image loads in the conversation');
      await page.waitForTimeout(100);
    }
    assert.ok(await messages.getByText('our new sign').isVisible(), 'with its caption');
    // The hostile text is shown as text: no element made of it, nothing run.
    await messages.getByText(hostile, { exact: true }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('#messages img').count(), 1, 'the one image is the photo; the text made none');
    assert.equal(await page.locator('#messages b').count(), 0, 'nor any other element');
    assert.notEqual(await page.title(), 'pwned', 'nothing of it ran');
    assert.ok(await messages.locator('li').first().getAttribute('data-message-id').then((id) => id === first.messageId), 'oldest first');

    // Reply from the page: the contact receives it, and it shows as ours.
    await page.getByLabel('Reply').fill('Yes, until 6 pm!');
    await page.getByRole('button', { name: 'Send reply' }).click();
    const got = await h.admin.waitForReceived(contact, (m) => JSON.stringify(m).includes('Yes, until 6 pm!'), WAIT);
    assert.ok(got, 'the contact received the reply');
    await messages.locator('li.msg.out').filter({ hasText: 'Yes, until 6 pm!' }).waitFor({ timeout: WAIT });
    await shot(page, 'conversations', false, '#conversations');

    // Mark read: the count goes, on the page and in the stored copy.
    await page.getByRole('button', { name: 'Mark read' }).click();
    await chatButton.locator('.unread').waitFor({ state: 'detached', timeout: WAIT });
    await page.locator('#thread-sub').filter({ hasText: 'all read' }).waitFor({ timeout: WAIT });
    const chats = (await h.call('GET', `${inst.prefix}/chats`)).body.toString();
    assert.equal((JSON.parse(chats) as { phone: string; unread: string }[]).find((c) => c.phone === contact)?.unread, '0', 'read in the API too');

    // The contact edits the first message and deletes the image: both show without a reload.
    await h.admin.sendAsContact({ from: contact, to: owner, type: 'edit', targetId: first.messageId, text: 'hello, are you open today?' });
    await messages.locator(`li[data-message-id="${first.messageId}"]`).filter({ hasText: 'hello, are you open today?' }).filter({ hasText: 'edited' }).waitFor({ timeout: WAIT });
    await h.admin.sendAsContact({ from: contact, to: owner, type: 'revoke', targetId: image.messageId });
    await messages.locator(`li[data-message-id="${image.messageId}"]`).filter({ hasText: 'This message was deleted.' }).waitFor({ timeout: WAIT });
    assert.equal(await messages.locator(`li[data-message-id="${image.messageId}"] img`).count(), 0, 'the deleted image is no longer shown');
    await page.locator('#media img').waitFor({ state: 'detached', timeout: WAIT });
    await shot(page, 'conversations-edited', false, '#conversations');
    assert.deepEqual(failures, [], 'no errors in the page console');
  } finally {
    await page.close();
  }
});

test('an API key signs in and the page offers only what it may do: read-only sees instances and chats, no control; admin sees all; a wrong key is refused', async () => {
  const owner = '5511990006666';
  const contact = '5511990007777';
  await h.admin.createUser({ phone: contact, pushName: 'Kim Contact' });
  const inst = await h.pairNew(owner, 'keyed');
  await h.admin.sendAsContact({ from: contact, to: owner, type: 'text', text: 'is my order on its way?' });
  const keyOf = async (name: string, scopes: string[]): Promise<{ id: string; key: string }> => {
    const r = await h.call('POST', '/keys', { name, scopes });
    assert.equal(r.status, 201, r.body.toString());
    return { id: String(r.json.id), key: String(r.json.key) };
  };
  const { key: readKey } = await keyOf('support tool', ['read']);
  const { id: adminId, key: adminKey } = await keyOf('ops lead', ['admin']);
  /** What GET /keys/me answers a key (its status, and its scopes when live). */
  const meOf = async (key: string): Promise<{ status: number; scopes?: string[] }> => {
    const res = await fetch(`${h.url}/keys/me`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, ...(res.ok ? { scopes: ((await res.json()) as { scopes: string[] }).scopes } : {}) };
  };

  /** Signs in with `key` on a new page and opens the instance (its token pasted once); the page and what went wrong in it. */
  async function openAs(key: string) {
    const page = await browser.context.newPage();
    page.on('dialog', (d) => void d.accept()); // the page asks before revoking a key
        // A control the key may not use is absent, so the page never makes a request the key is refused.
    const problems = pageProblems(page, { uncaught: true, refused: true });
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill(key);
    await page.keyboard.press('Enter');
    await page.locator('#app').waitFor({ state: 'visible', timeout: WAIT });
    await page.getByRole('button', { name: /^keyed/ }).click();
    await page.getByLabel('Instance token').fill(inst.instanceToken);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByRole('heading', { name: 'Conversations', exact: true }).waitFor({ timeout: WAIT });
    const chat = page.locator(`#chat-list button[data-chat="${contact}"]`).filter({ hasText: 'Kim Contact' });
    await chat.waitFor({ timeout: WAIT });
    await chat.click();
    await page.getByRole('list', { name: 'Messages' }).getByText('is my order on its way?').waitFor({ timeout: WAIT });
    await page.locator('#pair-state').filter({ hasText: `Connected as +${owner}` }).waitFor({ timeout: WAIT });
    await page.locator('#queue-count').filter({ hasText: 'waiting' }).waitFor({ timeout: WAIT });
    return { page, problems };
  }
  const visible = async (page: Page, role: 'button' | 'heading', name: string): Promise<boolean> => (await page.getByRole(role, { name, exact: true }).count()) > 0;
  const CONTROLS: [role: 'button' | 'heading', name: string][] = [
    ['button', 'Create'],
    ['heading', 'Test send'],
    ['button', 'Send reply'],
    ['button', 'Mark read'],
    ['heading', 'Settings'],
    ['heading', 'Webhooks'],
    ['button', 'Rotate secret'],
    ['heading', 'Webhook deliveries'],
    ['button', 'Restart'],
    ['button', 'Disconnect'],
    ['button', 'Rename'],
    ['button', 'Delete'],
    ['button', 'Clear queue'],
    ['heading', 'API keys'],
    ['button', 'Add key'],
    ['heading', 'Audit trail'],
  ];

  // Read-only: the instance list, the chat and its messages, the status, the queue — and no control.
  const reader = await openAs(readKey);
  try {
    await reader.page.locator('#whoami').filter({ hasText: 'API key \u201csupport tool\u201d: read' }).waitFor({ timeout: WAIT });
    await reader.page.getByText('Live updates: on').waitFor({ timeout: WAIT });
    const shown: string[] = [];
    for (const [role, name] of CONTROLS) if (await visible(reader.page, role, name)) shown.push(`${role} ${name}`);
    assert.deepEqual(shown, [], 'a read-only key is offered no control');
    assert.equal(await reader.page.getByLabel('Reply').count(), 0, 'no reply box');
    assert.equal(await reader.page.getByLabel('New instance name').isVisible(), false, 'no instance creation');
    await shot(reader.page, 'read-only-key', false);
    // Events still arrive live: a new message shows without a reload.
    await h.admin.sendAsContact({ from: contact, to: owner, type: 'text', text: 'hello again' });
    await reader.page.getByRole('list', { name: 'Messages' }).getByText('hello again').waitFor({ timeout: WAIT });
    assert.deepEqual(reader.problems, [], 'no refused request, no error in the console');
  } finally {
    await reader.page.close();
  }

  // Admin: every control is there.
  const admin = await openAs(adminKey);
  try {
    await admin.page.locator('#whoami').filter({ hasText: 'API key \u201cops lead\u201d: admin' }).waitFor({ timeout: WAIT });
    const missing: string[] = [];
    for (const [role, name] of CONTROLS) if (!(await visible(admin.page, role, name))) missing.push(`${role} ${name}`);
    assert.deepEqual(missing, [], 'an admin key is offered everything');
    // And it works: the reply reaches the contact.
    await admin.page.getByLabel('Reply').fill('On its way, arriving tomorrow.');
    await admin.page.getByRole('button', { name: 'Send reply' }).click();
    assert.ok(await h.admin.waitForReceived(contact, (m) => JSON.stringify(m).includes('arriving tomorrow'), WAIT), 'the contact received the reply');

    // The account's keys: one made on the page (its secret shown once) works with its scope; revoked
    // on the page, it stops working; both changes are in the audit trail, made by this key.
    await admin.page.getByLabel('New key name').fill('reporting');
    await admin.page.getByRole('checkbox', { name: 'read', exact: true }).check();
    await admin.page.getByRole('button', { name: 'Add key' }).click();
    const shownSecret = admin.page.locator('#key-secret').filter({ hasText: 'zk_' });
    await shownSecret.waitFor({ timeout: WAIT });
    const secret = /(zk_\S+)/.exec(String(await shownSecret.textContent()))![1]!;
    assert.deepEqual(await meOf(secret), { status: 200, scopes: ['read'] }, 'the key made on the page works, with the scope chosen');
    await admin.page.getByRole('button', { name: 'Revoke key reporting' }).click();
    await admin.page.locator('#key-list li').filter({ hasText: 'reporting' }).filter({ hasText: 'revoked' }).waitFor({ timeout: WAIT });
    assert.equal((await meOf(secret)).status, 401, 'revoked on the page: refused');
    const audit = admin.page.getByRole('list', { name: 'Newest changes first' });
    await audit.locator('li').filter({ hasText: `keys_revoke \u00b7 key:${adminId}` }).waitFor({ timeout: WAIT });
    await audit.locator('li').filter({ hasText: `keys_create \u00b7 key:${adminId}` }).waitFor({ timeout: WAIT });
    await shot(admin.page, 'api-keys', false, '#account-admin');
    assert.deepEqual(admin.problems, [], 'no refused request, no error in the console');
  } finally {
    await admin.page.close();
  }

  // A wrong key: the refusal, nothing of the account.
  const page = await browser.context.newPage();
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill('zk_not-a-key-of-this-gateway');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'That Client-Token or API key was refused' }).waitFor({ timeout: WAIT });
    assert.equal(await page.locator('#app').isVisible(), false, 'the account view stays hidden');
  } finally {
    await page.close();
  }
});

test('a key limited to one instance sees that instance only, by name once its token is given, and no account-wide panel', async () => {
  const owner = '5511990008888';
  const inst = await h.pairNew(owner, 'franchise');
  const other = await h.call('POST', '/instances', { name: 'head office' });
  assert.equal(other.status, 201);
  const r = await h.call('POST', '/keys', { name: 'franchisee', scopes: ['read', 'send'], instanceIds: [inst.instanceId] });
  assert.equal(r.status, 201, r.body.toString());
  const page = await browser.context.newPage();
  const problems = pageProblems(page, { refused: true });
  try {
    await page.goto(`${h.url}/dashboard`);
    await page.getByLabel('Client-Token or API key').fill(String(r.json.key));
    await page.keyboard.press('Enter');
    await page.locator('#whoami').filter({ hasText: 'API key \u201cfranchisee\u201d: read, send' }).waitFor({ timeout: WAIT });
    // Only its instance, by id until the page holds its token.
    const list = page.locator('#instance-list li');
    await list.first().waitFor({ timeout: WAIT });
    assert.equal(await list.count(), 1, 'one instance listed');
    assert.doesNotMatch(String(await page.locator('#instance-list').textContent()), /head office/, 'not the account\'s other instance');
    await page.getByRole('button', { name: new RegExp(`^${inst.instanceId}`) }).click();
    await page.getByLabel('Instance token').fill(inst.instanceToken);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator('#instance-list').filter({ hasText: 'franchise' }).filter({ hasText: `+${owner}` }).waitFor({ timeout: WAIT });
    await page.locator('#pair-state').filter({ hasText: `Connected as +${owner}` }).waitFor({ timeout: WAIT });
    // Its scopes' controls; nothing account-wide (no create, no live account stream, no keys or audit).
    await page.getByRole('heading', { name: 'Test send', exact: true }).waitFor({ timeout: WAIT });
    for (const name of ['Settings', 'API keys', 'Audit trail', 'Webhook deliveries', 'Account']) assert.equal(await page.getByRole('heading', { name, exact: true }).count(), 0, `no ${name}`);
    assert.equal(await page.getByRole('button', { name: 'Create', exact: true }).count(), 0, 'no instance creation');
    assert.equal(await page.locator('#live').isVisible(), false, 'no account-wide event stream');
    // Reload: the tab keeps the token, and names the instance at once.
    await page.reload();
    await page.locator('#instance-list').filter({ hasText: 'franchise' }).waitFor({ timeout: WAIT });
    assert.deepEqual(problems, [], 'no refused request, no error in the console');
  } finally {
    await page.close();
  }
});
