// Incoming messages become ReceivedCallbacks a Z-API client understands: phones (never LIDs),
// one content key, and answers to our lists mapped back to the option ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { proto, type WAMessage } from 'baileys';
import { toReceivedCallback, type IncomingContext, type StoredList } from '../../src/sessions/inbound/incoming.js';
import { optionListMeta, buttonListMeta } from '../../src/sessions/outbound/lists.js';

const ME = { pn: '5511900000000@s.whatsapp.net', lid: '111000@lid' };
const LIDS: Record<string, string> = { '222000@lid': '5511988887777@s.whatsapp.net' };

function context(lists: StoredList[] = []): IncomingContext {
  return {
    me: ME,
    phoneOf: async (jid, alt) => {
      if (!jid) return '';
      if (jid.endsWith('@lid')) return (alt ?? LIDS[jid] ?? `${jid.split('@')[0]}@lid`).split('@')[0]!;
      return jid.split('@')[0]!.split(':')[0]!;
    },
    personOf: async (jid, alt) => {
      if (!jid) return { phone: '', lid: null };
      const user = (j: string) => j.split('@')[0]!.split(':')[0]!;
      if (jid.endsWith('@lid')) {
        const pn = alt ?? LIDS[`${user(jid)}@lid`];
        return { phone: pn ? user(pn) : `${user(jid)}@lid`, lid: `${user(jid)}@lid` };
      }
      const lid = alt ?? Object.entries(LIDS).find(([, pn]) => user(pn) === user(jid))?.[0];
      return { phone: user(jid), lid: lid ? `${user(lid)}@lid` : null };
    },
    senderJids: async (jid) => (jid ? [jid, ...(LIDS[jid] ? [LIDS[jid]!] : Object.entries(LIDS).filter(([, pn]) => pn === jid).map(([l]) => l))] : []),
    chatName: async () => 'Family',
    listById: async (id) => lists.find((l) => l.messageId === id),
    latestList: async () => lists[lists.length - 1],
    stored: async () => undefined,
    media: async (messageId, parts) => new Map(parts.map((p) => [p.part, `https://gw.test/media/${messageId}.${p.part}`])),
    now: () => Date.now(),
  };
}

function msg(message: proto.IMessage, key: Partial<WAMessage['key']> = {}): WAMessage {
  return { key: { remoteJid: '222000@lid', fromMe: false, id: 'MSG1', ...key }, message, messageTimestamp: 1_700_000_000, pushName: 'Ana' };
}

test('a text from a LID sender is reported with the phone number', async () => {
  const e = await toReceivedCallback(msg({ conversation: 'hello' }), context());
  assert.equal(e?.phone, '5511988887777');
  assert.deepEqual(e?.text, { message: 'hello' });
  assert.equal(e?.momment, 1_700_000_000_000);
  assert.equal(e?.senderName, 'Ana');
  assert.equal(e?.isGroup, false);
});

test('LID fields: chatLid and senderLid name the person beside the phone; a hidden number is the LID itself', async () => {
  const known = await toReceivedCallback(msg({ conversation: 'hi' }), context());
  assert.deepEqual([known?.phone, known?.chatLid, known?.senderLid, known?.participantLid], ['5511988887777', '222000@lid', '222000@lid', null]);
  const viaNumber = await toReceivedCallback(msg({ conversation: 'hi' }, { remoteJid: '5511988887777@s.whatsapp.net' }), context());
  assert.equal(viaNumber?.chatLid, '222000@lid', 'the LID of a PN-addressed chat comes from the mapping');
  const hidden = await toReceivedCallback(msg({ conversation: 'hi' }, { remoteJid: '333000:2@lid' }), context());
  assert.deepEqual([hidden?.phone, hidden?.chatLid], ['333000@lid', '333000@lid'], 'no number known: the LID stands in, without its device');
  // Our own message in a LID-addressed chat: Baileys' remoteJidAlt is OUR number, not the contact's.
  const own = await toReceivedCallback(msg({ conversation: 'mine' }, { remoteJid: '333000@lid', fromMe: true, remoteJidAlt: '5511900000000@s.whatsapp.net' } as Partial<WAMessage['key']>), context());
  assert.deepEqual([own?.phone, own?.chatLid, own?.senderLid], ['333000@lid', '333000@lid', '111000@lid']);
  const group = await toReceivedCallback(msg({ conversation: 'g' }, { remoteJid: '1203630@g.us', participant: '222000@lid' }), context());
  assert.deepEqual([group?.chatLid, group?.participantPhone, group?.participantLid, group?.senderLid], [null, '5511988887777', '222000@lid', '222000@lid']);
});

test('a reply carries referenceMessageId; a group message names its participant by phone', async () => {
  const e = await toReceivedCallback(
    msg({ extendedTextMessage: { text: 'yes', contextInfo: { stanzaId: 'ORIG' } } }, { remoteJid: '1203630@g.us', participant: '222000@lid' }),
    context(),
  );
  assert.equal(e?.referenceMessageId, 'ORIG');
  assert.equal(e?.phone, '1203630-group');
  assert.equal(e?.participantPhone, '5511988887777');
  assert.equal(e?.chatName, 'Family');
});

test('location, image, sticker and reaction each map to their content key', async () => {
  const loc = await toReceivedCallback(msg({ locationMessage: { degreesLatitude: -23.5, degreesLongitude: -46.6, name: 'SP' } }), context());
  assert.deepEqual(loc?.location, { latitude: -23.5, longitude: -46.6, name: 'SP', url: 'https://maps.google.com/maps?q=-23.5,-46.6' });
  const file = { directPath: '/v/t62/x.enc', mediaKey: Buffer.alloc(32, 1) };
  const img = await toReceivedCallback(msg({ imageMessage: { ...file, caption: 'cat', mimetype: 'image/png', width: 10, height: 20, jpegThumbnail: Buffer.from([1, 2]) } }), context());
  assert.deepEqual(img?.image, {
    imageUrl: 'https://gw.test/media/MSG1.file',
    thumbnailUrl: 'https://gw.test/media/MSG1.thumbnail',
    caption: 'cat',
    mimeType: 'image/png',
    width: 10,
    height: 20,
    viewOnce: false,
  });
  const st = await toReceivedCallback(msg({ stickerMessage: { ...file, mimetype: 'image/webp' } }), context());
  assert.deepEqual(st?.sticker, { stickerUrl: 'https://gw.test/media/MSG1.file', mimeType: 'image/webp' });
  const re = await toReceivedCallback(msg({ reactionMessage: { key: { id: 'TARGET', fromMe: true, remoteJid: '222000@lid' }, text: '👍', senderTimestampMs: 5 } }), context());
  assert.equal(re?.reaction?.value, '👍');
  assert.equal(re?.reaction?.referencedMessage.messageId, 'TARGET');
  assert.equal(re?.reaction?.referencedMessage.phone, '5511988887777');
});

function encryptVote(pollId: string, secret: Buffer, creator: string, voter: string, option: string) {
  const vote = proto.Message.PollVoteMessage.encode({ selectedOptions: [createHash('sha256').update(option).digest()] }).finish();
  const sign = Buffer.concat([Buffer.from(pollId), Buffer.from(creator), Buffer.from(voter), Buffer.from('Poll Vote'), Buffer.from([1])]);
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(secret).digest();
  const key = createHmac('sha256', key0).update(sign).digest();
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(`${pollId}\u0000${voter}`));
  return { encPayload: Buffer.concat([c.update(vote), c.final(), c.getAuthTag()]), encIv: iv };
}

test('a poll vote (bound to our LID and the voter phone) maps to the chosen option id', async () => {
  const secret = randomBytes(32);
  const meta = optionListMeta([{ id: 'a', title: 'Red', description: '' }, { id: 'b', title: 'Blue', description: '' }], 'poll');
  const list: StoredList = { messageId: 'POLL1', meta, secret };
  const vote = encryptVote('POLL1', secret, ME.lid, '5511988887777@s.whatsapp.net', 'Blue');
  const e = await toReceivedCallback(msg({ pollUpdateMessage: { pollCreationMessageKey: { id: 'POLL1', fromMe: true }, vote } }), context([list]));
  assert.deepEqual(e?.listResponseMessage, { message: 'Blue', title: 'Blue', selectedRowId: 'b' });
  assert.equal(e?.referenceMessageId, 'POLL1');
});

test('a vote on a button list comes back as buttonsResponseMessage', async () => {
  const secret = randomBytes(32);
  const meta = buttonListMeta([{ id: 'yes', label: 'Yes' }, { id: 'no', label: 'No' }], 'poll');
  const vote = encryptVote('POLL2', secret, ME.pn, '222000@lid', 'No');
  const e = await toReceivedCallback(
    msg({ pollUpdateMessage: { pollCreationMessageKey: { id: 'POLL2', fromMe: true }, vote } }),
    context([{ messageId: 'POLL2', meta, secret }]),
  );
  assert.deepEqual(e?.buttonsResponseMessage, { buttonId: 'no', message: 'No' });
});

test('a numbered reply after a numbered-text list is an answer; without a list it is plain text', async () => {
  const meta = optionListMeta([{ id: 'x1', title: 'One', description: '' }, { id: 'x2', title: 'Two', description: '' }], 'text');
  const e = await toReceivedCallback(msg({ conversation: '2' }), context([{ messageId: 'LIST1', meta }]));
  assert.deepEqual(e?.listResponseMessage, { message: 'Two', title: 'Two', selectedRowId: 'x2' });
  assert.equal(e?.referenceMessageId, 'LIST1');
  const plain = await toReceivedCallback(msg({ conversation: '2' }), context());
  assert.deepEqual(plain?.text, { message: '2' });
});

test('native list and button answers keep the ids they carry', async () => {
  const list = await toReceivedCallback(
    msg({ listResponseMessage: { title: 'Two', singleSelectReply: { selectedRowId: 'x2' }, contextInfo: { stanzaId: 'L' } } }),
    context(),
  );
  assert.deepEqual(list?.listResponseMessage, { message: 'Two', title: 'Two', selectedRowId: 'x2' });
  const btn = await toReceivedCallback(msg({ buttonsResponseMessage: { selectedButtonId: 'ok', selectedDisplayText: 'OK' } }), context());
  assert.deepEqual(btn?.buttonsResponseMessage, { buttonId: 'ok', message: 'OK' });
});

test('protocol-only and status messages produce no event', async () => {
  assert.equal(await toReceivedCallback(msg({ protocolMessage: { type: 0 } }), context()), null);
  assert.equal(await toReceivedCallback(msg({ conversation: 'x' }, { remoteJid: 'status@broadcast' }), context()), null);
});
