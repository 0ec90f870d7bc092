// History sync at pairing end to end: HTTP → services → Baileys → simnet. The account's phone holds
// 500 chats spread over 30 days; an instance that opted in with a 7-day window is paired through
// its QR code and GET /chats lists exactly the chats of the window with their last messages, the
// contacts carry the phone's push names, a restart changes nothing, an instance that did not opt in
// imports nothing, and the received webhook gets history only when asked (marked fromHistory).
// Also measured (printed as test diagnostics): scan → first live event with and without history,
// and scan → the whole history imported.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { Value } from '@sinclair/typebox/value';
import type { HistorySummary } from '../../simnet/src/index.js';
import { ReceivedCallbackSchema } from '../../src/http/schemas/callbacks.js';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900009101';
const PLAIN_OWNER = '5511900009102';
const HOOK_OWNER = '5511900009103';
const LIVE = '5511900009150';
const DAY = 86_400_000;

type ChatJson = Record<string, unknown> & { phone: string };

/** Chats with a message in the window, and those messages, as the seeded phone holds them. */
function expected(h: HistorySummary, days: number, now: number) {
  const cutoff = now - days * DAY;
  const chats = h.chats.filter((c) => c.messages.some((m) => m.at >= cutoff));
  return { chats, messages: chats.flatMap((c) => c.messages.filter((m) => m.at >= cutoff)) };
}

describe('history sync at pairing (gateway + Baileys + simnet)', () => {
  let h: Harness;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: LIVE, pushName: 'Live' });
  });
  after(async () => {
    await h?.close();
  });

  const allChats = async (inst: Instance): Promise<ChatJson[]> => {
    const out: ChatJson[] = [];
    for (let page = 1; page <= 10; page++) {
      const r = await h.call('GET', `${inst.prefix}/chats?page=${page}&pageSize=100`);
      assert.equal(r.status, 200, r.body.toString());
      const rows = JSON.parse(r.body.toString()) as ChatJson[];
      out.push(...rows);
      if (rows.length < 100) break;
    }
    return out;
  };
  const storedMessages = async (instanceId: string): Promise<number> => {
    const r = await h.gateway.store.database.db.selectFrom('chat_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('instance_id', '=', instanceId).executeTakeFirstOrThrow();
    return Number(r.n);
  };

  /** Creates an instance, applies `setup` before pairing, scans its QR; returns when connected. */
  async function pair(owner: string, setup: (inst: Instance) => Promise<void>): Promise<{ inst: Instance; scannedAt: number }> {
    await h.admin.createUser({ phone: owner, pushName: `owner ${owner}` }).catch(() => undefined);
    const inst = await h.createInstance(`history ${owner}`);
    const hook = await h.call('PUT', `${inst.prefix}/update-every-webhooks`, { value: `${h.webhooks.url}/${inst.instanceId}`, notifySentByMe: false });
    assert.equal(hook.status, 200, hook.body.toString());
    await setup(inst);
    const qr = await h.qrFromPng(inst);
    const scannedAt = performance.now();
    await h.admin.scanQr(owner, qr);
    return { inst, scannedAt };
  }

  /**
   * A contact writes as soon as the device is linked (the network holds the message until the
   * device logs in): ms from the scan to its ReceivedCallback.
   */
  async function firstLiveEvent(inst: Instance, owner: string, scannedAt: number): Promise<number> {
    // The scan returns at pair-success; the device joins the account at the companion's answer.
    await until('the device linked', () => h.admin.user(owner), (u) => u.devices.length > 0, 30_000);
    const { messageId } = await h.admin.sendAsContact({ from: LIVE, to: owner, type: 'text', text: `live after pairing ${owner}` });
    const hit = await h.webhooks.waitFor((x) => x.path === `/${inst.instanceId}` && x.body.messageId === messageId, 60_000, 'the live message\'s webhook');
    assert.equal(hit.body.fromHistory, undefined, 'a live message is not marked as history');
    return Math.round(performance.now() - scannedAt);
  }

  test('500 chats on the phone, opted in for 7 days: exactly the chats of the window, last messages, push names; a restart changes nothing', async (t) => {
    const seeded = await h.admin.seedHistory(OWNER, { chats: 500, messagesPerChat: 4, days: 30, groups: 20, chunkChats: 50 });
    // The window is on the gateway's clock, the one the network stamped the history with.
    const want = expected(seeded, 7, h.clock.now());
    assert.ok(want.chats.length > 100 && want.chats.length < 130, `about 7/30 of the chats are in the window: ${want.chats.length}`);

    const { inst, scannedAt } = await pair(OWNER, async (i) => {
      const before = await h.call('GET', `${i.prefix}/history-sync`);
      assert.deepEqual(before.json, { enabled: false, days: 7, webhook: false }, 'off by default');
      const set = await h.call('PUT', `${i.prefix}/update-history-sync`, { enabled: true, days: 7 });
      assert.equal(set.status, 200, set.body.toString());
      assert.deepEqual(set.json, { value: true, enabled: true, days: 7, webhook: false }, 'the stored settings');
    });
    // Measured side by side: the history's import and the first live message.
    let importMs = 0;
    const imported = until('every message of the window stored', () => storedMessages(inst.instanceId), (n) => n >= want.messages.length, 120_000).then(() => {
      importMs = Math.round(performance.now() - scannedAt);
    });
    const liveMs = await firstLiveEvent(inst, OWNER, scannedAt);
    await imported;
    await h.waitForStatus(inst, 'connected', 60_000);
    const chats = await until('every chat of the window', () => allChats(inst), (c) => c.length >= want.chats.length + 1, 60_000);
    // The live contact's chat is there too; everything else is history.
    const history = chats.filter((c) => c.phone !== LIVE);
    assert.deepEqual(history.map((c) => c.phone).sort(), want.chats.map((c) => c.chatId).sort(), 'exactly the chats with a message in the window');
    for (const c of want.chats) {
      const got = history.find((x) => x.phone === c.chatId)!;
      const last = c.messages.at(-1)!;
      assert.deepEqual({ id: got.lastMessageId, at: got.lastMessageTime }, { id: last.id, at: String(last.at) }, `${c.chatId}: its newest message`);
      assert.equal(got.name, c.name, `${c.chatId}: named as on the phone`);
      assert.equal(got.archived, String(c.archived), `${c.chatId}: archived as on the phone`);
      assert.equal(got.pinned, String(c.pinned), `${c.chatId}: pinned as on the phone`);
      assert.equal(got.unread, String(c.unread), `${c.chatId}: unread as on the phone`);
      assert.equal(got.isGroup, c.isGroup, `${c.chatId}: group or not`);
    }
    const one = want.chats.find((c) => !c.isGroup && c.unread > 0)!;
    const meta = await h.call('GET', `${inst.prefix}/chats/${one.chatId}`);
    assert.equal(meta.status, 200, meta.body.toString());
    assert.deepEqual({ id: meta.json.lastMessageId, unread: meta.json.unread }, { id: one.messages.at(-1)!.id, unread: String(one.unread) }, 'GET /chats/{phone} shows the imported chat');
    const listed = await h.call('GET', `${inst.prefix}/chat-messages/${one.chatId}?amount=50`);
    assert.equal(listed.status, 200, listed.body.toString());
    assert.deepEqual(
      (JSON.parse(listed.body.toString()) as Record<string, unknown>[]).map((m) => [m.messageId, m.body]),
      one.messages.filter((m) => m.at >= h.clock.now() - 7 * DAY - 60_000).reverse().map((m) => [m.id, m.text]),
      'GET /chat-messages/{phone} lists the imported messages, newest first',
    );
    await until('every message of the window stored', () => storedMessages(inst.instanceId), (n) => n >= want.messages.length + 1, 60_000);
    const stored = await storedMessages(inst.instanceId);
    assert.equal(stored, want.messages.length + 1, 'the window\'s messages (and the live one), none older');

    // The push names come in their own notice, after the chats.
    const contacts = await until(
      'the push names',
      async () => JSON.parse((await h.call('GET', `${inst.prefix}/contacts?page=1&pageSize=1000`)).body.toString()) as Record<string, unknown>[],
      (list) => list.filter((c) => typeof c.notify === 'string' && c.notify.startsWith('push ')).length >= seeded.pushNames,
      30_000,
    );
    const outside = seeded.chats.find((c) => !c.isGroup && !want.chats.includes(c))!;
    assert.equal(contacts.find((c) => c.phone === one.chatId)?.notify, `push ${seeded.chats.indexOf(one)}`, 'push names from the phone');
    assert.equal(contacts.find((c) => c.phone === outside.chatId)?.name, outside.name, 'contacts are people, not bounded by the window');

    const historyIds = new Set(want.messages.map((m) => m.id));
    assert.equal(h.webhooks.hits.filter((x) => historyIds.has(String(x.body.messageId))).length, 0, 'no webhook for history by default');

    await h.restartGateway();
    await h.waitForStatus(inst, 'connected', 60_000);
    const again = await allChats(inst);
    assert.equal(again.length, chats.length, 'the same chats after a restart');
    assert.equal(await storedMessages(inst.instanceId), stored, 'no message stored twice');
    t.diagnostic(`measure: opted in, 500 chats (${want.chats.length} in window, ${want.messages.length} messages): scan → first live event ${liveMs} ms; scan → history imported ${importMs} ms`);
  });

  test('an instance that did not opt in imports nothing; its first live event is measured the same way', async (t) => {
    await h.admin.seedHistory(PLAIN_OWNER, { chats: 500, messagesPerChat: 4, days: 30, groups: 20, chunkChats: 50 });
    const { inst, scannedAt } = await pair(PLAIN_OWNER, async () => {});
    const liveMs = await firstLiveEvent(inst, PLAIN_OWNER, scannedAt);
    await h.waitForStatus(inst, 'connected', 60_000);
    // The phone sent its history meanwhile (the chunks went out). A live message after them is
    // handled after them; once it has reached the webhook, whatever they made the session queue
    // for import is queued, and the importer's idle() says when that is done.
    await until('the phone sent its history', async () => (await h.admin.counters()).counters['history.chunks'] ?? 0, (n) => n >= 20, 30_000);
    const marker = await h.admin.sendAsContact({ from: LIVE, to: PLAIN_OWNER, type: 'text', text: 'after the history' });
    await h.webhooks.waitFor((x) => x.path === `/${inst.instanceId}` && x.body.messageId === marker.messageId, 15_000, 'the message after the history');
    await h.gateway.engine!.sessionOf(inst.instanceId)!.history.idle();
    const chats = await allChats(inst);
    assert.deepEqual(chats.map((c) => c.phone), [LIVE], 'only the live chat');
    assert.equal(await storedMessages(inst.instanceId), 2, 'only the live messages');
    const contacts = JSON.parse((await h.call('GET', `${inst.prefix}/contacts?page=1&pageSize=1000`)).body.toString()) as Record<string, unknown>[];
    assert.deepEqual(contacts.map((c) => c.phone), [LIVE], 'no contact from the history');
    t.diagnostic(`measure: not opted in, 500 chats on the phone: scan → first live event ${liveMs} ms`);
  });

  test('opted in with the webhook: imported received messages reach it once, marked fromHistory', async () => {
    const seeded = await h.admin.seedHistory(HOOK_OWNER, { chats: 40, messagesPerChat: 3, days: 6, chunkChats: 15 });
    const want = expected(seeded, 3, h.clock.now());
    const incoming = want.messages.filter((m) => !m.fromMe);
    const { inst } = await pair(HOOK_OWNER, async (i) => {
      const set = await h.call('PUT', `${i.prefix}/update-history-sync`, { enabled: true, days: 3, webhook: true });
      assert.equal(set.status, 200, set.body.toString());
    });
    await h.waitForStatus(inst, 'connected', 60_000);
    const ids = new Set(incoming.map((m) => m.id));
    const mine = () => h.webhooks.hits.filter((x) => x.path === `/${inst.instanceId}` && ids.has(String(x.body.messageId)));
    await until('a webhook per imported received message', async () => mine().length, (n) => n >= ids.size, 60_000);
    const hits = mine();
    assert.equal(hits.length, ids.size, 'each once');
    assert.ok(hits.every((x) => x.body.type === 'ReceivedCallback' && x.body.fromHistory === true && x.body.fromMe === false), 'ReceivedCallback marked fromHistory');
    const errs = [...Value.Errors(ReceivedCallbackSchema, hits[0]!.body)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
    assert.deepEqual(errs, [], 'the documented ReceivedCallback schema');
    const sample = hits.find((x) => x.body.messageId === incoming[0]!.id)!;
    assert.deepEqual((sample.body.text as { message: string }).message, incoming[0]!.text, 'with its content');
    const outsideIds = seeded.chats.flatMap((c) => c.messages).filter((m) => !want.messages.includes(m)).map((m) => m.id);
    assert.equal(h.webhooks.hits.filter((x) => outsideIds.includes(String(x.body.messageId))).length, 0, 'nothing older than the window');
  });

  test('the setting: bad input is a 400 and changes nothing', async () => {
    const inst = await h.createInstance('history settings');
    for (const body of [{ enabled: true, days: 0 }, { enabled: true, days: 366 }, { enabled: 'yes' }, { days: 3 }, { enabled: true, days: 2.5 }]) {
      const r = await h.call('PUT', `${inst.prefix}/update-history-sync`, body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.body.toString()}`);
    }
    assert.deepEqual((await h.call('GET', `${inst.prefix}/history-sync`)).json, { enabled: false, days: 7, webhook: false }, 'unchanged');
    const r = await h.call('PUT', `${inst.prefix}/update-history-sync`, { enabled: true, days: 365, webhook: true });
    assert.deepEqual(r.json, { value: true, enabled: true, days: 365, webhook: true });
    const off = await h.call('PUT', `${inst.prefix}/update-history-sync`, { enabled: false });
    assert.deepEqual(off.json, { value: true, enabled: false, days: 365, webhook: true }, 'omitted fields keep their values');
  });
});
