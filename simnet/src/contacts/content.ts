// Turns a decrypted proto.Message into the structured record tests inspect (type, text, caption, location, poll, quote, media bytes…).
import { createDecipheriv, createHmac } from 'node:crypto';
import { getMediaKeys, normalizeMessageContent, proto } from 'baileys';

export type ReceivedType =
  | 'text'
  | 'image'
  | 'sticker'
  | 'video'
  | 'audio'
  | 'document'
  | 'location'
  | 'poll'
  | 'pollVote'
  | 'reaction'
  | 'edit'
  | 'revoke'
  | 'listResponse'
  | 'buttonResponse'
  | 'contact'
  | 'protocol'
  | 'senderKey'
  | 'unknown';

export interface ReceivedMedia {
  mimetype?: string;
  /** Decrypted bytes, base64 (absent when the download or MAC check failed; see error). */
  base64?: string;
  size?: number;
  width?: number;
  height?: number;
  seconds?: number;
  ptt?: boolean;
  fileName?: string;
  error?: string;
}

export interface ReceivedMessage {
  id: string;
  /** Phone of the sender. */
  from: string;
  /** Phone of the recipient account (the contact who got it). */
  to: string;
  /** Device of the sender that encrypted it. */
  fromDevice: number;
  groupId?: string;
  t: number;
  type: ReceivedType;
  text?: string;
  caption?: string;
  quotedId?: string;
  quotedParticipant?: string;
  mentions?: string[];
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  poll?: { name: string; options: string[]; selectableCount: number };
  reaction?: { emoji: string; targetId: string };
  /** For edit/revoke: the id of the message changed. */
  targetId?: string;
  media?: ReceivedMedia;
  /** Set for device-sent copies (what the sender's own phone got). */
  destination?: string;
  /** The `edit` attribute of the stanza (1 edit, 7 revoke, 8 admin revoke). */
  editAttr?: string;
  /** Why the contact could not decrypt/parse it. */
  error?: string;
  /** The decoded message as JSON, for anything not structured above. */
  raw: Record<string, unknown>;
}

export type MediaFetcher = (directPathOrUrl: string) => Buffer | undefined;

type MediaKind = 'image' | 'sticker' | 'video' | 'audio' | 'document';

/** Decrypts WhatsApp media: AES-256-CBC body followed by a 10-byte HMAC-SHA256 over iv‖body. */
export async function decryptMedia(enc: Buffer, mediaKey: Uint8Array, kind: MediaKind): Promise<Buffer> {
  const keys = await getMediaKeys(mediaKey, kind);
  const iv = Buffer.from(keys.iv);
  const cipherKey = Buffer.from(keys.cipherKey);
  const macKey = Buffer.from(keys.macKey ?? []);
  const body = enc.subarray(0, enc.length - 10);
  const mac = enc.subarray(enc.length - 10);
  const expect = createHmac('sha256', macKey).update(iv).update(body).digest().subarray(0, 10);
  if (!expect.equals(mac)) throw new Error('media MAC mismatch');
  const d = createDecipheriv('aes-256-cbc', cipherKey, iv);
  return Buffer.concat([d.update(body), d.final()]);
}

function ctxOf(m: { contextInfo?: proto.IContextInfo | null } | null | undefined) {
  const c = m?.contextInfo;
  if (!c) return {};
  return {
    quotedId: c.stanzaId ?? undefined,
    quotedParticipant: c.participant ?? undefined,
    mentions: c.mentionedJid?.length ? [...c.mentionedJid] : undefined,
  };
}

export interface DescribeInput {
  id: string;
  from: string;
  to: string;
  fromDevice: number;
  groupId?: string;
  message: proto.IMessage;
  fetchMedia: MediaFetcher;
}

export async function describeMessage(inp: DescribeInput): Promise<ReceivedMessage> {
  const base = {
    id: inp.id,
    from: inp.from,
    to: inp.to,
    fromDevice: inp.fromDevice,
    groupId: inp.groupId,
    t: Math.floor(Date.now() / 1000),
    raw: proto.Message.toObject(proto.Message.fromObject(inp.message), { bytes: String, longs: Number }) as Record<string, unknown>,
  };
  const m = normalizeMessageContent(inp.message) ?? {};
  const media = async (kind: MediaKind, mm: proto.Message.IImageMessage & proto.Message.IAudioMessage & proto.Message.IDocumentMessage) => {
    const out: ReceivedMedia = {
      mimetype: mm.mimetype ?? undefined,
      width: mm.width ?? undefined,
      height: mm.height ?? undefined,
      seconds: mm.seconds ?? undefined,
      ptt: mm.ptt ?? undefined,
      fileName: mm.fileName ?? undefined,
    };
    const where = mm.directPath ?? mm.url;
    const enc = where ? inp.fetchMedia(where) : undefined;
    if (!enc || !mm.mediaKey) {
      out.error = 'media not found on the media host';
      return out;
    }
    try {
      const plain = await decryptMedia(enc, mm.mediaKey, kind);
      out.base64 = plain.toString('base64');
      out.size = plain.length;
    } catch (e) {
      out.error = (e as Error).message;
    }
    return out;
  };
  if (m.conversation) return { ...base, type: 'text', text: m.conversation };
  if (m.extendedTextMessage) return { ...base, type: 'text', text: m.extendedTextMessage.text ?? '', ...ctxOf(m.extendedTextMessage) };
  if (m.imageMessage) {
    return { ...base, type: 'image', caption: m.imageMessage.caption ?? undefined, ...ctxOf(m.imageMessage), media: await media('image', m.imageMessage) };
  }
  if (m.stickerMessage) return { ...base, type: 'sticker', ...ctxOf(m.stickerMessage), media: await media('sticker', m.stickerMessage) };
  if (m.videoMessage) {
    return { ...base, type: 'video', caption: m.videoMessage.caption ?? undefined, ...ctxOf(m.videoMessage), media: await media('video', m.videoMessage) };
  }
  if (m.audioMessage) return { ...base, type: 'audio', ...ctxOf(m.audioMessage), media: await media('audio', m.audioMessage) };
  if (m.documentMessage) {
    return { ...base, type: 'document', caption: m.documentMessage.caption ?? undefined, ...ctxOf(m.documentMessage), media: await media('document', m.documentMessage) };
  }
  if (m.locationMessage || m.liveLocationMessage) {
    const l = (m.locationMessage ?? m.liveLocationMessage)!;
    const lm = m.locationMessage;
    return {
      ...base,
      type: 'location',
      ...ctxOf(l),
      location: { latitude: l.degreesLatitude ?? 0, longitude: l.degreesLongitude ?? 0, name: lm?.name ?? undefined, address: lm?.address ?? undefined },
    };
  }
  const poll = m.pollCreationMessage ?? m.pollCreationMessageV2 ?? m.pollCreationMessageV3;
  if (poll) {
    return {
      ...base,
      type: 'poll',
      ...ctxOf(poll),
      poll: { name: poll.name ?? '', options: (poll.options ?? []).map((o) => o.optionName ?? ''), selectableCount: poll.selectableOptionsCount ?? 0 },
    };
  }
  if (m.pollUpdateMessage) return { ...base, type: 'pollVote', targetId: m.pollUpdateMessage.pollCreationMessageKey?.id ?? undefined };
  if (m.reactionMessage) {
    const targetId = m.reactionMessage.key?.id ?? '';
    return { ...base, type: 'reaction', targetId, reaction: { emoji: m.reactionMessage.text ?? '', targetId } };
  }
  if (m.listResponseMessage) return { ...base, type: 'listResponse', text: m.listResponseMessage.title ?? undefined, ...ctxOf(m.listResponseMessage) };
  if (m.buttonsResponseMessage) {
    return { ...base, type: 'buttonResponse', text: m.buttonsResponseMessage.selectedDisplayText ?? undefined, ...ctxOf(m.buttonsResponseMessage) };
  }
  if (m.contactMessage || m.contactsArrayMessage) return { ...base, type: 'contact' };
  const pm = m.protocolMessage;
  if (pm) {
    if (pm.type === proto.Message.ProtocolMessage.Type.REVOKE) return { ...base, type: 'revoke', targetId: pm.key?.id ?? undefined };
    if (pm.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
      const em = pm.editedMessage;
      const text = em?.conversation ?? em?.extendedTextMessage?.text ?? em?.imageMessage?.caption ?? undefined;
      return { ...base, type: 'edit', targetId: pm.key?.id ?? undefined, text };
    }
    return { ...base, type: 'protocol' };
  }
  if (m.senderKeyDistributionMessage) return { ...base, type: 'senderKey' };
  return { ...base, type: 'unknown' };
}
