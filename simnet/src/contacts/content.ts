// Turns a decrypted proto.Message into the structured record tests inspect (type, text, caption, location, poll, quote, media bytes…).
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { getMediaKeys, normalizeMessageContent, proto } from 'baileys';

export type ReceivedType =
  | 'text'
  /** A chat's disappearing-messages timer changed (`ephemeralSeconds`, 0 = off). */
  | 'ephemeral'
  | 'image'
  | 'sticker'
  | 'video'
  | 'audio'
  | 'document'
  | 'location'
  | 'poll'
  | 'pollVote'
  /** A group event (eventMessage). */
  | 'event'
  /** An event's edit (secretEncryptedMessage EVENT_EDIT), decrypted with the event's secret. */
  | 'eventEdit'
  /** An answer to an event (encEventResponseMessage), decrypted with the event's secret. */
  | 'eventResponse'
  | 'reaction'
  | 'edit'
  | 'revoke'
  | 'listResponse'
  | 'buttonResponse'
  | 'contact'
  | 'pin'
  | 'interactive'
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
  /** Video: shown looping without sound (send-gif). */
  gifPlayback?: boolean;
  /** Video: a round video note (ptvMessage). */
  ptv?: boolean;
  /** Voice note: the waveform bars (0–100 each), when sent. */
  waveform?: number[];
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
  /** A channel post: the channel (`<id>@newsletter`); `from` is the owner or admin who posted. */
  newsletter?: string;
  t: number;
  /** Wall-clock ms at which the network read it (lets a test time a send without its own polling delay). */
  atMs: number;
  type: ReceivedType;
  text?: string;
  caption?: string;
  quotedId?: string;
  quotedParticipant?: string;
  mentions?: string[];
  /** Groups mentioned (contextInfo.groupMentions: groups of the same community). */
  groupMentions?: { jid: string; subject: string }[];
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  poll?: { name: string; options: string[]; selectableCount: number };
  /** A vote read with the poll's secret (when the contact holds the poll): the options chosen, by name. */
  vote?: { options: string[] };
  /** An event, or what an edit changes it to. */
  event?: ReceivedEvent;
  /** An answer to an event. */
  eventResponse?: 'GOING' | 'NOT_GOING' | 'MAYBE' | 'UNKNOWN';
  reaction?: { emoji: string; targetId: string };
  /** For `ephemeral`: the chat's new timer, seconds (0 = off). */
  ephemeralSeconds?: number;
  /** For edit/revoke: the id of the message changed. */
  targetId?: string;
  media?: ReceivedMedia;
  /** Set for device-sent copies (what the sender's own phone got). */
  destination?: string;
  /** The `edit` attribute of the stanza (1 edit, 2 pin, 7 revoke, 8 admin revoke). */
  editAttr?: string;
  /** Link preview fields of an extended text. */
  link?: ReceivedLink;
  /** Contact cards (one for contactMessage, several for contactsArrayMessage). */
  contacts?: { displayName: string; vcard: string }[];
  /** Set when the message carries WhatsApp's "Forwarded" mark. */
  forwarded?: boolean;
  /** pinInChatMessage: the message pinned or unpinned, and for how long. */
  pin?: { targetId: string; action: 'pin' | 'unpin'; durationSeconds?: number };
  /** Interactive, buttons, list and template messages: what the recipient's phone would render. */
  interactive?: ReceivedInteractive;
  /** Why the contact could not decrypt/parse it. */
  error?: string;
  /** The decoded message as JSON, for anything not structured above. */
  raw: Record<string, unknown>;
}

export interface ReceivedEvent {
  name: string;
  description?: string;
  /** Unix seconds. */
  startTime: number;
  location?: string;
  joinLink?: string;
  canceled: boolean;
}

/** What the contact holds of the message a vote, answer or edit names (its secret and creator). */
export interface SecretMemory {
  secret: Uint8Array;
  creatorJid: string;
  creatorLid?: string;
  options: string[];
}

export interface ReceivedLink {
  matchedText?: string;
  title?: string;
  description?: string;
  /** Bytes of the inline JPEG thumbnail (0 when absent). */
  thumbnailBytes: number;
  /** Width/height of the inline thumbnail, when it decodes as a JPEG. */
  thumbnailWidth?: number;
  /** The uploaded high-quality thumbnail of a large preview, decrypted from the media host. */
  highQuality?: ReceivedMedia;
}

export interface ReceivedButton {
  /** nativeFlow button name (quick_reply, cta_url, cta_call, cta_copy, payment_info) or `reply` for classic buttons. */
  name: string;
  label?: string;
  id?: string;
  url?: string;
  phone?: string;
  copyCode?: string;
  /** The raw parameters of a native flow button (JSON). */
  params?: Record<string, unknown>;
}

export interface ReceivedInteractive {
  kind: 'interactive' | 'buttons' | 'list' | 'template';
  title?: string;
  body?: string;
  footer?: string;
  hasImage?: boolean;
  buttons: ReceivedButton[];
  /** Carousel cards (interactive carouselMessage). */
  cards?: { body?: string; hasImage: boolean; buttons: ReceivedButton[] }[];
  /** List rows (listMessage). */
  rows?: { id?: string; title?: string; description?: string }[];
}

export type MediaFetcher = (directPathOrUrl: string) => Buffer | undefined;

type MediaKind = 'image' | 'sticker' | 'video' | 'audio' | 'document' | 'thumbnail-link';

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
    groupMentions: c.groupMentions?.length ? c.groupMentions.map((g) => ({ jid: g.groupJid ?? '', subject: g.groupSubject ?? '' })) : undefined,
    forwarded: c.isForwarded ? true : undefined,
  };
}

/** The width of a baseline/progressive JPEG, read from its SOF marker (no image library needed). */
function jpegWidth(buf: Uint8Array): number | undefined {
  const b = Buffer.from(buf);
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc3) return b.readUInt16BE(i + 7);
    i += 2 + len;
  }
  return undefined;
}

function nativeButton(b: proto.Message.InteractiveMessage.NativeFlowMessage.INativeFlowButton): ReceivedButton {
  let params: Record<string, unknown> = {};
  try {
    params = JSON.parse(b.buttonParamsJson ?? '{}') as Record<string, unknown>;
  } catch {
    // not JSON: keep the name only
  }
  const str = (k: string) => (typeof params[k] === 'string' ? (params[k] as string) : undefined);
  return {
    name: b.name ?? '',
    label: str('display_text'),
    id: str('id'),
    url: str('url'),
    phone: str('phone_number'),
    copyCode: str('copy_code'),
    params,
  };
}

function describeInteractive(m: proto.IMessage): ReceivedInteractive | undefined {
  const im = m.interactiveMessage;
  if (im) {
    const cards = im.carouselMessage?.cards?.map((c) => ({
      body: c.body?.text ?? undefined,
      hasImage: !!c.header?.imageMessage,
      buttons: (c.nativeFlowMessage?.buttons ?? []).map(nativeButton),
    }));
    return {
      kind: 'interactive',
      title: im.header?.title ?? undefined,
      body: im.body?.text ?? undefined,
      footer: im.footer?.text ?? undefined,
      hasImage: !!im.header?.imageMessage,
      buttons: (im.nativeFlowMessage?.buttons ?? []).map(nativeButton),
      ...(cards ? { cards } : {}),
    };
  }
  if (m.buttonsMessage) {
    const bm = m.buttonsMessage;
    return {
      kind: 'buttons',
      body: bm.contentText ?? undefined,
      footer: bm.footerText ?? undefined,
      buttons: (bm.buttons ?? []).map((b) => ({ name: 'reply', id: b.buttonId ?? undefined, label: b.buttonText?.displayText ?? undefined })),
    };
  }
  if (m.listMessage) {
    const lm = m.listMessage;
    return {
      kind: 'list',
      title: lm.title ?? undefined,
      body: lm.description ?? undefined,
      footer: lm.footerText ?? undefined,
      buttons: lm.buttonText ? [{ name: 'list', label: lm.buttonText }] : [],
      rows: (lm.sections ?? []).flatMap((sec) => (sec.rows ?? []).map((r) => ({ id: r.rowId ?? undefined, title: r.title ?? undefined, description: r.description ?? undefined }))),
    };
  }
  const tm = m.templateMessage?.hydratedTemplate ?? m.templateMessage?.hydratedFourRowTemplate;
  if (tm) {
    return {
      kind: 'template',
      title: tm.hydratedTitleText ?? undefined,
      body: tm.hydratedContentText ?? undefined,
      footer: tm.hydratedFooterText ?? undefined,
      buttons: (tm.hydratedButtons ?? []).map((b) => ({
        name: b.urlButton ? 'url' : b.callButton ? 'call' : 'reply',
        label: b.urlButton?.displayText ?? b.callButton?.displayText ?? b.quickReplyButton?.displayText ?? undefined,
        id: b.quickReplyButton?.id ?? undefined,
        url: b.urlButton?.url ?? undefined,
        phone: b.callButton?.phoneNumber ?? undefined,
      })),
    };
  }
  return undefined;
}

export interface DescribeInput {
  id: string;
  from: string;
  to: string;
  fromDevice: number;
  groupId?: string;
  /** When the network received it: ms on its clock. */
  atMs: number;
  message: proto.IMessage;
  fetchMedia: MediaFetcher;
  /** The contact's memory of polls and events (to read votes, answers and edits). */
  secretOf?: (id: string) => SecretMemory | undefined;
  /** The sender's jids (phone and LID): a modification is signed with one of them. */
  senderJids?: string[];
}

/** Decrypts what was encrypted with a message's secret, trying each (creator, modifier) pairing the sender may have signed with. */
function openWithSecret(
  useCase: 'Poll Vote' | 'Event Response' | 'Event Edit',
  targetId: string,
  enc: { encPayload?: Uint8Array | null; encIv?: Uint8Array | null },
  inp: DescribeInput,
): Buffer | undefined {
  const mem = inp.secretOf?.(targetId);
  if (!mem || !enc.encPayload || !enc.encIv) return undefined;
  const payload = Buffer.from(enc.encPayload);
  for (const creator of [mem.creatorJid, mem.creatorLid].filter((j): j is string => !!j)) {
    for (const modifier of inp.senderJids ?? []) {
      const sign = Buffer.concat([Buffer.from(targetId), Buffer.from(creator), Buffer.from(modifier), Buffer.from(useCase), Buffer.from([1])]);
      const key0 = createHmac('sha256', Buffer.alloc(32)).update(mem.secret).digest();
      const key = createHmac('sha256', key0).update(sign).digest();
      try {
        const d = createDecipheriv('aes-256-gcm', key, Buffer.from(enc.encIv));
        if (useCase !== 'Event Edit') d.setAAD(Buffer.from(`${targetId}\u0000${modifier}`));
        d.setAuthTag(payload.subarray(payload.length - 16));
        return Buffer.concat([d.update(payload.subarray(0, payload.length - 16)), d.final()]);
      } catch {
        continue; // another pairing
      }
    }
  }
  return undefined;
}

function eventOf(e: proto.Message.IEventMessage): ReceivedEvent {
  return {
    name: e.name ?? '',
    description: e.description ?? undefined,
    startTime: Number(e.startTime ?? 0),
    location: e.location?.name ?? undefined,
    joinLink: e.joinLink ?? undefined,
    canceled: !!e.isCanceled,
  };
}

export async function describeMessage(inp: DescribeInput): Promise<ReceivedMessage> {
  const base = {
    id: inp.id,
    from: inp.from,
    to: inp.to,
    fromDevice: inp.fromDevice,
    groupId: inp.groupId,
    t: Math.floor(inp.atMs / 1000),
    atMs: inp.atMs,
    raw: proto.Message.toObject(proto.Message.fromObject(inp.message), { bytes: String, longs: Number }) as Record<string, unknown>,
  };
  const m = normalizeMessageContent(inp.message) ?? {};
  const media = async (
    kind: MediaKind,
    mm: proto.Message.IImageMessage & proto.Message.IAudioMessage & proto.Message.IDocumentMessage & proto.Message.IVideoMessage,
  ) => {
    const out: ReceivedMedia = {
      mimetype: mm.mimetype ?? undefined,
      width: mm.width ?? undefined,
      height: mm.height ?? undefined,
      seconds: mm.seconds ?? undefined,
      ptt: mm.ptt ?? undefined,
      fileName: mm.fileName ?? undefined,
      gifPlayback: mm.gifPlayback ?? undefined,
      waveform: mm.waveform?.length ? [...mm.waveform] : undefined,
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
  if (m.extendedTextMessage) {
    const e = m.extendedTextMessage;
    const thumb = e.jpegThumbnail ?? undefined;
    const link: ReceivedLink | undefined =
      e.matchedText || e.title || e.description || thumb?.length
        ? {
            matchedText: e.matchedText ?? undefined,
            title: e.title ?? undefined,
            description: e.description ?? undefined,
            thumbnailBytes: thumb?.length ?? 0,
            thumbnailWidth: thumb?.length ? jpegWidth(thumb) : undefined,
          }
        : undefined;
    if (link && e.thumbnailDirectPath && e.mediaKey) {
      const hq: ReceivedMedia = { width: e.thumbnailWidth ?? undefined, height: e.thumbnailHeight ?? undefined };
      const enc = inp.fetchMedia(e.thumbnailDirectPath);
      if (!enc) hq.error = 'media not found on the media host';
      else {
        try {
          const plain = await decryptMedia(enc, e.mediaKey, 'thumbnail-link');
          hq.base64 = plain.toString('base64');
          hq.size = plain.length;
        } catch (err) {
          hq.error = (err as Error).message;
        }
      }
      link.highQuality = hq;
    }
    return { ...base, type: 'text', text: e.text ?? '', ...ctxOf(e), ...(link ? { link } : {}) };
  }
  if (m.imageMessage) {
    return { ...base, type: 'image', caption: m.imageMessage.caption ?? undefined, ...ctxOf(m.imageMessage), media: await media('image', m.imageMessage) };
  }
  if (m.stickerMessage) return { ...base, type: 'sticker', ...ctxOf(m.stickerMessage), media: await media('sticker', m.stickerMessage) };
  if (m.videoMessage) {
    return { ...base, type: 'video', caption: m.videoMessage.caption ?? undefined, ...ctxOf(m.videoMessage), media: await media('video', m.videoMessage) };
  }
  if (m.ptvMessage) {
    return { ...base, type: 'video', ...ctxOf(m.ptvMessage), media: { ...(await media('video', m.ptvMessage)), ptv: true } };
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
  if (m.pollUpdateMessage) {
    const targetId = m.pollUpdateMessage.pollCreationMessageKey?.id ?? '';
    const plain = openWithSecret('Poll Vote', targetId, m.pollUpdateMessage.vote ?? {}, inp);
    if (!plain) return { ...base, type: 'pollVote', targetId };
    const hashes = new Set(proto.Message.PollVoteMessage.decode(plain).selectedOptions.map((h) => Buffer.from(h).toString('hex')));
    const options = (inp.secretOf?.(targetId)?.options ?? []).filter((o) => hashes.has(createHash('sha256').update(o).digest('hex')));
    return { ...base, type: 'pollVote', targetId, vote: { options } };
  }
  if (m.eventMessage) return { ...base, type: 'event', ...ctxOf(m.eventMessage), event: eventOf(m.eventMessage) };
  if (m.encEventResponseMessage) {
    const r = m.encEventResponseMessage;
    const targetId = r.eventCreationMessageKey?.id ?? '';
    const plain = openWithSecret('Event Response', targetId, r, inp);
    if (!plain) return { ...base, type: 'eventResponse', targetId };
    const T = proto.Message.EventResponseMessage.EventResponseType;
    const names: Record<number, 'GOING' | 'NOT_GOING' | 'MAYBE' | 'UNKNOWN'> = { [T.GOING]: 'GOING', [T.NOT_GOING]: 'NOT_GOING', [T.MAYBE]: 'MAYBE', [T.UNKNOWN]: 'UNKNOWN' };
    return { ...base, type: 'eventResponse', targetId, eventResponse: names[proto.Message.EventResponseMessage.decode(plain).response ?? 0] ?? 'UNKNOWN' };
  }
  if (m.secretEncryptedMessage?.secretEncType === proto.Message.SecretEncryptedMessage.SecretEncType.EVENT_EDIT) {
    const se = m.secretEncryptedMessage;
    const targetId = se.targetMessageKey?.id ?? '';
    const plain = openWithSecret('Event Edit', targetId, se, inp);
    const edited = plain ? proto.Message.decode(plain).eventMessage : undefined;
    return { ...base, type: 'eventEdit', targetId, ...(edited ? { event: eventOf(edited) } : {}) };
  }
  if (m.reactionMessage) {
    const targetId = m.reactionMessage.key?.id ?? '';
    return { ...base, type: 'reaction', targetId, reaction: { emoji: m.reactionMessage.text ?? '', targetId } };
  }
  if (m.listResponseMessage) return { ...base, type: 'listResponse', text: m.listResponseMessage.title ?? undefined, ...ctxOf(m.listResponseMessage) };
  if (m.buttonsResponseMessage) {
    return { ...base, type: 'buttonResponse', text: m.buttonsResponseMessage.selectedDisplayText ?? undefined, ...ctxOf(m.buttonsResponseMessage) };
  }
  if (m.contactMessage) {
    const c = m.contactMessage;
    return { ...base, type: 'contact', ...ctxOf(c), contacts: [{ displayName: c.displayName ?? '', vcard: c.vcard ?? '' }] };
  }
  if (m.contactsArrayMessage) {
    const a = m.contactsArrayMessage;
    return {
      ...base,
      type: 'contact',
      text: a.displayName ?? undefined,
      ...ctxOf(a),
      contacts: (a.contacts ?? []).map((c) => ({ displayName: c.displayName ?? '', vcard: c.vcard ?? '' })),
    };
  }
  if (m.pinInChatMessage) {
    const p = m.pinInChatMessage;
    const pinned = p.type === proto.Message.PinInChatMessage.Type.PIN_FOR_ALL;
    const seconds = inp.message.messageContextInfo?.messageAddOnDurationInSecs ?? undefined;
    const targetId = p.key?.id ?? '';
    return { ...base, type: 'pin', targetId, pin: { targetId, action: pinned ? 'pin' : 'unpin', ...(pinned && seconds ? { durationSeconds: seconds } : {}) } };
  }
  const interactive = describeInteractive(m);
  if (interactive) {
    const ctxSource = m.interactiveMessage ?? m.buttonsMessage ?? m.listMessage ?? null;
    return { ...base, type: 'interactive', text: interactive.body, interactive, ...ctxOf(ctxSource) };
  }
  const pm = m.protocolMessage;
  if (pm) {
    if (pm.type === proto.Message.ProtocolMessage.Type.REVOKE) return { ...base, type: 'revoke', targetId: pm.key?.id ?? undefined };
    if (pm.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
      const em = pm.editedMessage;
      const text = em?.conversation ?? em?.extendedTextMessage?.text ?? em?.imageMessage?.caption ?? undefined;
      return { ...base, type: 'edit', targetId: pm.key?.id ?? undefined, text };
    }
    if (pm.type === proto.Message.ProtocolMessage.Type.EPHEMERAL_SETTING) {
      return { ...base, type: 'ephemeral', ephemeralSeconds: pm.ephemeralExpiration ?? 0 };
    }
    return { ...base, type: 'protocol' };
  }
  if (m.senderKeyDistributionMessage) return { ...base, type: 'senderKey' };
  return { ...base, type: 'unknown' };
}
