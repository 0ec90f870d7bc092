// Builds the proto.Message a contact sends for each admin "send as contact" type: text, reply, reaction, location, poll
// vote, list/button answers, media (image, video/gif, ptv, audio/ptt, document, sticker), contacts, poll, event, edit, revoke,
// status reply; plus the fields any send may carry (forwarded, disappearing-message expiration).
import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { getContentType, normalizeMessageContent, proto } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import type { Account } from '../network/accounts.js';
import { pnJid } from '../network/jid.js';
import { HttpError } from '../http-error.js';
import { uploadContactMedia, type ContactMediaKind, type MediaFields } from './media-send.js';

/** Fields any send may carry. */
export interface ContactSendCommon {
  /** contextInfo.isForwarded + forwardingScore (default score 1). */
  forwarded?: boolean;
  forwardingScore?: number;
  /** Disappearing messages: contextInfo.expiration (seconds, e.g. 86400, 604800, 7776000). */
  expirationSeconds?: number;
  /** Message id chosen by the caller (e.g. to replay the same id); default: a fresh simnet id. */
  id?: string;
  /** 1:1 only: delivered as a broadcast-list message (from=<list>@broadcast, participant=<sender>). */
  viaBroadcastList?: boolean;
  /** The list's jid user part (digits); default: one stable list per sender. */
  broadcastListId?: string;
}

export interface VcardContact {
  displayName: string;
  vcard: string;
}

export type ContactSendKind =
  | { type: 'text'; text: string; mentions?: string[] }
  | { type: 'reply'; text: string; quotedId: string; quotedText?: string; mentions?: string[] }
  | { type: 'reaction'; targetId: string; emoji: string }
  | { type: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'pollVote'; pollId: string; options: string[] }
  /** An answer to an event the contact received (encrypted with the event's secret, as phones do). */
  | { type: 'eventResponse'; eventId: string; response: 'GOING' | 'NOT_GOING' | 'MAYBE' }
  | { type: 'listResponse'; title: string; rowId: string; description?: string; quotedId?: string }
  | { type: 'buttonResponse'; buttonId: string; displayText: string; quotedId?: string }
  | {
      type: 'image';
      imageBase64: string;
      mimetype?: string;
      caption?: string;
      viewOnce?: boolean;
      /** With viewOnce: deliver what the real server gives linked devices (<unavailable type="view_once"/>, no content). */
      viewOnceUnavailable?: boolean;
      width?: number;
      height?: number;
      /** Base64 JPEG; default: made from the image with sharp when it decodes (else none). */
      jpegThumbnail?: string;
    }
  | {
      type: 'video';
      videoBase64: string;
      mimetype?: string;
      caption?: string;
      /** gifPlayback: true (an animated "GIF", really an mp4). */
      gif?: boolean;
      seconds?: number;
      width?: number;
      height?: number;
      viewOnce?: boolean;
      viewOnceUnavailable?: boolean;
      jpegThumbnail?: string;
    }
  /** Round video note (ptvMessage, a VideoMessage under its own key). */
  | { type: 'ptv'; videoBase64: string; mimetype?: string; seconds?: number; width?: number; height?: number }
  | { type: 'audio'; audioBase64: string; mimetype?: string; ptt?: boolean; seconds?: number }
  /** With a caption: documentWithCaptionMessage, as WhatsApp sends captioned documents. */
  | { type: 'document'; documentBase64: string; mimetype: string; fileName: string; caption?: string; pageCount?: number }
  | { type: 'sticker'; stickerBase64: string; mimetype?: string; animated?: boolean; width?: number; height?: number }
  | ({ type: 'contact' } & VcardContact)
  | { type: 'contacts'; contacts: VcardContact[]; displayName?: string }
  /** A group event with a 32-byte messageSecret (answers to it are encrypted with it); startTime in Unix seconds. */
  | { type: 'event'; name: string; startTime: number; description?: string; location?: string; canceled?: boolean }
  /** Poll creation with a 32-byte messageSecret (messageContextInfo); selectableCount 1 → pollCreationMessageV3. */
  | { type: 'poll'; name: string; options: string[]; selectableCount?: number }
  /**
   * MESSAGE_EDIT of a message this contact sent, stanza edit="1". Wrapped in editedMessage (FutureProofMessage) as phones
   * send it; `unwrapped: true` sends the bare protocolMessage (what Baileys-based senders send).
   */
  | { type: 'edit'; targetId: string; text: string; unwrapped?: boolean }
  /** Delete for everyone of a message this contact sent: protocolMessage REVOKE, stanza edit="7". */
  | { type: 'revoke'; targetId: string }
  /** 1:1 only: a reply to the recipient's status (quoted from status@broadcast). */
  | { type: 'statusReply'; text: string; statusId?: string; statusText?: string };

export type ContactSend = ContactSendKind & ContactSendCommon;

function quoteContext(net: SimnetContext, chatOwner: string, quotedId: string | undefined, quotedText?: string): proto.IContextInfo | undefined {
  if (!quotedId) return undefined;
  const idx = net.messages.get(quotedId);
  return {
    stanzaId: quotedId,
    participant: pnJid(idx?.senderPhone ?? chatOwner),
    quotedMessage: { conversation: quotedText ?? '' },
  };
}

export interface ComposeContext {
  /** Id the message will be sent under (media is remembered by it, for media retry). */
  id: string;
}

/** `to` is the chat from the contact's side: the other account's phone or a group jid. */
export async function composeContactMessage(
  net: SimnetContext,
  from: Account,
  toJid: string,
  chatOwner: string,
  req: ContactSend,
  ctx: ComposeContext = { id: net.newId() },
): Promise<proto.IMessage> {
  const msg = await composeKind(net, from, toJid, chatOwner, req, ctx);
  applyCommon(msg, req);
  return msg;
}

/** Stanza attributes a kind needs beyond id/t/from: type (media/text/poll/reaction) and edit (1 edit, 7 revoke). */
export function contactStanzaAttrs(req: ContactSend, msg: proto.IMessage): Record<string, string> {
  const attrs: Record<string, string> = {};
  const m = normalizeMessageContent(msg) ?? {};
  if (m.imageMessage || m.videoMessage || m.ptvMessage || m.audioMessage || m.documentMessage || m.stickerMessage) attrs.type = 'media';
  else if (m.locationMessage || m.liveLocationMessage || m.contactMessage || m.contactsArrayMessage) attrs.type = 'media';
  if (req.type === 'edit') attrs.edit = '1';
  if (req.type === 'revoke') attrs.edit = '7';
  return attrs;
}

/** forwarded / expirationSeconds go into the content's contextInfo (a bare conversation becomes an extendedTextMessage). */
function applyCommon(msg: proto.IMessage, req: ContactSend): void {
  if (!req.forwarded && !req.expirationSeconds) return;
  const inner = normalizeMessageContent(msg);
  if (!inner) return;
  const key = getContentType(inner);
  if (!key || key === 'protocolMessage' || key === 'reactionMessage' || key === 'pollUpdateMessage') return;
  if (key === 'conversation') {
    inner.extendedTextMessage = { text: inner.conversation ?? '' };
    delete inner.conversation;
  }
  const k = key === 'conversation' ? 'extendedTextMessage' : key;
  const content = (inner as Record<string, unknown>)[k] as { contextInfo?: proto.IContextInfo | null } | null | undefined;
  if (!content || typeof content !== 'object') return;
  const ci: proto.IContextInfo = { ...(content.contextInfo ?? {}) };
  if (req.forwarded) {
    ci.isForwarded = true;
    ci.forwardingScore = req.forwardingScore ?? 1;
  }
  if (req.expirationSeconds) ci.expiration = req.expirationSeconds;
  content.contextInfo = ci;
}

const b64 = (s: string, field: string): Buffer => {
  if (typeof s !== 'string' || !s) throw new HttpError(400, `${field} required`);
  return Buffer.from(s, 'base64');
};

/** Dimensions and a small JPEG thumbnail of an image, when sharp can decode it (cheap; nothing if it cannot). */
async function imageInfo(buf: Buffer): Promise<{ width?: number; height?: number; thumb?: Buffer }> {
  try {
    const sharp = (await import('sharp')).default;
    const meta = await sharp(buf).metadata();
    const thumb = await sharp(buf).resize(32, 32, { fit: 'inside' }).jpeg({ quality: 50 }).toBuffer();
    return { width: meta.width, height: meta.pageHeight ?? meta.height, thumb };
  } catch {
    return {};
  }
}

async function upload(net: SimnetContext, from: Account, ctx: ComposeContext, plain: Buffer, kind: ContactMediaKind): Promise<MediaFields> {
  return uploadContactMedia(net, from.phone, ctx.id, plain, kind);
}

/** The id must name a message this contact sent (to this chat). */
function ownMessage(net: SimnetContext, from: Account, targetId: string): void {
  if (typeof targetId !== 'string' || !targetId) throw new HttpError(400, 'targetId required');
  const idx = net.messages.get(targetId);
  if (!idx) throw new HttpError(404, `unknown message ${targetId}`);
  if (idx.senderPhone !== from.phone) throw new HttpError(400, `${targetId} was not sent by ${from.phone}`);
}

async function composeKind(net: SimnetContext, from: Account, toJid: string, chatOwner: string, req: ContactSend, ctx: ComposeContext): Promise<proto.IMessage> {
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
          senderTimestampMs: net.now(),
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
      return {
        pollUpdateMessage: {
          pollCreationMessageKey: { remoteJid: toJid, fromMe: false, id: req.pollId, ...(toJid.endsWith('@g.us') ? { participant: poll.creatorJid } : {}) },
          vote: withSecret('Poll Vote', req.pollId, poll.secret, poll.creatorJid, voterJid, vote),
          senderTimestampMs: net.now(),
        },
      };
    }
    case 'eventResponse': {
      const event = from.polls.get(req.eventId);
      if (!event) throw new HttpError(404, `contact ${from.phone} never received event ${req.eventId}`);
      const T = proto.Message.EventResponseMessage.EventResponseType;
      const plain = proto.Message.EventResponseMessage.encode({ response: T[req.response], timestampMs: net.now() }).finish();
      const encrypted = withSecret('Event Response', req.eventId, event.secret, event.creatorJid, pnJid(from.phone), plain);
      return {
        encEventResponseMessage: {
          eventCreationMessageKey: { remoteJid: toJid, fromMe: false, id: req.eventId, ...(toJid.endsWith('@g.us') ? { participant: event.creatorJid } : {}) },
          ...encrypted,
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
      const plain = b64(req.imageBase64, 'imageBase64');
      const info = req.jpegThumbnail && req.width && req.height ? {} : await imageInfo(plain);
      const imageMessage: proto.Message.IImageMessage = {
        ...(await upload(net, from, ctx, plain, 'image')),
        mimetype: req.mimetype ?? 'image/jpeg',
        caption: req.caption,
        width: req.width ?? info.width,
        height: req.height ?? info.height,
        jpegThumbnail: req.jpegThumbnail ? Buffer.from(req.jpegThumbnail, 'base64') : info.thumb,
        ...(req.viewOnce ? { viewOnce: true } : {}),
      };
      return req.viewOnce ? { viewOnceMessageV2: { message: { imageMessage } } } : { imageMessage };
    }
    case 'video': {
      const plain = b64(req.videoBase64, 'videoBase64');
      const videoMessage: proto.Message.IVideoMessage = {
        ...(await upload(net, from, ctx, plain, 'video')),
        mimetype: req.mimetype ?? 'video/mp4',
        caption: req.caption,
        seconds: req.seconds,
        width: req.width,
        height: req.height,
        ...(req.gif ? { gifPlayback: true, gifAttribution: proto.Message.VideoMessage.Attribution.NONE } : {}),
        ...(req.jpegThumbnail ? { jpegThumbnail: Buffer.from(req.jpegThumbnail, 'base64') } : {}),
        ...(req.viewOnce ? { viewOnce: true } : {}),
      };
      return req.viewOnce ? { viewOnceMessageV2: { message: { videoMessage } } } : { videoMessage };
    }
    case 'ptv': {
      const plain = b64(req.videoBase64, 'videoBase64');
      return {
        ptvMessage: {
          ...(await upload(net, from, ctx, plain, 'video')),
          mimetype: req.mimetype ?? 'video/mp4',
          seconds: req.seconds,
          width: req.width,
          height: req.height,
        },
      };
    }
    case 'audio': {
      const plain = b64(req.audioBase64, 'audioBase64');
      return {
        audioMessage: {
          ...(await upload(net, from, ctx, plain, 'audio')),
          mimetype: req.mimetype ?? (req.ptt ? 'audio/ogg; codecs=opus' : 'audio/mpeg'),
          seconds: req.seconds,
          ptt: !!req.ptt,
          // Voice notes carry a 64-sample waveform (0..100) the apps draw.
          ...(req.ptt ? { waveform: Buffer.from(Array.from({ length: 64 }, (_, i) => Math.round(50 + 45 * Math.sin(i / 3)))) } : {}),
        },
      };
    }
    case 'document': {
      const plain = b64(req.documentBase64, 'documentBase64');
      if (!req.fileName) throw new HttpError(400, 'fileName required');
      const documentMessage: proto.Message.IDocumentMessage = {
        ...(await upload(net, from, ctx, plain, 'document')),
        mimetype: req.mimetype ?? 'application/octet-stream',
        fileName: req.fileName,
        title: req.fileName,
        caption: req.caption,
        pageCount: req.pageCount,
      };
      return req.caption ? { documentWithCaptionMessage: { message: { documentMessage } } } : { documentMessage };
    }
    case 'sticker': {
      const plain = b64(req.stickerBase64, 'stickerBase64');
      const info = req.width && req.height ? {} : await imageInfo(plain);
      return {
        stickerMessage: {
          ...(await upload(net, from, ctx, plain, 'sticker')),
          mimetype: req.mimetype ?? 'image/webp',
          isAnimated: !!req.animated,
          width: req.width ?? info.width,
          height: req.height ?? info.height,
        },
      };
    }
    case 'contact':
      return { contactMessage: { displayName: req.displayName, vcard: req.vcard } };
    case 'contacts': {
      if (!Array.isArray(req.contacts) || !req.contacts.length) throw new HttpError(400, 'contacts required');
      return {
        contactsArrayMessage: {
          displayName: req.displayName ?? `${req.contacts.length} contacts`,
          contacts: req.contacts.map((c) => ({ displayName: c.displayName, vcard: c.vcard })),
        },
      };
    }
    case 'poll': {
      if (!Array.isArray(req.options) || req.options.length < 2) throw new HttpError(400, 'a poll needs at least 2 options');
      const selectable = req.selectableCount ?? 0;
      if (selectable < 0 || selectable > req.options.length) throw new HttpError(400, 'selectableCount out of range');
      const poll: proto.Message.IPollCreationMessage = {
        name: req.name,
        options: req.options.map((optionName) => ({ optionName })),
        selectableOptionsCount: selectable,
      };
      return {
        messageContextInfo: { messageSecret: randomBytes(32) },
        ...(selectable === 1 ? { pollCreationMessageV3: poll } : { pollCreationMessage: poll }),
      };
    }
    case 'event':
      if (typeof req.name !== 'string' || !req.name) throw new HttpError(400, 'name required');
      return {
        messageContextInfo: { messageSecret: randomBytes(32) },
        eventMessage: {
          name: req.name,
          description: req.description,
          startTime: req.startTime,
          ...(req.location ? { location: { name: req.location } } : {}),
          isCanceled: !!req.canceled,
        },
      };
    case 'edit': {
      ownMessage(net, from, req.targetId);
      const protocolMessage: proto.Message.IProtocolMessage = {
        key: { remoteJid: toJid, fromMe: true, id: req.targetId },
        type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
        editedMessage: { conversation: req.text },
        timestampMs: net.now(),
      };
      return req.unwrapped ? { protocolMessage } : { editedMessage: { message: { protocolMessage } } };
    }
    case 'revoke':
      ownMessage(net, from, req.targetId);
      return { protocolMessage: { key: { remoteJid: toJid, fromMe: true, id: req.targetId }, type: proto.Message.ProtocolMessage.Type.REVOKE } };
    case 'statusReply':
      if (toJid.endsWith('@g.us')) throw new HttpError(400, 'a status reply goes to the status owner, not a group');
      return {
        extendedTextMessage: {
          text: req.text,
          contextInfo: {
            stanzaId: req.statusId ?? randomBytes(10).toString('hex').toUpperCase(),
            participant: pnJid(chatOwner),
            remoteJid: 'status@broadcast',
            quotedMessage: { conversation: req.statusText ?? '' },
          },
        },
      };
    default:
      throw new HttpError(400, `unknown send type ${(req as { type?: unknown }).type}`);
  }
}

/** Encrypts a modification of a message (a vote, an event answer) with its secret, as WhatsApp's clients do. */
function withSecret(useCase: 'Poll Vote' | 'Event Response', targetId: string, secret: Buffer, creatorJid: string, modifierJid: string, plain: Uint8Array): { encPayload: Buffer; encIv: Buffer } {
  const sign = Buffer.concat([Buffer.from(targetId), Buffer.from(creatorJid), Buffer.from(modifierJid), Buffer.from(useCase), Buffer.from([1])]);
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(secret).digest();
  const key = createHmac('sha256', key0).update(sign).digest();
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(`${targetId}\u0000${modifierJid}`));
  return { encPayload: Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]), encIv: iv };
}
