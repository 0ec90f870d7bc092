// Who is who, end to end (docs/contract.md §5): WhatsApp names people by LID (`<digits>@lid`) and
// may hide their number. Real Baileys against simnet, whose contacts write in LID addressing with
// and without their number beside it (simnet network/addressing.ts):
// - a known contact writing in LID mode → `phone` = number, `chatLid` = LID;
// - a hidden-number contact → `phone` = `chatLid` = `<digits>@lid`; a reply to that `@lid` reaches
//   them and its status callbacks name them the same way;
// - their number becomes known → later events carry it and the same `chatLid`; GET /chats shows one
//   chat, holding the messages written under the LID;
// - the phone learns a hidden number and syncs it (app-state pnForLidChatAction): the LID chat
//   merges with no new message, and later events carry the number;
// - a LID-mode group: `participantPhone` the number when known, else the LID; `participantLid`;
// - everything again after a restart of the gateway.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, until, type Harness, type Instance, type WebhookHit } from '../helpers/engine-harness.js';

const OWNER = '5511900023001';
const ANA = '5511900023002';
const BEA = '5511900023003';
const CAIO = '5511900023004';
const DORA = '5511900023005';

type ChatJson = Record<string, unknown> & { phone: string };

describe('LID identities: phone and chatLid in every payload, one chat per person (gateway + Baileys + simnet)', () => {
  let h: Harness;
  let inst: Instance;
  const lids: Record<string, string> = {};

  before(async () => {
    h = await startHarness();
    for (const [phone, pushName] of [[ANA, 'Ana'], [BEA, 'Bea'], [CAIO, 'Caio'], [DORA, 'Dora']] as const) {
      const user = await h.admin.createUser({ phone, pushName });
      lids[phone] = `${user.lid}@lid`;
    }
    inst = await h.pairNew(OWNER, 'lid');
  });
  after(async () => {
    await h?.close();
  });

  const received = (messageId: string): Promise<WebhookHit> =>
    h.webhooks.waitFor((w) => w.body.type === 'ReceivedCallback' && w.body.messageId === messageId, 15_000, `ReceivedCallback ${messageId}`);
  const status = (messageId: string, s: string): Promise<WebhookHit> =>
    h.webhooks.waitFor((w) => w.body.type === 'MessageStatusCallback' && w.body.status === s && (w.body.ids as string[]).includes(messageId), 15_000, `${s} of ${messageId}`);
  const chats = async (): Promise<ChatJson[]> => JSON.parse((await h.call('GET', `${inst.prefix}/chats?page=1&pageSize=100`)).body.toString()) as ChatJson[];
  const sendText = async (phone: string, message: string): Promise<string> => {
    const res = await h.call('POST', `${inst.prefix}/send-text`, { phone, message });
    assert.equal(res.status, 200, res.body.toString());
    // Queued behind a pacing gap (protocol time): jumped, not waited out.
    await h.sendQueued(inst);
    return String(res.json.messageId);
  };

  test('a known contact writing in LID addressing: phone is the number, chatLid and senderLid the LID', async () => {
    await h.admin.setAddressing(ANA, { lidAddressing: true });
    const { messageId } = await h.admin.sendAsContact({ from: ANA, to: OWNER, type: 'text', text: 'oi, sou a Ana' });
    const hit = await received(messageId);
    assert.equal(hit.body.phone, ANA);
    assert.equal(hit.body.chatLid, lids[ANA]);
    assert.equal(hit.body.senderLid, lids[ANA]);
    assert.equal(hit.body.participantLid, null);
  });

  test('a hidden-number contact: phone and chatLid are the LID; the reply to that @lid reaches them and its statuses name them alike', async () => {
    await h.admin.setAddressing(BEA, { hideNumber: true });
    const { messageId } = await h.admin.sendAsContact({ from: BEA, to: OWNER, type: 'text', text: 'número escondido' });
    const hit = await received(messageId);
    assert.equal(hit.body.phone, lids[BEA], 'the number is not known: the LID stands in for it');
    assert.equal(hit.body.chatLid, lids[BEA]);
    assert.equal(hit.body.senderName, 'Bea');

    const reply = await sendText(lids[BEA]!, 'resposta para o LID');
    await h.admin.waitForReceived(BEA, (m) => m.id === reply);
    const delivered = await status(reply, 'RECEIVED');
    assert.equal(delivered.body.phone, lids[BEA]);
    assert.equal(delivered.body.chatLid, lids[BEA]);
    const list = await until('the LID chat with both messages', chats, (cs) => cs.some((c) => c.phone === lids[BEA] && c.lastMessageId === reply));
    assert.ok(!list.some((c) => c.phone === BEA), 'no chat under a number nobody was told');
  });

  test('the number becomes known: later events carry it with the same chatLid, and the LID chat merges into one chat', async () => {
    const before = await h.call('GET', `${inst.prefix}/chat-messages/${encodeURIComponent(lids[BEA]!)}`);
    assert.equal(before.status, 200, before.body.toString());
    await h.admin.setAddressing(BEA, { hideNumber: false, lidAddressing: true });
    const { messageId } = await h.admin.sendAsContact({ from: BEA, to: OWNER, type: 'text', text: 'agora com número' });
    const hit = await received(messageId);
    assert.equal(hit.body.phone, BEA, 'the number, now that the network sent it');
    assert.equal(hit.body.chatLid, lids[BEA], 'the same LID as before');

    const list = await until('one chat for Bea', chats, (cs) => cs.some((c) => c.phone === BEA && c.lastMessageId === messageId) && !cs.some((c) => c.phone === lids[BEA]));
    assert.equal(list.filter((c) => c.phone === BEA).length, 1);
    const messages = await h.call('GET', `${inst.prefix}/chat-messages/${BEA}`);
    assert.equal(messages.status, 200, messages.body.toString());
    const ids = (JSON.parse(messages.body.toString()) as { messageId: string }[]).map((m) => m.messageId);
    for (const old of JSON.parse(before.body.toString()) as { messageId: string }[]) assert.ok(ids.includes(old.messageId), `${old.messageId} written under the LID is in the merged chat`);
    assert.ok(ids.includes(messageId));
    const gone = await h.call('GET', `${inst.prefix}/chat-messages/${encodeURIComponent(lids[BEA]!)}`);
    assert.equal(gone.status, 404, 'the LID chat is gone');

    // A send to the LID or to the number reaches the same person, and both report the number.
    const toLid = await sendText(lids[BEA]!, 'de novo pelo LID');
    await h.admin.waitForReceived(BEA, (m) => m.id === toLid);
    const st = await status(toLid, 'RECEIVED');
    assert.equal(st.body.phone, BEA);
    assert.equal(st.body.chatLid, lids[BEA]);
    const toNumber = await sendText(BEA, 'pelo número');
    await h.admin.waitForReceived(BEA, (m) => m.id === toNumber);
    await until('both sends in the one chat', chats, (cs) => cs.filter((c) => c.phone === BEA).length === 1 && !cs.some((c) => c.phone === lids[BEA]));
  });

  test('the phone learns a hidden number (app-state pnForLidChatAction): the LID chat merges with no new message, later events carry the number', async () => {
    await h.admin.setAddressing(DORA, { hideNumber: true });
    const first = await h.admin.sendAsContact({ from: DORA, to: OWNER, type: 'text', text: 'escondida' });
    assert.equal((await received(first.messageId)).body.phone, lids[DORA]);
    await until('the LID chat', chats, (cs) => cs.some((c) => c.phone === lids[DORA]));
    // WhatsApp's phone syncs the number it learned to its linked devices; Dora still writes hidden.
    await h.admin.changeChat(OWNER, lids[DORA]!, { pnForLid: DORA });
    const merged = await until('Dora\'s chat under her number', chats, (cs) => cs.some((c) => c.phone === DORA) && !cs.some((c) => c.phone === lids[DORA]));
    const dora = merged.find((c) => c.phone === DORA)!;
    assert.equal(dora.lastMessageId, first.messageId, 'the message written under the LID moved with the chat');
    assert.equal(dora.lid, lids[DORA], 'the chat carries the LID');
    const again = await h.admin.sendAsContact({ from: DORA, to: OWNER, type: 'text', text: 'ainda escondida' });
    const hit = await received(again.messageId);
    assert.equal(hit.body.phone, DORA, 'the number the phone learned names her');
    assert.equal(hit.body.chatLid, lids[DORA]);
  });

  test('a LID-mode group: participantPhone is the number when known, the LID when hidden; participantLid always', async () => {
    await h.admin.setAddressing(CAIO, { hideNumber: true });
    const group = await h.admin.createGroup({ creator: ANA, subject: 'LIDs', participants: [OWNER, CAIO] });
    const groupId = `${group.jid.split('@')[0]}-group`;
    const fromAna = await h.admin.sendAsContact({ from: ANA, to: group.jid, type: 'text', text: 'bom dia grupo' });
    const a = await received(fromAna.messageId);
    assert.equal(a.body.phone, groupId);
    assert.equal(a.body.chatLid, null, 'a group has no LID');
    assert.equal(a.body.participantPhone, ANA);
    assert.equal(a.body.participantLid, lids[ANA]);
    assert.equal(a.body.senderLid, lids[ANA]);
    const fromCaio = await h.admin.sendAsContact({ from: CAIO, to: group.jid, type: 'text', text: 'sem número' });
    const c = await received(fromCaio.messageId);
    assert.equal(c.body.participantPhone, lids[CAIO], 'hidden in the group too');
    assert.equal(c.body.participantLid, lids[CAIO]);
  });

  test('after a restart: the mappings learned are kept', async () => {
    await h.restartGateway();
    await h.waitForStatus(inst, 'connected');
    // Bea's number was learned before the restart: a send to her LID still reports it.
    const toLid = await sendText(lids[BEA]!, 'depois do restart');
    await h.admin.waitForReceived(BEA, (m) => m.id === toLid);
    const st = await status(toLid, 'RECEIVED');
    assert.equal(st.body.phone, BEA);
    assert.equal(st.body.chatLid, lids[BEA]);
    // Ana writes in PN addressing now: her LID still comes with it.
    await h.admin.setAddressing(ANA, { lidAddressing: false });
    const { messageId } = await h.admin.sendAsContact({ from: ANA, to: OWNER, type: 'text', text: 'pelo número' });
    const hit = await received(messageId);
    assert.equal(hit.body.phone, ANA);
    assert.equal(hit.body.chatLid, lids[ANA]);
    const list = await chats();
    assert.equal(list.filter((c) => c.phone === BEA || c.phone === lids[BEA]).length, 1, 'still one chat for Bea');
  });
});
