// WhatsApp Business end to end (gateway + Baileys + simnet): the business profile (set on the
// network, read back for the account and for another business), the category directory, tags
// (labels) created, edited, put on chats and deleted, with the phone's side of each change checked on
// simnet; labels made on the phone reach GET /tags and the CHAT_LABEL_ASSOCIATION webhook; a personal
// account gets 403 for what only business accounts may do.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511900014001';
const PERSONAL = '5511900014002';
const ANA = '5511900014003';
const BOB = '5511900014004';
const SHOP = '5511900014005';
/** The WhatsApp Business app's predefined labels (simnet's business phones have them). */
const PREDEFINED = [
  { id: '1', name: 'New customer', color: 1 },
  { id: '2', name: 'New order', color: 2 },
  { id: '3', name: 'Pending payment', color: 0 },
  { id: '4', name: 'Paid', color: 3 },
  { id: '5', name: 'Order complete', color: 5 },
];

describe('engine business profile and tags (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let biz: Instance;
  let personal: Instance;
  const call = (inst: Instance, method: string, path: string, body?: unknown) => h.call(method, `${inst.prefix}/${path}`, body);
  const ok = async (inst: Instance, method: string, path: string, body?: unknown, status = 200) => {
    const r = await call(inst, method, path, body);
    assert.equal(r.status, status, `${method} ${path}: ${r.body.toString()}`);
    return JSON.parse(r.body.toString()) as unknown;
  };
  const labelHits = (inst: Instance) => (hit: WebhookHit) => hit.path === `/${inst.instanceId}` && hit.body.notification === 'CHAT_LABEL_ASSOCIATION';

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: OWNER, pushName: 'Bakery', business: true });
    await h.admin.createUser({ phone: ANA, pushName: 'Ana Shop', business: true });
    await h.admin.createUser({ phone: BOB, pushName: 'Bob' });
    await h.admin.setBusinessProfile(ANA, { description: 'Handmade shoes', address: 'Rua A 1', email: 'ana@example.com', websites: ['https://ana.example'], categories: ['200600219953504'] });
    biz = await h.pairNew(OWNER, 'business');
    personal = await h.pairNew(PERSONAL, 'personal');
  });
  after(async () => {
    await h?.close();
  });

  test('company description, address, email, websites, categories and hours are set on the network and read back', async () => {
    assert.deepEqual(await ok(biz, 'POST', 'business/company-description', { value: 'Fresh bread every morning' }, 201), { success: true });
    await ok(biz, 'POST', 'business/company-address', { value: 'Rua das Flores 100' }, 201);
    await ok(biz, 'POST', 'business/company-email', { value: 'bakery@example.com' }, 201);
    await ok(biz, 'POST', 'business/company-websites', { websites: ['https://bakery.example', 'https://shop.example'] }, 201);
    await ok(biz, 'POST', 'business/categories', { categories: ['RESTAURANT', '2214'] }, 201);
    await ok(biz, 'POST', 'business/hours', { timezone: 'America/Sao_Paulo', mode: 'specificHours', days: [{ dayOfWeek: 'TUESDAY', openTime: '09:00', closeTime: '17:30' }, { dayOfWeek: 'MONDAY', openTime: '08:00', closeTime: '18:00' }] }, 201);
    const net = await h.admin.businessProfile(OWNER);
    assert.deepEqual(
      { description: net.description, address: net.address, email: net.email, websites: net.websites, categoryNames: net.categoryNames, hours: net.hours },
      {
        description: 'Fresh bread every morning',
        address: 'Rua das Flores 100',
        email: 'bakery@example.com',
        websites: ['https://bakery.example', 'https://shop.example'],
        categoryNames: ['Restaurant', 'Finance'],
        hours: { timezone: 'America/Sao_Paulo', days: [{ day: 'mon', mode: 'specific_hours', openMinutes: 480, closeMinutes: 1080 }, { day: 'tue', mode: 'specific_hours', openMinutes: 540, closeMinutes: 1050 }] },
      },
      'the network keeps what was set',
    );
    assert.deepEqual(await ok(biz, 'GET', 'business/profile'), {
      description: 'Fresh bread every morning',
      address: 'Rua das Flores 100',
      email: 'bakery@example.com',
      websites: ['https://bakery.example', 'https://shop.example'],
      categories: [
        { displayName: 'Restaurant', label: 'RESTAURANT', id: '273819889375819' },
        { displayName: 'Finance', label: 'FINANCE', id: '2214' },
      ],
      businessHours: { timezone: 'America/Sao_Paulo', mode: 'specificHours', days: [{ dayOfWeek: 'MONDAY', openTime: '08:00', closeTime: '18:00' }, { dayOfWeek: 'TUESDAY', openTime: '09:00', closeTime: '17:30' }] },
      hasCoverPhoto: false,
    });
    // Empty values remove; open24h on no listed day is every day.
    await ok(biz, 'POST', 'business/company-description', { value: '' }, 201);
    await ok(biz, 'POST', 'business/company-websites', { websites: [] }, 201);
    await ok(biz, 'POST', 'business/hours', { timezone: 'Europe/Lisbon', mode: 'open24h' }, 201);
    const cleared = await h.admin.businessProfile(OWNER);
    assert.deepEqual([cleared.description, cleared.websites, cleared.address], ['', [], 'Rua das Flores 100'], 'only what was sent changed');
    assert.equal(cleared.hours?.days.length, 7, 'open every day');
    const own = (await ok(biz, 'GET', 'business/profile')) as { businessHours: { mode: string; days: unknown[] } };
    assert.deepEqual([own.businessHours.mode, own.businessHours.days.length], ['open24h', 7]);
  });

  test("another business's profile is readable (by a personal account too); a personal number has none (404)", async () => {
    for (const inst of [biz, personal]) {
      const ana = (await ok(inst, 'GET', `business/profile?phone=${ANA}`)) as Record<string, unknown>;
      assert.deepEqual([ana.description, ana.address, ana.email, ana.websites], ['Handmade shoes', 'Rua A 1', 'ana@example.com', ['https://ana.example']]);
      assert.deepEqual(ana.categories, [{ displayName: 'Shopping & retail', label: 'SHOPPING_RETAIL', id: '200600219953504' }]);
      assert.equal(ana.businessHours, null);
    }
    const bob = await call(biz, 'GET', `business/profile?phone=${BOB}`);
    assert.equal(bob.status, 404, bob.body.toString());
  });

  test('available-categories searches the directory; unknown categories and bad values are refused before anything changes', async () => {
    const found = (await ok(biz, 'GET', 'business/available-categories?query=rest')) as { label: string }[];
    assert.deepEqual(found.map((c) => c.label), ['RESTAURANT']);
    assert.ok(((await ok(biz, 'GET', 'business/available-categories')) as unknown[]).length >= 10, 'the whole directory without a query');
    const before = await h.admin.businessProfile(OWNER);
    const bad: [string, unknown][] = [
      ['business/categories', { categories: ['NOT_A_CATEGORY'] }],
      ['business/categories', { categories: ['RESTAURANT', 'FINANCE', 'EDUCATION', 'MEDICAL_HEALTH'] }],
      ['business/company-email', { value: 'not an email' }],
      ['business/company-websites', { websites: ['ftp://x.example'] }],
      ['business/company-websites', { websites: ['https://a.example', 'https://b.example', 'https://c.example'] }],
      ['business/hours', { timezone: 'Mars/Olympus', days: [] }],
      ['business/hours', { timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'MONDAY', openTime: '18:00', closeTime: '08:00' }] }],
      ['business/hours', { timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'FUNDAY', openTime: '08:00', closeTime: '18:00' }] }],
    ];
    for (const [path, body] of bad) {
      const r = await call(biz, 'POST', path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.body.toString()}`);
    }
    assert.deepEqual(await h.admin.businessProfile(OWNER), before, 'nothing changed on the network');
  });

  test('a personal account gets 403 for its own profile, changes and tags; the network is not asked', async () => {
    const asked = async () => {
      const c = (await h.admin.counters()).counters;
      return [c['biz.profile.get'] ?? 0, c['biz.profile.set'] ?? 0, c['appstate.patch.regular'] ?? 0];
    };
    const before = await asked();
    for (const [method, path, body] of [
      ['GET', 'business/profile', undefined],
      ['POST', 'business/company-description', { value: 'x' }],
      ['POST', 'business/hours', { timezone: 'America/Sao_Paulo' }],
      ['GET', 'business/available-categories', undefined],
      ['GET', 'tags', undefined],
      ['POST', 'business/create-tag', { name: 'x' }],
      ['PUT', `chats/${ANA}/tags/1/add`, undefined],
      ['POST', `chats/${ANA}/notes`, { notes: 'x' }],
    ] as const) {
      const r = await call(personal, method, path, body);
      assert.equal(r.status, 403, `${method} ${path}: ${r.body.toString()}`);
      assert.equal(r.json.error, 'WhatsApp Business account required');
    }
    assert.deepEqual(await asked(), before, 'no profile query, profile change or label patch reached the network');
    const colors = (await ok(personal, 'GET', 'business/tags/colors')) as Record<string, string>;
    assert.equal(colors['0'], '#FF9485', 'the colour table is static');
  });

  test('tags: created, edited, put on a chat and taken off, deleted; the phone holds each change', async () => {
    // The Business app's predefined labels, synced from the phone at login.
    assert.deepEqual(await ok(biz, 'GET', 'tags'), PREDEFINED);
    assert.deepEqual(await ok(biz, 'POST', 'business/create-tag', { name: 'VIP customer', color: 1 }), { id: '6' });
    assert.deepEqual(await ok(biz, 'POST', 'business/create-tag', { name: 'Paid in advance' }), { id: '7' });
    assert.deepEqual(await ok(biz, 'GET', 'tags'), [...PREDEFINED, { id: '6', name: 'VIP customer', color: 1 }, { id: '7', name: 'Paid in advance', color: 0 }]);
    let phone = await until('the labels on the phone', () => h.admin.labels(OWNER), (l) => l.labels.length === 7);
    assert.deepEqual(phone.labels.slice(5).map((l) => [l.id, l.name, l.color]), [['6', 'VIP customer', 1], ['7', 'Paid in advance', 0]]);

    assert.deepEqual(await ok(biz, 'POST', 'business/edit-tag/7', { name: 'Paid in full', color: 5 }), { success: true });
    phone = await until('the rename on the phone', () => h.admin.labels(OWNER), (l) => l.labels.some((x) => x.name === 'Paid in full'));
    assert.equal(phone.labels.find((l) => l.id === '7')?.color, 5);

    const hooks = h.webhooks.hits.length;
    assert.deepEqual(await ok(biz, 'PUT', `chats/${ANA}/tags/6/add`), { value: true });
    phone = await until('the association on the phone', () => h.admin.labels(OWNER), (l) => l.associations.length === 1);
    assert.deepEqual(phone.associations, [{ labelId: '6', chat: `${ANA}@s.whatsapp.net` }]);
    const added = await h.webhooks.waitFor((hit) => h.webhooks.hits.indexOf(hit) >= hooks && labelHits(biz)(hit), 15_000, 'CHAT_LABEL_ASSOCIATION');
    assert.deepEqual(added.body.notificationParameters, [{ phone: ANA, label: '6', assigned: true }]);
    assert.deepEqual([added.body.fromMe, added.body.phone, added.body.type], [true, OWNER, 'ReceivedCallback']);

    assert.deepEqual(await ok(biz, 'PUT', `chats/${ANA}/tags/6/remove`), { value: true });
    await until('the association gone from the phone', () => h.admin.labels(OWNER), (l) => l.associations.length === 0);

    for (const [method, path, body, status] of [
      ['POST', 'business/create-tag', { name: '   ' }, 400],
      ['POST', 'business/create-tag', { name: 'x', color: 20 }, 400],
      ['POST', 'business/edit-tag/99', { name: 'x' }, 404],
      ['DELETE', 'business/tag/99', undefined, 404],
      ['DELETE', 'business/tag/abc', undefined, 400],
      ['PUT', `chats/${ANA}/tags/99/add`, undefined, 404],
      ['PUT', 'chats/not-a-phone/tags/1/add', undefined, 400],
    ] as const) {
      const r = await call(biz, method, path, body);
      assert.equal(r.status, status, `${method} ${path}: ${r.body.toString()}`);
    }

    // Two creations at once get two ids.
    const [a, b] = (await Promise.all([ok(biz, 'POST', 'business/create-tag', { name: 'Urgent' }), ok(biz, 'POST', 'business/create-tag', { name: 'Later' })])) as { id: string }[];
    assert.deepEqual([a!.id, b!.id].sort(), ['8', '9']);
    for (const id of ['8', '9', '7']) assert.deepEqual(await ok(biz, 'DELETE', `business/tag/${id}`), { success: true });
    await until('the labels gone from the phone', () => h.admin.labels(OWNER), (l) => l.labels.length === 6);
    assert.deepEqual(await ok(biz, 'GET', 'tags'), [...PREDEFINED, { id: '6', name: 'VIP customer', color: 1 }]);
  });

  test('labels made on the phone reach GET /tags, and a label the phone puts on a chat arrives as CHAT_LABEL_ASSOCIATION', async () => {
    await h.admin.editLabel(OWNER, { id: '20', name: 'Gold', color: 3 });
    await until('the phone\'s label in GET /tags', async () => (await ok(biz, 'GET', 'tags')) as { id: string }[], (tags) => tags.some((t) => t.id === '20'));
    const hooks = h.webhooks.hits.length;
    await h.admin.labelChat(OWNER, '20', BOB, true);
    const hit = await h.webhooks.waitFor((x) => h.webhooks.hits.indexOf(x) >= hooks && labelHits(biz)(x), 15_000, 'CHAT_LABEL_ASSOCIATION from the phone');
    assert.deepEqual(hit.body.notificationParameters, [{ phone: BOB, label: '20', assigned: true }]);
    assert.deepEqual([hit.body.fromMe, hit.body.phone, hit.body.connectedPhone], [true, OWNER, OWNER]);
    await h.admin.labelChat(OWNER, '20', BOB, false);
    const off = await h.webhooks.waitFor((x) => h.webhooks.hits.indexOf(x) > h.webhooks.hits.indexOf(hit) && labelHits(biz)(x), 15_000, 'the label taken off on the phone');
    assert.deepEqual(off.body.notificationParameters, [{ phone: BOB, label: '20', assigned: false }]);
    // The phone deletes its label: the list follows.
    await h.admin.editLabel(OWNER, { id: '20', name: 'Gold', deleted: true });
    await until('the deleted label gone from GET /tags', async () => (await ok(biz, 'GET', 'tags')) as { id: string }[], (tags) => !tags.some((t) => t.id === '20'));
  });

  test('chat notes: set on the account\'s phone (a second call replaces the note), never sent to the customer', async () => {
    const received = (await h.admin.received(ANA)).length;
    assert.deepEqual(await ok(biz, 'POST', `chats/${ANA}/notes`, { notes: 'Prefers delivery after 6 pm' }), { success: true });
    let notes = await until('the note on the phone', () => h.admin.chatNotes(OWNER), (n) => n.length === 1);
    assert.deepEqual(notes.map((n) => [n.chat, n.text]), [[`${ANA}@s.whatsapp.net`, 'Prefers delivery after 6 pm']]);
    await ok(biz, 'POST', `chats/${ANA}/notes`, { notes: 'Prefers delivery after 8 pm' });
    notes = await until('the note replaced', () => h.admin.chatNotes(OWNER), (n) => n[0]?.text === 'Prefers delivery after 8 pm');
    assert.equal(notes.length, 1, 'still one note on the chat');
    for (const [path, body] of [[`chats/${ANA}/notes`, { notes: '   ' }], ['chats/x/notes', { notes: 'a' }], [`chats/${ANA}/notes`, {}]] as const) {
      const r = await call(biz, 'POST', path, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.body.toString()}`);
    }
    assert.equal((await h.admin.received(ANA)).length, received, 'the customer received nothing');
  });

  test('labels the phone had before pairing are synced at pairing; changes made while the gateway was down arrive when it is back', async () => {
    await h.admin.createUser({ phone: SHOP, pushName: 'Shop', business: true });
    await h.admin.editLabel(SHOP, { id: '10', name: 'Wholesale', color: 4 });
    await h.admin.labelChat(SHOP, '10', ANA, true);
    // Webhooks set before the phone scans: the sync at login is reported.
    const shop = await h.createInstance('shop');
    await ok(shop, 'PUT', 'update-every-webhooks', { value: `${h.webhooks.url}/${shop.instanceId}`, notifySentByMe: false });
    await h.admin.scanQr(SHOP, await h.qrFromPng(shop));
    await h.waitForStatus(shop, 'connected');
    await until('the phone\'s labels in GET /tags', async () => (await ok(shop, 'GET', 'tags')) as unknown[], (t) => t.length === 6);
    assert.deepEqual(await ok(shop, 'GET', 'tags'), [...PREDEFINED, { id: '10', name: 'Wholesale', color: 4 }]);
    const atPairing = await h.webhooks.waitFor((x) => labelHits(shop)(x), 15_000, 'the association the phone had, at pairing');
    assert.deepEqual(atPairing.body.notificationParameters, [{ phone: ANA, label: '10', assigned: true }]);
    // The new tag's id follows the phone's.
    assert.deepEqual(await ok(shop, 'POST', 'business/create-tag', { name: 'Retail' }), { id: '11' });

    await h.stopGateway();
    await h.admin.labelChat(SHOP, '10', BOB, true);
    await h.admin.editLabel(SHOP, { id: '10', name: 'Wholesale (big)', color: 4 });
    const hooks = h.webhooks.hits.length;
    await h.startGateway();
    await h.waitForStatus(shop, 'connected');
    const hit = await h.webhooks.waitFor((x) => h.webhooks.hits.indexOf(x) >= hooks && labelHits(shop)(x) && JSON.stringify(x.body.notificationParameters).includes(BOB), 20_000, 'the association made while down');
    assert.deepEqual(hit.body.notificationParameters, [{ phone: BOB, label: '10', assigned: true }]);
    await until('the rename made while down', async () => (await ok(shop, 'GET', 'tags')) as { name: string }[], (t) => t.some((x) => x.name === 'Wholesale (big)'));
    const anaHits = h.webhooks.hits.filter((x) => labelHits(shop)(x) && JSON.stringify(x.body.notificationParameters).includes(ANA));
    assert.equal(anaHits.length, 1, 'the association from before pairing was reported once, not again after the restart');
  });
});
