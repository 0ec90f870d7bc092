// The send-kinds end to end, one pairing: HTTP → queue → sender → Baileys → simnet, where the
// contact's phone decrypts each message and the test checks what arrived (admin.received): link
// previews, contact cards, polls, reactions, forwards, read receipts, pins, edits, the interactive
// buttons in their fallback and native renderings, and the list wording setting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import type { ReceivedMessage } from '../../simnet/src/index.js';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900003001';
const CARLA = '5511900003002';
const DAN = '5511900003003';

describe('engine send-kinds (gateway + sender + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let pngUri = '';

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: DAN, pushName: 'Dan' });
    inst = await h.pairNew(OWNER, 'kinds');
    const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: { r: 10, g: 160, b: 90 } } }).png().toBuffer();
    pngUri = `data:image/png;base64,${png.toString('base64')}`;
  });
  after(async () => {
    await h?.close();
  });

  async function send(path: string, body: Record<string, unknown>): Promise<string> {
    const r = await h.call('POST', `${inst.prefix}/${path}`, body);
    assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
    assert.deepEqual(Object.keys(r.json).sort(), ['id', 'messageId', 'zaapId']);
    // The pacing gap before it is protocol time: jumped, not waited out.
    await h.sendQueued(inst);
    return String(r.json.messageId);
  }

  function receivedBy(phone: string, id: string): Promise<ReceivedMessage> {
    return h.admin.waitForReceived(phone, (m) => m.id === id, 20_000);
  }

  /** Everything `phone` received from index `from` on, once `id` (the last part) has arrived. */
  async function partsUpTo(phone: string, from: number, id: string): Promise<ReceivedMessage[]> {
    await receivedBy(phone, id);
    const all = await h.admin.received(phone);
    return all.slice(from, all.findIndex((m) => m.id === id) + 1).filter((m) => m.from === OWNER);
  }

  async function fromCarla(text: string): Promise<string> {
    const incoming = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text });
    await h.webhooks.waitFor((w) => w.body.messageId === incoming.messageId, 15_000, 'incoming');
    return incoming.messageId;
  }

  test('send-link: extended text with the preview fields and a thumbnail made by the gateway', async () => {
    const id = await send('send-link', {
      phone: CARLA,
      message: 'See our site',
      image: pngUri,
      linkUrl: 'https://z-api.io',
      title: 'Z-API',
      linkDescription: 'WhatsApp integration',
    });
    const got = await receivedBy(CARLA, id);
    assert.equal(got.type, 'text');
    assert.equal(got.text, 'See our site\nhttps://z-api.io', 'the link is appended when the message lacks it');
    assert.equal(got.link?.matchedText, 'https://z-api.io');
    assert.equal(got.link?.title, 'Z-API');
    assert.equal(got.link?.description, 'WhatsApp integration');
    assert.ok((got.link?.thumbnailBytes ?? 0) > 100, 'a JPEG thumbnail is inline');
    assert.equal(got.link?.thumbnailWidth, 140, 'SMALL by default');
    assert.equal(got.link?.highQuality, undefined, 'a small preview uploads nothing');
    const medium = await send('send-link', { phone: CARLA, message: 'https://z-api.io', image: pngUri, linkUrl: 'https://z-api.io', title: 'M', linkDescription: '', linkType: 'MEDIUM' });
    assert.equal((await receivedBy(CARLA, medium)).link?.thumbnailWidth, 300);
    const large = await send('send-link', { phone: CARLA, message: 'https://z-api.io', image: pngUri, linkUrl: 'https://z-api.io', title: 'L', linkDescription: '', linkType: 'LARGE' });
    const l = await receivedBy(CARLA, large);
    assert.equal(l.text, 'https://z-api.io');
    assert.equal(l.link?.highQuality?.error, undefined);
    assert.equal(l.link?.highQuality?.base64, pngUri.slice('data:image/png;base64,'.length), 'the uploaded picture is the image itself');
  });

  test('send-contact and send-contacts: vCard 3.0 with waid= for every number', async () => {
    const one = await send('send-contact', { phone: CARLA, contactName: 'Ana; Souza', contactPhone: '+55 44 9839-8733', contactBusinessDescription: 'Bakery' });
    const a = await receivedBy(CARLA, one);
    assert.equal(a.type, 'contact');
    assert.equal(a.contacts?.length, 1);
    assert.equal(a.contacts?.[0]?.displayName, 'Ana; Souza');
    const vcard = a.contacts?.[0]?.vcard ?? '';
    assert.match(vcard, /^BEGIN:VCARD\nVERSION:3\.0\n/);
    assert.match(vcard, /\nFN:Ana\\; Souza\n/);
    assert.match(vcard, /\nTEL;type=CELL;type=VOICE;waid=554498398733:\+554498398733\n/);
    assert.match(vcard, /\nX-WA-BIZ-DESCRIPTION:Bakery\n/);
    const many = await send('send-contacts', {
      phone: CARLA,
      contacts: [{ name: 'Bia', phones: ['5544999999999', '5544888888888'] }, { name: 'Caio', phones: ['5544977777777'] }],
    });
    const b = await receivedBy(CARLA, many);
    assert.deepEqual(b.contacts?.map((c) => c.displayName), ['Bia', 'Caio']);
    assert.match(b.contacts?.[0]?.vcard ?? '', /waid=5544999999999:.*\n.*waid=5544888888888:/s);
  });

  test('send-poll: the contact sees the question and options; single or multiple choice; mentions kept', async () => {
    const multi = await send('send-poll', { phone: CARLA, message: 'Best API?', poll: [{ name: 'Z-API' }, { name: 'Others' }] });
    const m = await receivedBy(CARLA, multi);
    assert.equal(m.type, 'poll');
    assert.deepEqual(m.poll, { name: 'Best API?', options: ['Z-API', 'Others'], selectableCount: 0 });
    const single = await send('send-poll', { phone: CARLA, message: 'Lunch, @' + DAN + '?', pollMaxOptions: 1, poll: [{ name: 'Yes' }, { name: 'No' }], mentioned: [DAN] });
    const s = await receivedBy(CARLA, single);
    assert.deepEqual(s.poll, { name: `Lunch, @${DAN}?`, options: ['Yes', 'No'], selectableCount: 1 });
    assert.deepEqual(s.mentions, [`${DAN}@s.whatsapp.net`]);
    // Votes come back as Z-API's pollVote with every option chosen.
    const vote = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'pollVote', pollId: multi, options: ['Z-API', 'Others'] });
    const answer = await h.webhooks.waitFor((w) => w.body.messageId === vote.messageId, 15_000, 'poll vote');
    assert.deepEqual(answer.body.pollVote, { pollMessageId: multi, options: [{ name: 'Z-API' }, { name: 'Others' }] });
    assert.equal(answer.body.phone, CARLA);
  });

  test('send-reaction and send-remove-reaction target the message by id', async () => {
    const target = await fromCarla('react to me');
    const r = await send('send-reaction', { phone: CARLA, reaction: '❤️', messageId: target });
    const got = await receivedBy(CARLA, r);
    assert.equal(got.type, 'reaction');
    assert.deepEqual(got.reaction, { emoji: '❤️', targetId: target });
    const x = await send('send-remove-reaction', { phone: CARLA, messageId: target });
    const removed = await receivedBy(CARLA, x);
    assert.deepEqual(removed.reaction, { emoji: '', targetId: target });
  });

  test('forward-message: a received message goes to another chat marked forwarded; an unknown id is refused', async () => {
    const source = await fromCarla('worth forwarding');
    const id = await send('forward-message', { phone: DAN, messageId: source, messagePhone: CARLA });
    const got = await receivedBy(DAN, id);
    assert.equal(got.type, 'text');
    assert.equal(got.text, 'worth forwarding');
    assert.equal(got.forwarded, true);
    const unknown = await h.call('POST', `${inst.prefix}/forward-message`, { phone: DAN, messageId: '3EB0FFFFFFFFFFFFFFFFFF', messagePhone: CARLA });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.json.error, 'Unable to process request');
    assert.match(String(unknown.json.message), /^messageId: .*not known/);
    const wrongChat = await h.call('POST', `${inst.prefix}/forward-message`, { phone: DAN, messageId: source, messagePhone: DAN });
    assert.equal(wrongChat.status, 400);
    assert.match(String(wrongChat.json.message), /^messagePhone: /);
  });

  test('read-message: 204 at once, and the sender gets the read receipt', async () => {
    const target = await fromCarla('did you read this?');
    const r = await h.call('POST', `${inst.prefix}/read-message`, { phone: CARLA, messageId: target });
    assert.equal(r.status, 204, r.body.toString());
    assert.equal(r.body.length, 0);
    const { received } = await until('Carla to get the read receipt', () => h.admin.receipts(CARLA), (r) => r.received.some((x) => x.messageId === target && x.type === 'read'));
    assert.ok(
      received.some((x) => x.messageId === target && x.type === 'read' && x.from === OWNER),
      'Carla got a read receipt from the instance',
    );
  });

  test('pin-message pins for the chosen duration and unpins; send-text editMessageId edits', async () => {
    const mine = await send('send-text', { phone: CARLA, message: 'pin me' });
    await receivedBy(CARLA, mine);
    const pin = await send('pin-message', { phone: CARLA, messageId: mine, messageAction: 'pin', pinMessageDuration: '24_hours' });
    const p = await receivedBy(CARLA, pin);
    assert.equal(p.type, 'pin');
    assert.deepEqual(p.pin, { targetId: mine, action: 'pin', durationSeconds: 86_400 });
    assert.equal(p.editAttr, '2');
    const unpin = await send('pin-message', { phone: CARLA, messageId: mine, messageAction: 'unpin' });
    assert.deepEqual((await receivedBy(CARLA, unpin)).pin, { targetId: mine, action: 'unpin' });
    const edit = await send('send-text', { phone: CARLA, message: 'pin me (edited)', editMessageId: mine });
    const e = await receivedBy(CARLA, edit);
    assert.deepEqual([e.type, e.targetId, e.text, e.editAttr], ['edit', mine, 'pin me (edited)', '1']);
  });

  test('send-button-actions (poll mode): links and numbers first, REPLY buttons as a poll whose vote maps to the button id', async () => {
    const from = (await h.admin.received(CARLA)).length;
    const id = await send('send-button-actions', {
      phone: CARLA,
      message: 'How can we help?',
      title: 'Support',
      footer: 'Mon–Fri',
      buttonActions: [
        { id: 'call', type: 'CALL', phone: '554498398733', label: 'Call us' },
        { id: 'site', type: 'URL', url: 'https://z-api.io', label: 'Website' },
        { id: 'agent', type: 'REPLY', label: 'Talk to an agent' },
        { id: 'bot', type: 'REPLY', label: 'Keep chatting' },
      ],
    });
    const parts = await partsUpTo(CARLA, from, id);
    assert.deepEqual(parts.map((m) => m.type), ['text', 'poll']);
    assert.equal(parts[0]?.text, '*Support*\n\nCall us: +554498398733\nWebsite: https://z-api.io\n\n_Mon–Fri_');
    assert.deepEqual(parts[1]?.poll, { name: 'How can we help?', options: ['Talk to an agent', 'Keep chatting'], selectableCount: 1 });
    const vote = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'pollVote', pollId: id, options: ['Keep chatting'] });
    const answer = await h.webhooks.waitFor((w) => w.body.messageId === vote.messageId, 15_000, 'button vote');
    assert.deepEqual(answer.body.buttonsResponseMessage, { buttonId: 'bot', message: 'Keep chatting' });
    assert.equal(answer.body.referenceMessageId, id);
  });

  test('send-button-otp, send-button-pix and send-carousel in the fallback rendering', async () => {
    const otp = await send('send-button-otp', { phone: DAN, message: 'Your code', code: '918-273' });
    assert.equal((await receivedBy(DAN, otp)).text, 'Your code\n\nCopy code:\n918-273');
    const pix = await send('send-button-pix', { phone: DAN, pixKey: 'pay@acme.com', type: 'EMAIL', merchantName: 'Acme' });
    assert.equal((await receivedBy(DAN, pix)).text, '*Acme*\nPix — E-mail:\npay@acme.com');
    const from = (await h.admin.received(DAN)).length;
    const id = await send('send-carousel', {
      phone: DAN,
      message: 'Pick a plan',
      carousel: [
        { text: 'Basic', image: pngUri, buttons: [{ id: 'basic', type: 'REPLY', label: 'Choose' }] },
        { text: 'Pro', image: pngUri, buttons: [{ id: 'more', type: 'URL', url: 'https://z-api.io/pro', label: 'Details' }, { id: 'pro', type: 'REPLY', label: 'Choose' }] },
      ],
    });
    const parts = await partsUpTo(DAN, from, id);
    assert.deepEqual(parts.map((m) => m.type), ['image', 'image', 'poll']);
    assert.equal(parts[0]?.caption, '*#1*\n\nBasic');
    assert.equal(parts[1]?.caption, '*#2*\n\nPro\n\nDetails: https://z-api.io/pro');
    assert.equal(parts[1]?.media?.error, undefined);
    assert.deepEqual(parts[2]?.poll?.options, ['#1 Choose', '#2 Choose']);
    const vote = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'pollVote', pollId: id, options: ['#2 Choose'] });
    const answer = await h.webhooks.waitFor((w) => w.body.messageId === vote.messageId, 15_000, 'carousel vote');
    assert.deepEqual(answer.body.buttonsResponseMessage, { buttonId: 'pro', message: '#2 Choose' });
  });

  test("list mode 'text' with the instance's own wording: lists keep description, button label and mentions", async () => {
    assert.equal((await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'text' })).status, 200);
    assert.equal((await h.call('PUT', `${inst.prefix}/update-list-reply-hint`, { value: 'Responda com o número.' })).status, 200);
    try {
      const id = await send('send-option-list', {
        phone: CARLA,
        message: 'Which plan?',
        mentioned: [DAN],
        optionList: { title: 'Plans', buttonLabel: 'See plans', options: [{ id: 'b', title: 'Basic' }, { id: 'p', title: 'Pro', description: 'best' }] },
      });
      const got = await receivedBy(CARLA, id);
      assert.equal(got.text, '*Plans*\nWhich plan?\n\n*See plans*\n1. Basic\n2. Pro — best\n\n_Responda com o número._');
      assert.deepEqual(got.mentions, [`${DAN}@s.whatsapp.net`]);
      const actions = await send('send-button-actions', { phone: CARLA, message: 'Next?', buttonActions: [{ id: 'y', type: 'REPLY', label: 'Yes' }, { id: 'n', type: 'REPLY', label: 'No' }] });
      assert.equal((await receivedBy(CARLA, actions)).text, 'Next?\n\n1. Yes\n2. No\n\n_Responda com o número._');
      const reply = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: '2' });
      const answer = await h.webhooks.waitFor((w) => w.body.messageId === reply.messageId, 15_000, 'numbered reply');
      assert.deepEqual(answer.body.buttonsResponseMessage, { buttonId: 'n', message: 'No' });
    } finally {
      await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'poll' });
      await h.call('PUT', `${inst.prefix}/update-list-reply-hint`, { value: '' });
    }
  });

  test("list mode 'native': interactive messages with native flow buttons, carousel cards with uploaded images", async () => {
    assert.equal((await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'native' })).status, 200);
    try {
      const actions = await send('send-button-actions', {
        phone: DAN,
        message: 'Reach us',
        title: 'Acme',
        footer: 'since 1999',
        buttonActions: [
          { id: '1', type: 'CALL', phone: '554498398733', label: 'Call' },
          { id: '2', type: 'URL', url: 'https://z-api.io', label: 'Site' },
        ],
      });
      const a = await receivedBy(DAN, actions);
      assert.equal(a.type, 'interactive');
      assert.deepEqual([a.interactive?.title, a.interactive?.body, a.interactive?.footer], ['Acme', 'Reach us', 'since 1999']);
      assert.deepEqual(a.interactive?.buttons.map((b) => [b.name, b.label, b.phone ?? b.url]), [['cta_call', 'Call', '+554498398733'], ['cta_url', 'Site', 'https://z-api.io']]);
      const otp = await send('send-button-otp', { phone: DAN, message: 'Code', code: '555', buttonText: 'Copy' });
      assert.deepEqual((await receivedBy(DAN, otp)).interactive?.buttons.map((b) => [b.name, b.label, b.copyCode]), [['cta_copy', 'Copy', '555']]);
      const pix = await send('send-button-pix', { phone: DAN, pixKey: '12345678900', type: 'CPF' });
      const p = (await receivedBy(DAN, pix)).interactive?.buttons[0];
      assert.equal(p?.name, 'payment_info');
      assert.deepEqual((p?.params?.payment_settings as { pix_static_code: unknown }[])[0]?.pix_static_code, { merchant_name: 'Pix', key: '12345678900', key_type: 'CPF' });
      const list = await send('send-option-list', {
        phone: DAN,
        message: 'Pick',
        mentioned: [CARLA],
        optionList: { title: 'Menu', buttonLabel: 'Open', options: [{ id: 'a', title: 'A', description: 'first' }] },
      });
      const l = await receivedBy(DAN, list);
      assert.deepEqual([l.interactive?.kind, l.interactive?.title, l.interactive?.body, l.interactive?.buttons[0]?.label], ['list', 'Menu', 'Pick', 'Open']);
      assert.deepEqual(l.interactive?.rows, [{ id: 'a', title: 'A', description: 'first' }]);
      assert.deepEqual(l.mentions, [`${CARLA}@s.whatsapp.net`]);
      const buttons = await send('send-button-list', { phone: DAN, message: 'Go?', buttonList: { buttons: [{ id: 'y', label: 'Yes' }] } });
      assert.deepEqual((await receivedBy(DAN, buttons)).interactive?.buttons, [{ name: 'reply', id: 'y', label: 'Yes' }]);
      const car = await send('send-carousel', { phone: DAN, message: 'Plans', carousel: [{ text: 'Basic', image: pngUri, buttons: [{ id: 'b', type: 'REPLY', label: 'Choose' }] }] });
      const c = await receivedBy(DAN, car);
      assert.equal(c.interactive?.body, 'Plans');
      assert.deepEqual(c.interactive?.cards?.map((k) => [k.body, k.hasImage, k.buttons.map((b) => [b.name, b.id])]), [['Basic', true, [['quick_reply', 'b']]]]);
    } finally {
      await h.call('PUT', `${inst.prefix}/update-list-mode`, { value: 'poll' });
    }
  });
});
