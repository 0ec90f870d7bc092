// Builds the proto.Message a contact sends for each admin "send as contact" type (text, reply, reaction, location, poll vote, list/button answers, image).
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { getMediaKeys, proto } from 'baileys';
import type { Simnet } from '../server/simnet.js';
import type { Account } from '../network/accounts.js';
import { pnJid } from '../network/jid.js';
import { HttpError } from '../handlers/pairing.js';

export type ContactSend =
  | { type: 'text'; text: string; mentions?: string[] }
  | { type: 'reply'; text: string; quotedId: string; quotedText?: string; mentions?: string[] }
  | { type: 'reaction'; targetId: string; emoji: string }
  | { type: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'pollVote'; pollId: string; options: string[] }
  | { type: 'listResponse'; title: string; rowId: string; description?: string; quotedId?: string }
  | { type: 'buttonResponse'; buttonId: string; displayText: string; quotedId?: string }
  | { type: 'image'; imageBase64: string; mimetype?: string; caption?: string };

/** What a contact remembers of polls it received, to vote later (the vote is encrypted with the poll's secret). */
export interface PollMemory {
  secret: Buffer;
  creatorJid: string;
  options: string[];
}

function quoteContext(net: Simnet, chatOwner: string, quotedId: string | undefined, quotedText?: string): proto.IContextInfo | undefined {
  if (!quotedId) return undefined;
  const idx = net.messages.get(quotedId);
  return {
    stanzaId: quotedId,
    participant: pnJid(idx?.senderPhone ?? chatOwner),
    quotedMessage: { conversation: quotedText ?? '' },
  };
}

/** `to` is the chat from the contact's side: the other account's phone or a group jid. */
export async function composeContactMessage(net: Simnet, from: Account, toJid: string, chatOwner: string, req: ContactSend): Promise<proto.IMessage> {
  switch (req.type) {
    case 'text':
      return req.mentions?.length ? { extendedTextMessage: { text: req.text, contextInfo: { mentionedJid: req.mentions } } } : { conversation: req.text };
    case 'reply':
      return {
        extendedTextMessage: {
          text: req.text,
          contextInfo: { ...quoteContext(net, chatOwner, req.quotedId, req.quotedText), ...(req.mentions?.length ? { mentionedJid: req.mentions } : {}) },
        },
      };
    case 'reaction': {
      const idx = net.messages.get(req.targetId);
      const fromMe = idx?.senderPhone === from.phone;
      return {
        reactionMessage: {
          key: { remoteJid: toJid, fromMe, id: req.targetId, ...(toJid.endsWith('@g.us') && idx ? { participant: pnJid(idx.senderPhone) } : {}) },
          text: req.emoji,
          senderTimestampMs: Date.now(),
        },
      };
    }
    case 'location':
      return { locationMessage: { degreesLatitude: req.latitude, degreesLongitude: req.longitude, name: req.name, address: req.address } };
    case 'pollVote': {
      const poll = from.polls.get(req.pollId);
      if (!poll) throw new HttpError(404, `contact ${from.phone} never received poll ${req.pollId}`);
      const unknown = req.options.filter((o) => !poll.options.includes(o));
      if (unknown.length) throw new HttpError(400, `not options of the poll: ${unknown.join(', ')}`);
      const voterJid = pnJid(from.phone);
      const vote = proto.Message.PollVoteMessage.encode({ selectedOptions: req.options.map((o) => createHash('sha256').update(o).digest()) }).finish();
      const sign = Buffer.concat([Buffer.from(req.pollId), Buffer.from(poll.creatorJid), Buffer.from(voterJid), Buffer.from('Poll Vote'), Buffer.from([1])]);
      const key0 = createHmac('sha256', Buffer.alloc(32)).update(poll.secret).digest();
      const key = createHmac('sha256', key0).update(sign).digest();
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      c.setAAD(Buffer.from(`${req.pollId}\u0000${voterJid}`));
      const encPayload = Buffer.concat([c.update(vote), c.final(), c.getAuthTag()]);
      return {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: toJid, fromMe: false, id: req.pollId, ...(toJid.endsWith('@g.us') ? { participant: poll.creatorJid } : {}) },
          vote: { encPayload, encIv: iv },
          senderTimestampMs: Date.now(),
        },
      };
    }
    case 'listResponse':
      return {
        listResponseMessage: {
          title: req.title,
          listType: proto.Message.ListResponseMessage.ListType.SINGLE_SELECT,
          singleSelectReply: { selectedRowId: req.rowId },
          description: req.description,
          contextInfo: quoteContext(net, chatOwner, req.quotedId),
        },
      };
    case 'buttonResponse':
      return {
        buttonsResponseMessage: {
          selectedButtonId: req.buttonId,
          selectedDisplayText: req.displayText,
          type: proto.Message.ButtonsResponseMessage.Type.DISPLAY_TEXT,
          contextInfo: quoteContext(net, chatOwner, req.quotedId),
        },
      };
    case 'image': {
      if (!net.media) throw new HttpError(503, 'media host not running');
      const plain = Buffer.from(req.imageBase64, 'base64');
      const mediaKey = randomBytes(32);
      const keys = await getMediaKeys(mediaKey, 'image');
      const iv = Buffer.from(keys.iv);
      const c = createCipheriv('aes-256-cbc', Buffer.from(keys.cipherKey), iv);
      const body = Buffer.concat([c.update(plain), c.final()]);
      const mac = createHmac('sha256', Buffer.from(keys.macKey!)).update(iv).update(body).digest().subarray(0, 10);
      const enc = Buffer.concat([body, mac]);
      const directPath = net.media.put(enc, 'image');
      return {
        imageMessage: {
          url: `https://${net.media.hostname}${directPath}`,
          directPath,
          mediaKey,
          mimetype: req.mimetype ?? 'image/jpeg',
          caption: req.caption,
          fileSha256: createHash('sha256').update(plain).digest(),
          fileEncSha256: createHash('sha256').update(enc).digest(),
          fileLength: plain.length,
          mediaKeyTimestamp: Math.floor(Date.now() / 1000),
        },
      };
    }
  }
}
