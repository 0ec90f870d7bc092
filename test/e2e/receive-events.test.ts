// System events a linked device receives, end to end through the real gateway and Baileys: group
// changes made by another admin, calls, presence, the owner's phone reading messages, and media whose
// download fails (the event is never held back; the link works once the file can be had).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { request } from 'undici';
import { startHarness, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511999998001';
const ADMIN = '5511988888001';
const MEMBER = '5511988888002';
const JOINER = '5511988888003';

type Payload = Record<string, unknown>;

describe('received system events and media failures (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  let group = '';
  let groupId = '';

  before(async () => {
    h = await startHarness();
    for (const [phone, name] of [[ADMIN, 'Ana'], [MEMBER, 'Bia'], [JOINER, 'Caio']] as const) await h.admin.createUser({ phone, pushName: name });
    inst = await h.pairNew(OWNER, 'events');
    await h.call('PUT', `${inst.prefix}/update-webhook-chat-presence`, { value: `${h.webhooks.url}/${inst.instanceId}` });
    const g = await h.admin.createGroup({ creator: ADMIN, subject: 'Ops', participants: [OWNER, MEMBER] });
    group = g.jid;
    groupId = `${g.jid.split('@')[0]}-group`;
  });

  after(async () => {
    await h.close();
  });

  const mine = (x: WebhookHit): boolean => x.path === `/${inst.instanceId}`;
  async function notification(name: string, extra: (p: Payload) => boolean = () => true): Promise<Payload> {
    const hit = await h.webhooks.waitFor((x) => mine(x) && x.body.notification === name && extra(x.body), 20_000, name);
    return hit.body;
  }

  test('/metrics reports the live session by status', async () => {
    const r = await h.call('GET', '/metrics');
    assert.match(r.body.toString(), /zapgate_sessions\{status="connected"\} 1/);
  });

  test('group changes made by another admin arrive as Z-API notifications with phones', async () => {
    await h.admin.groupAction({ group, actor: ADMIN, action: 'add', participants: [JOINER] });
    const add = await notification('GROUP_PARTICIPANT_ADD');
    assert.equal(add.phone, groupId);
    assert.equal(add.isGroup, true);
    assert.deepEqual(add.notificationParameters, [JOINER]);
    assert.equal(add.participantPhone, ADMIN, 'who did it, by phone');
    assert.equal(add.fromMe, false);

    await h.admin.groupAction({ group, actor: ADMIN, action: 'promote', participants: [MEMBER] });
    assert.deepEqual((await notification('GROUP_PARTICIPANT_PROMOTE')).notificationParameters, [MEMBER]);
    await h.admin.groupAction({ group, actor: ADMIN, action: 'demote', participants: [MEMBER] });
    assert.deepEqual((await notification('GROUP_PARTICIPANT_DEMOTE')).notificationParameters, [MEMBER]);
    await h.admin.groupAction({ group, actor: ADMIN, action: 'subject', value: 'Ops team' });
    assert.deepEqual((await notification('GROUP_CHANGE_SUBJECT')).notificationParameters, ['Ops team']);
    await h.admin.groupAction({ group, actor: ADMIN, action: 'description', value: 'On call rota' });
    assert.deepEqual((await notification('GROUP_CHANGE_DESCRIPTION')).notificationParameters, ['On call rota']);
    await h.admin.groupAction({ group, actor: ADMIN, action: 'remove', participants: [JOINER] });
    assert.deepEqual((await notification('GROUP_PARTICIPANT_REMOVE')).notificationParameters, [JOINER]);
    await h.admin.groupAction({ group, actor: MEMBER, action: 'leave' });
    assert.deepEqual((await notification('GROUP_PARTICIPANT_LEAVE')).notificationParameters, [MEMBER]);
  });

  test('a membership request reaches an admin instance as MEMBERSHIP_APPROVAL_REQUEST', async () => {
    await h.admin.groupAction({ group, actor: ADMIN, action: 'promote', participants: [OWNER] });
    await notification('GROUP_PARTICIPANT_PROMOTE', (p) => (p.notificationParameters as string[]).includes(OWNER));
    await h.admin.groupAction({ group, actor: ADMIN, action: 'joinApproval', value: 'on' });
    await h.admin.groupAction({ group, actor: JOINER, action: 'requestJoin' });
    const req = await notification('MEMBERSHIP_APPROVAL_REQUEST');
    assert.deepEqual(req.notificationParameters, [JOINER]);
    assert.equal(req.phone, groupId);
  });

  test('calls: an offer is CALL_RECEIVED, one that rings out is CALL_MISSED_VIDEO', async () => {
    const call = await h.admin.placeCall({ from: ADMIN, to: OWNER, outcome: 'missed', video: true });
    const received = await notification('CALL_RECEIVED', (p) => p.callId === call.callId);
    assert.equal(received.phone, ADMIN);
    assert.equal(received.isVideo, true);
    // The phone rings 30 s of protocol time before the call rings out: the clock jumps over them.
    await h.clock.advance(30_000);
    const missed = await notification('CALL_MISSED_VIDEO', (p) => p.callId === call.callId);
    assert.equal(missed.phone, ADMIN);
    assert.equal(missed.isVideo, true);
  });

  test('presence: a contact typing and recording arrives as PresenceChatCallback', async () => {
    await h.admin.presence({ from: ADMIN, to: OWNER, state: 'composing' });
    const typing = await h.webhooks.waitFor((x) => mine(x) && x.body.type === 'PresenceChatCallback' && x.body.status === 'COMPOSING', 20_000, 'COMPOSING');
    assert.equal(typing.body.phone, ADMIN);
    assert.equal(typing.body.instanceId, inst.instanceId);
    await h.admin.presence({ from: ADMIN, to: OWNER, state: 'recording' });
    await h.webhooks.waitFor((x) => mine(x) && x.body.type === 'PresenceChatCallback' && x.body.status === 'RECORDING', 20_000, 'RECORDING');
  });

  test('the owner\'s phone reading received messages is READ_BY_ME', async () => {
    const { messageId } = await h.admin.sendAsContact({ from: ADMIN, to: OWNER, type: 'text', text: 'read me on your phone' });
    await h.webhooks.waitFor((x) => mine(x) && x.body.messageId === messageId, 20_000, 'the message');
    await h.admin.ownerRead({ phone: OWNER, chat: ADMIN, ids: [messageId] });
    const read = await h.webhooks.waitFor((x) => mine(x) && x.body.type === 'MessageStatusCallback' && x.body.status === 'READ_BY_ME', 20_000, 'READ_BY_ME');
    assert.deepEqual(read.body.ids, [messageId]);
    assert.equal(read.body.phone, ADMIN);
    assert.equal(read.body.phoneDevice, 0);
  });

  test('a failing media host never holds the event back; the link serves the file once it can be had', async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toBuffer();
    await h.admin.setMediaFault(ADMIN, { kind: 'status', code: 500 });
    try {
      const { messageId } = await h.admin.sendAsContact({ from: ADMIN, to: OWNER, type: 'image', imageBase64: png.toString('base64'), mimetype: 'image/png' });
      const e = await h.webhooks.waitFor((x) => mine(x) && x.body.messageId === messageId, 20_000, 'the image event');
      const url = String((e.body.image as Payload).imageUrl);
      const failing = await request(url);
      assert.equal(failing.statusCode, 502);
      assert.match(await failing.body.text(), /HTTP 500/);
      assert.ok(failing.headers['retry-after'], 'says when to try again');
      await h.admin.setMediaFault(ADMIN, null);
      const ok = await request(url);
      assert.equal(ok.statusCode, 200);
      assert.ok(Buffer.from(await ok.body.arrayBuffer()).equals(png), 'the bytes sent');
    } finally {
      await h.admin.setMediaFault(ADMIN, null);
    }
  });

  test('media the network no longer has is asked again from the sender\'s phone', async () => {
    const doc = Buffer.from('%PDF-1.4\nexpired but re-uploaded\n');
    await h.admin.setMediaFault(ADMIN, { kind: 'expired' });
    try {
      const { messageId } = await h.admin.sendAsContact({ from: ADMIN, to: OWNER, type: 'document', documentBase64: doc.toString('base64'), mimetype: 'application/pdf', fileName: 'late.pdf' });
      const e = await h.webhooks.waitFor((x) => mine(x) && x.body.messageId === messageId, 20_000, 'the document event');
      const res = await request(String((e.body.document as Payload).documentUrl), { headersTimeout: 60_000 });
      assert.equal(res.statusCode, 200, 'served after the phone uploaded it again');
      assert.ok(Buffer.from(await res.body.arrayBuffer()).equals(doc), 'the bytes sent');
      assert.equal(res.headers['content-disposition'], "attachment; filename*=UTF-8''late.pdf");
    } finally {
      await h.admin.setMediaFault(ADMIN, null);
    }
  });
});
