// The account as the phone sees it, end to end: HTTP → services → Baileys → simnet, one pairing.
// Each test checks Z-API's answer shape and the effect on the network side (simnet's admin API):
// the profile contacts see, privacy settings and lists, blocking, auto-read receipts, call rejection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startHarness, until, type Harness, type Instance } from '../helpers/engine-harness.js';

const OWNER = '5511900004001';
const BOB = '5511900004002';
const CARLA = '5511900004003';
const DAN = '5511900004004';


describe('engine account: profile, privacy, blocking, auto-read, call rejection (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let bob: Instance;

  before(async () => {
    h = await startHarness();
    await h.admin.createUser({ phone: CARLA, pushName: 'Carla' });
    await h.admin.createUser({ phone: DAN, pushName: 'Dan' });
    inst = await h.pairNew(OWNER, 'account');
    bob = await h.pairNew(BOB, 'bob');
  });
  after(async () => {
    await h?.close();
  });

  const put = (path: string, body: unknown) => h.call('PUT', `${inst.prefix}/${path}`, body);
  const post = (path: string, body?: unknown) => h.call('POST', `${inst.prefix}/${path}`, body);

  test('GET /me: Z-API instance data with the webhook URLs and the settings', async () => {
    const r = await h.call('GET', `${inst.prefix}/me`);
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(Object.keys(r.json).sort(), [
      'autoReadMessage', 'autoReadStatus', 'callRejectAuto', 'callRejectMessage', 'connected', 'connectedCallbackUrl', 'created',
      'deliveryCallbackUrl', 'disconnectedCallbackUrl', 'due', 'id', 'initialDataCallbackUrl', 'messageStatusCallbackUrl', 'name',
      'paymentStatus', 'presenceChatCallbackUrl', 'proxyUrl', 'receiveCallbackSentByMe', 'receivedCallbackUrl', 'token', 'useProxy',
    ]);
    assert.equal(r.json.id, inst.instanceId, 'id is the instance id');
    assert.equal(r.json.token, inst.instanceToken, 'token is the one the request used');
    assert.equal(r.json.name, 'account', 'name');
    assert.equal(r.json.connected, true, 'connected');
    assert.equal(r.json.receivedCallbackUrl, `${h.webhooks.url}/${inst.instanceId}`, 'the received webhook set by pairNew');
    assert.equal(r.json.autoReadMessage, false, 'auto-read is off by default');
    assert.equal(r.json.callRejectAuto, false, 'call rejection is off by default');
  });

  test('GET /device: the connected phone as Z-API reports it', async () => {
    const r = await h.call('GET', `${inst.prefix}/device`);
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(r.json.phone, OWNER, 'phone');
    // The phone's own push name reaches a linked device by app-state sync, which simnet's phone does
    // not send at pairing: known here once the device sets it (next test).
    assert.equal(typeof r.json.name, 'string', 'name');
    assert.equal(r.json.about, 'Hey there! I am using WhatsApp.', 'the default about text');
    assert.equal(r.json.imgUrl, '', 'no picture yet');
    assert.equal(r.json.originalDevice, 'android', 'the phone platform simnet announced at pairing');
    assert.equal(r.json.isBusiness, false, 'not a business phone');
    assert.equal(typeof r.json.sessionId, 'number', 'sessionId');
    assert.ok((r.json.sessionId as number) >= 1, `a linked device number: ${String(r.json.sessionId)}`);
    assert.deepEqual(r.json.device, { sessionName: 'zapgate', device_model: 'zapgate' });
  });

  test('PUT /profile-name: contacts see the new push name', async () => {
    const r = await put('profile-name', { value: 'Acme Support' });
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true });
    await until('simnet to read the push-name patch', () => h.admin.profile(OWNER), (p) => p.pushName === 'Acme Support');
    const device = await until('the device to report the new name', async () => (await h.call('GET', `${inst.prefix}/device`)).json, (d) => d.name === 'Acme Support');
    assert.equal(device.name, 'Acme Support');
  });

  test('PUT /profile-description: the about text changes on the network and in /device', async () => {
    const r = await put('profile-description', { value: 'Open 9am-6pm' });
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true });
    assert.equal((await h.admin.profile(OWNER)).about, 'Open 9am-6pm', 'simnet holds the new about');
    assert.equal((await h.call('GET', `${inst.prefix}/device`)).json.about, 'Open 9am-6pm', '/device reads it back from the network');
  });

  test('PUT /profile-picture (data URI): the picture is on the network as a JPEG; /device and another account see its URL', async () => {
    const png = await sharp({ create: { width: 800, height: 600, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
    const r = await put('profile-picture', { value: `data:image/png;base64,${png.toString('base64')}` });
    assert.equal(r.status, 200, r.body.toString());
    assert.deepEqual(r.json, { value: true });
    const profile = await h.admin.profile(OWNER);
    assert.ok(profile.picture, 'simnet stored a picture');
    const bytes = await h.admin.profilePicture(OWNER);
    const meta = await sharp(bytes).metadata();
    assert.equal(meta.format, 'jpeg', 'sent as JPEG');
    assert.equal(meta.width, 640, 'cropped to 640 px');
    assert.equal((await h.call('GET', `${inst.prefix}/device`)).json.imgUrl, profile.picture.url, '/device names the picture URL');
    // Another account asks for OWNER's picture (contacts: GET /profile-picture).
    const seen = await h.call('GET', `${bob.prefix}/profile-picture?phone=${OWNER}`);
    assert.equal(seen.status, 200, seen.body.toString());
    assert.deepEqual(seen.json, { link: profile.picture.url });
  });

  test('PUT /profile-picture with a data URI that is not an image: 400 and the picture stays', async () => {
    const before = (await h.admin.profile(OWNER)).picture;
    const r = await put('profile-picture', { value: `data:image/png;base64,${Buffer.from('not an image at all').toString('base64')}` });
    assert.equal(r.status, 400, r.body.toString());
    assert.equal(r.json.error, 'Invalid request', 'a client mistake');
    assert.deepEqual((await h.admin.profile(OWNER)).picture, before, 'the network still has the previous picture');
  });

  test('GET /profile-picture: null when the contact has none or hides it', async () => {
    const none = await h.call('GET', `${inst.prefix}/profile-picture?phone=${CARLA}`);
    assert.equal(none.status, 200, none.body.toString());
    assert.deepEqual(none.json, { link: null });
    // OWNER hides the photo from everyone: BOB gets no link any more.
    const hide = await post('privacy/photo-visualization', { visualizationType: 'NONE' });
    assert.deepEqual(hide.json, { success: true });
    const hidden = await h.call('GET', `${bob.prefix}/profile-picture?phone=${OWNER}`);
    assert.deepEqual(hidden.json, { link: null });
    await post('privacy/photo-visualization', { visualizationType: 'ALL' });
  });

  test('privacy: every setting answers {success:true} and is stored by the network', async () => {
    const cases: [string, unknown, string, string][] = [
      ['privacy/last-seen', { visualizationType: 'CONTACTS' }, 'last', 'contacts'],
      ['privacy/photo-visualization', { visualizationType: 'NONE' }, 'profile', 'none'],
      ['privacy/description', { visualizationType: 'CONTACT_BLACKLIST' }, 'status', 'contact_blacklist'],
      ['privacy/online', { visualizationType: 'SAME_LAST_SEEN' }, 'online', 'match_last_seen'],
      ['privacy/group-add', { type: 'CONTACTS' }, 'groupadd', 'contacts'],
      ['privacy/read-receipts?value=disable', undefined, 'readreceipts', 'none'],
    ];
    for (const [path, body, category, value] of cases) {
      const r = await post(path, body);
      assert.equal(r.status, 200, `${path}: ${r.body.toString()}`);
      assert.deepEqual(r.json, { success: true }, path);
      assert.equal((await h.admin.profile(OWNER)).privacy[category], value, `${path} → ${category}=${value}`);
    }
    const d = await post('privacy/messages-duration?value=days7');
    assert.deepEqual(d.json, { success: true });
    assert.equal((await h.admin.profile(OWNER)).disappearingSeconds, 7 * 86_400, 'default timer 7 days');
    // Back to what the other tests expect.
    await post('privacy/read-receipts?value=enable');
    await post('privacy/photo-visualization', { visualizationType: 'ALL' });
    await post('privacy/group-add', { type: 'ALL' });
  });

  test('privacy lists: contactsBlacklist changes are stored, and GET disallowed-contacts reads them back', async () => {
    const r = await post('privacy/last-seen', {
      visualizationType: 'CONTACT_BLACKLIST',
      contactsBlacklist: [
        { action: 'add', phone: CARLA },
        { action: 'add', phone: DAN },
      ],
    });
    assert.deepEqual(r.json, { success: true });
    assert.deepEqual((await h.admin.profile(OWNER)).disallowed.last?.sort(), [CARLA, DAN].sort(), 'simnet holds both');
    await post('privacy/last-seen', { visualizationType: 'CONTACT_BLACKLIST', contactsBlacklist: [{ action: 'remove', phone: DAN }] });
    const list = await h.call('GET', `${inst.prefix}/privacy/disallowed-contacts?type=lastSeen`);
    assert.equal(list.status, 200, list.body.toString());
    assert.deepEqual(list.json, { disallowedContacts: [CARLA] });
    const other = await h.call('GET', `${inst.prefix}/privacy/disallowed-contacts?type=photo`);
    assert.deepEqual(other.json, { disallowedContacts: [] }, 'each setting has its own list');
  });

  test('modify-blocked: a blocked contact\'s message never reaches the webhook; unblocking lets the next one through', async () => {
    const block = await post('contacts/modify-blocked', { phone: CARLA, action: 'block' });
    assert.equal(block.status, 200, block.body.toString());
    assert.deepEqual(block.json, { value: true });
    assert.deepEqual((await h.admin.profile(OWNER)).blocked, [CARLA], 'simnet holds the block');
    const dropped = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'are you there?' });
    assert.equal(dropped.dropped, true, 'the network took the message and did not deliver it');

    const unblock = await post('contacts/modify-blocked', { phone: CARLA, action: 'unblock' });
    assert.deepEqual(unblock.json, { value: true });
    assert.deepEqual((await h.admin.profile(OWNER)).blocked, [], 'unblocked on the network');
    const sent = await h.admin.sendAsContact({ from: CARLA, to: OWNER, type: 'text', text: 'hello again' });
    assert.equal(sent.dropped, undefined, 'delivered');
    await h.webhooks.waitFor((w) => w.body.messageId === sent.messageId, 15_000, 'the message after unblocking');
    // A chat's messages reach the webhook in the order they came: the blocked one, had it come,
    // would have been reported before this later one.
    assert.equal(h.webhooks.hits.some((w) => w.body.messageId === dropped.messageId), false, 'no webhook for the blocked message');
  });

  test('update-auto-read-message: the contact gets read receipts for what it sends; off again, it does not', async () => {
    const on = await put('update-auto-read-message', { value: true });
    assert.deepEqual(on.json, { value: true });
    assert.equal((await h.call('GET', `${inst.prefix}/me`)).json.autoReadMessage, true, '/me shows the setting');
    const m = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'read me' });
    await until('a read receipt for the message', () => h.admin.receipts(DAN), (r) => r.received.some((x) => x.messageId === m.messageId && x.type === 'read'));

    await put('update-auto-read-message', { value: false });
    const unread = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'leave me unread' });
    await h.webhooks.waitFor((w) => w.body.messageId === unread.messageId, 15_000, 'the second message');
    // On again for a third message: its read receipt leaves after any the second could have had
    // (the chat's messages are handled in order), so once it has arrived the second's absence counts.
    await put('update-auto-read-message', { value: true });
    const third = await h.admin.sendAsContact({ from: DAN, to: OWNER, type: 'text', text: 'read me too' });
    const receipts = await until('a read receipt for the third message', () => h.admin.receipts(DAN), (r) => r.received.some((x) => x.messageId === third.messageId && x.type === 'read'));
    assert.equal(receipts.received.some((x) => x.messageId === unread.messageId && x.type === 'read'), false, 'no read receipt with auto-read off');
    await put('update-auto-read-message', { value: false });
  });

  test('update-call-reject-auto + message: an incoming call is rejected and the caller gets the message', async () => {
    assert.deepEqual((await put('update-call-reject-message', { value: 'We cannot take calls, please write.' })).json, { value: true });
    assert.deepEqual((await put('update-call-reject-auto', { value: true })).json, { value: true });
    const me = (await h.call('GET', `${inst.prefix}/me`)).json;
    assert.equal(me.callRejectAuto, true, '/me: callRejectAuto');
    assert.equal(me.callRejectMessage, 'We cannot take calls, please write.', '/me: callRejectMessage');

    const call = await h.admin.placeCall({ from: CARLA, to: OWNER, outcome: 'ringing' });
    const calls = await until('the call to be rejected', () => h.admin.calls(CARLA), (cs) => cs.some((c) => c.callId === call.callId && c.status === 'rejected'));
    assert.ok(calls.find((c) => c.callId === call.callId)?.rejectedByDevice, 'rejected by the linked device (rejectCall)');
    // The message goes through the queue, paced: its gap is jumped.
    const isReply = (m: { from: string; text?: string }) => m.from === OWNER && m.text === 'We cannot take calls, please write.';
    const got = await h.driveUntil('the caller to get the message', () => h.admin.received(CARLA), (ms) => ms.some(isReply), { withinMs: 5_000 });
    assert.equal(got.find(isReply)?.to, CARLA, 'the caller got the message');
  });

  test("send-chat-expiration sets a chat's disappearing messages: the contact is told", async () => {
    const on = await post('send-chat-expiration', { phone: DAN, chatExpiration: '7_DAYS' });
    assert.equal(on.status, 200, on.body.toString());
    assert.deepEqual(on.json, { value: true });
    const told = await h.admin.waitForReceived(DAN, (m) => m.from === OWNER && m.type === 'ephemeral', 15_000);
    assert.equal(told.ephemeralSeconds, 604_800, '7 days');
    const off = await post('send-chat-expiration', { phone: DAN, chatExpiration: 'OFF' });
    assert.equal(off.status, 200, off.body.toString());
    await h.admin.waitForReceived(DAN, (m) => m.from === OWNER && m.type === 'ephemeral' && m.ephemeralSeconds === 0, 15_000);
    const bad = await post('send-chat-expiration', { phone: DAN, chatExpiration: '1_YEAR' });
    assert.equal(bad.status, 400);
    assert.match(String(bad.json.message), /chatExpiration/);
  });
});
