// Incoming network messages → ReceivedCallback (docs/contract.md §5, Z-API's shapes): phones with their
// LIDs beside them, Z-API's common fields, one content key per message (media with signed links to the files),
// edits, deletions and pins as Z-API reports them, and answers to our lists (poll votes, numbered
// replies, native selections) mapped back to the option ids the client chose.
import { createHash } from 'node:crypto';
import { decryptEventResponse, decryptPollVote, normalizeMessageContent, proto, type WAMessage } from 'baileys';
import type { Person } from '../../domain/person.js';
import type { ReceivedCallback, ReceivedContent } from '../../events/types.js';
import type { MediaPart } from './inbound-media.js';
import { partsOf } from './incoming-media.js';
import { eventOf, orderOf } from './incoming-events-orders.js';
import { groupIdOf, isGroup, userOf } from '../jids.js';
import { optionForId, optionForNumber, optionsForVoteHashes, type ListMeta } from '../outbound/lists.js';

export interface StoredList {
  messageId: string;
  meta: ListMeta;
  /** The poll's message secret (polls only). */
  secret?: Uint8Array;
}

export interface IncomingContext {
  /** Our own jids (phone and LID), with no device part: poll votes are bound to one of them. */
  me: { pn: string; lid: string | null };
  /** `<digits>` for a person (LIDs mapped to phones), or the LID address when no phone is known. */
  phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string>;
  /** The person behind a jid: phone (or the LID address) and LID when known (link/identity.ts). */
  personOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<Person>;
  /** Every jid the sender may have used (phone and LID): votes are bound to the voter's jid. */
  senderJids(jid: string | null | undefined, alt?: string | null): Promise<string[]>;
  chatName(jid: string): Promise<string>;
  /** A list we sent, by message id (polls, native answers). */
  listById(messageId: string): Promise<StoredList | undefined>;
  /** The newest list we sent in this chat (numbered-text replies). */
  latestList(chatJid: string): Promise<StoredList | undefined>;
  /** A message this instance knows (sent or received), for votes on polls that are not lists. */
  stored(messageId: string): Promise<proto.IMessage | undefined>;
  /** Records a message's files and returns their signed links, by part. */
  media(messageId: string, parts: readonly MediaPart[]): Promise<ReadonlyMap<MediaPart['part'], string>>;
  /** The gateway's clock: the time of what the network sent without one. */
  now(): number;
}

interface ReceiveOptions {
  /** The message was sent by this gateway's API (not by the phone or another device). */
  fromApi: boolean;
}

type Content = ReceivedContent & { referenceMessageId?: string; messageId?: string; isEdit?: boolean };

/** Chats whose messages are not conversations: status posts of contacts. */
const STATUS = 'status@broadcast';

export async function toReceivedCallback(msg: WAMessage, ctx: IncomingContext, opts: ReceiveOptions = { fromApi: false }): Promise<ReceivedCallback | null> {
  const key = msg.key;
  const chat = key.remoteJid;
  if (!chat || !key.id || chat === STATUS) return null;
  const message = normalizeMessageContent(msg.message);
  if (!message) return null;
  const group = isGroup(chat);
  const newsletter = chat.endsWith('@newsletter');
  // A broadcast-list message reaches the recipient in its 1:1 chat with the sender.
  const broadcast = !newsletter && chat.endsWith('@broadcast');
  const keyAlt = key as { remoteJidAlt?: string; participantAlt?: string };
  const senderJid = group || broadcast ? (key.participant ?? null) : newsletter ? null : chat;
  const senderAlt = group || broadcast ? (keyAlt.participantAlt ?? null) : (keyAlt.remoteJidAlt ?? null);
  const src: Source = { chat, messageId: key.id, senderJid, senderAlt, fromMe: !!key.fromMe, ctx, raw: msg.message ?? {} };
  const content = await contentOf(message, src);
  if (!content) return null;
  const chatJid = broadcast ? senderJid : chat;
  // On our own message Baileys puts OUR alternate address in remoteJidAlt (the stanza's sender_pn),
  // not the recipient's: it must not name the chat.
  const chatAlt = broadcast ? senderAlt : key.fromMe ? null : (keyAlt.remoteJidAlt ?? null);
  const person: Person = group || newsletter ? { phone: group ? groupIdOf(chat) : chat, lid: null } : await ctx.personOf(chatJid, chatAlt);
  const participant: Person | null = group && senderJid ? await ctx.personOf(senderJid, senderAlt, chat) : null;
  const ownLid = ctx.me.lid ? `${userOf(ctx.me.lid)}@lid` : null;
  const ts = Number(msg.messageTimestamp ?? 0);
  const info = contextOf(message);
  const { messageId, isEdit, ...rest } = content;
  return {
    type: 'ReceivedCallback',
    messageId: messageId ?? key.id,
    phone: person.phone,
    fromMe: !!key.fromMe,
    momment: ts > 0 ? ts * 1000 : ctx.now(),
    status: key.fromMe ? 'SENT' : 'RECEIVED',
    chatName: group ? await ctx.chatName(chat) : key.fromMe ? '' : (msg.pushName ?? ''),
    senderName: msg.pushName ?? '',
    participantPhone: participant?.phone ?? null,
    isGroup: group,
    isNewsletter: newsletter,
    broadcast,
    isEdit: isEdit ?? false,
    isStatusReply: info?.remoteJid === STATUS,
    waitingMessage: false,
    fromApi: opts.fromApi,
    forwarded: !!info?.isForwarded,
    messageExpirationSeconds: info?.expiration ?? 0,
    // docs/contract.md §5: the LID beside the phone wherever the network told it.
    chatLid: person.lid,
    senderLid: key.fromMe ? ownLid : group ? (participant?.lid ?? null) : person.lid,
    participantLid: participant?.lid ?? null,
    senderPhoto: null,
    photo: null,
    ...rest,
  };
}

interface Source {
  chat: string;
  messageId: string;
  senderJid: string | null;
  senderAlt: string | null;
  fromMe: boolean;
  ctx: IncomingContext;
  /** The message before unwrapping (view-once wrappers live there). */
  raw: proto.IMessage;
}

type WithContext = { contextInfo?: proto.IContextInfo | null };

/** The context info of whichever content the message has (replies, forwards, expiry, status replies). */
function contextOf(m: proto.IMessage): proto.IContextInfo | undefined {
  for (const value of Object.values(m)) {
    const info = (value as WithContext | null | undefined)?.contextInfo;
    if (info) return info;
  }
  return undefined;
}

function refOf(info: proto.IContextInfo | null | undefined): { referenceMessageId?: string } {
  return info?.stanzaId ? { referenceMessageId: info.stanzaId } : {};
}

function viewOnceOf(src: Source, flag: boolean | null | undefined): boolean {
  const r = src.raw;
  return !!flag || !!r.viewOnceMessage || !!r.viewOnceMessageV2 || !!r.viewOnceMessageV2Extension;
}

const opt = <K extends string, V>(k: K, v: V | null | undefined): { [P in K]?: V } => (v === null || v === undefined ? {} : ({ [k]: v } as { [P in K]?: V }));

async function links(src: Source, parts: MediaPart[]): Promise<{ file: string; thumbnailUrl?: string }> {
  const got = await src.ctx.media(src.messageId, parts);
  const thumb = got.get('thumbnail');
  return { file: got.get('file') ?? '', ...(thumb ? { thumbnailUrl: thumb } : {}) };
}

async function contentOf(m: proto.IMessage, src: Source): Promise<Content | null> {
  if (m.conversation || m.extendedTextMessage?.text) return textContent(m, src);
  if (m.imageMessage) {
    const i = m.imageMessage;
    const l = await links(src, partsOf(i, 'image', 'image/jpeg'));
    return {
      image: {
        imageUrl: l.file,
        ...opt('thumbnailUrl', l.thumbnailUrl),
        caption: i.caption ?? '',
        mimeType: i.mimetype ?? 'image/jpeg',
        ...opt('width', i.width),
        ...opt('height', i.height),
        viewOnce: viewOnceOf(src, i.viewOnce),
      },
      ...refOf(i.contextInfo),
    };
  }
  const video = m.videoMessage ?? m.ptvMessage;
  if (video) {
    const ptv = !!m.ptvMessage;
    const l = await links(src, partsOf(video, 'video', 'video/mp4'));
    return {
      video: {
        videoUrl: l.file,
        ...opt('thumbnailUrl', l.thumbnailUrl),
        caption: video.caption ?? '',
        mimeType: video.mimetype ?? 'video/mp4',
        ...opt('seconds', video.seconds),
        ...opt('width', video.width),
        ...opt('height', video.height),
        viewOnce: viewOnceOf(src, video.viewOnce),
        ...(video.gifPlayback ? { gif: true, isGif: true } : {}),
        ...(ptv ? { ptv: true } : {}),
      },
      ...refOf(video.contextInfo),
    };
  }
  if (m.audioMessage) {
    const a = m.audioMessage;
    const l = await links(src, partsOf(a, 'audio', 'audio/ogg; codecs=opus'));
    return {
      audio: { audioUrl: l.file, mimeType: a.mimetype ?? 'audio/ogg; codecs=opus', ptt: !!a.ptt, ...opt('seconds', a.seconds), viewOnce: viewOnceOf(src, a.viewOnce) },
      ...refOf(a.contextInfo),
    };
  }
  if (m.documentMessage) {
    const d = m.documentMessage;
    const fileName = d.fileName ?? d.title ?? 'file';
    const l = await links(src, partsOf(d, 'document', 'application/octet-stream', fileName));
    return {
      document: {
        documentUrl: l.file,
        ...opt('thumbnailUrl', l.thumbnailUrl),
        mimeType: d.mimetype ?? 'application/octet-stream',
        title: d.title ?? fileName,
        fileName,
        ...opt('pageCount', d.pageCount),
        ...opt('caption', d.caption),
      },
      ...refOf(d.contextInfo),
    };
  }
  if (m.stickerMessage) {
    const s = m.stickerMessage;
    const l = await links(src, partsOf(s, 'sticker', 'image/webp', null, false));
    return {
      sticker: { stickerUrl: l.file, mimeType: s.mimetype ?? 'image/webp', ...(s.isAnimated ? { isAnimated: true } : {}), ...opt('width', s.width), ...opt('height', s.height) },
      ...refOf(s.contextInfo),
    };
  }
  if (m.contactMessage) return { contact: contactOf(m.contactMessage), ...refOf(m.contactMessage.contextInfo) };
  if (m.contactsArrayMessage) {
    const c = m.contactsArrayMessage;
    return { contacts: (c.contacts ?? []).map(contactOf), ...refOf(c.contextInfo) };
  }
  const location = m.locationMessage ?? m.liveLocationMessage;
  if (location) {
    const lat = Number(location.degreesLatitude ?? 0);
    const lng = Number(location.degreesLongitude ?? 0);
    const named = m.locationMessage;
    return {
      location: {
        latitude: lat,
        longitude: lng,
        ...opt('name', named?.name || undefined),
        ...opt('address', named?.address || undefined),
        url: named?.url || `https://maps.google.com/maps?q=${lat},${lng}`,
      },
      ...refOf(location.contextInfo),
    };
  }
  if (m.newsletterAdminInviteMessage) {
    const n = m.newsletterAdminInviteMessage;
    return { newsletterAdminInvite: { newsletterId: n.newsletterJid ?? '', newsletterName: n.newsletterName ?? '', text: n.caption ?? '', inviteExpiration: Number(n.inviteExpiration ?? 0) } };
  }
  if (m.reactionMessage?.key?.id) {
    const r = m.reactionMessage;
    return {
      reaction: {
        value: r.text ?? '',
        time: Number(r.senderTimestampMs ?? src.ctx.now()),
        reactionBy: src.fromMe ? src.ctx.me.pn && userOf(src.ctx.me.pn) : await src.ctx.phoneOf(src.senderJid, src.senderAlt),
        referencedMessage: await referenced(r.key!, src),
      },
      referenceMessageId: r.key!.id!,
    };
  }
  const poll = m.pollCreationMessage ?? m.pollCreationMessageV2 ?? m.pollCreationMessageV3;
  if (poll) {
    return {
      poll: { question: poll.name ?? '', pollMaxOptions: poll.selectableOptionsCount ?? 0, options: (poll.options ?? []).map((o) => ({ name: o.optionName ?? '' })) },
      ...refOf(poll.contextInfo),
    };
  }
  if (m.pollUpdateMessage) return pollVote(m.pollUpdateMessage, src);
  if (m.eventMessage) return { event: eventOf(m.eventMessage), ...refOf(m.eventMessage.contextInfo) };
  if (m.encEventResponseMessage) return eventResponse(m.encEventResponseMessage, src);
  if (m.interactiveMessage) {
    const order = orderOf(m.interactiveMessage);
    if (order) return { ...order, ...refOf(m.interactiveMessage.contextInfo) };
  }
  if (m.listResponseMessage) {
    const l = m.listResponseMessage;
    const rowId = l.singleSelectReply?.selectedRowId ?? '';
    const ref = l.contextInfo?.stanzaId;
    const list = ref ? await src.ctx.listById(ref) : undefined;
    const title = (list && optionForId(list.meta, rowId)?.title) ?? l.title ?? '';
    return { listResponseMessage: { message: title, title, selectedRowId: rowId }, ...refOf(l.contextInfo) };
  }
  if (m.buttonsResponseMessage) {
    const b = m.buttonsResponseMessage;
    return { buttonsResponseMessage: { buttonId: b.selectedButtonId ?? '', message: b.selectedDisplayText ?? '' }, ...refOf(b.contextInfo) };
  }
  if (m.templateButtonReplyMessage) {
    const t = m.templateButtonReplyMessage;
    return { buttonsResponseMessage: { buttonId: t.selectedId ?? '', message: t.selectedDisplayText ?? '' }, ...refOf(t.contextInfo) };
  }
  if (m.pinInChatMessage?.key?.id) {
    const p = m.pinInChatMessage;
    const pin = p.type === proto.Message.PinInChatMessage.Type.PIN_FOR_ALL;
    const seconds = src.raw.messageContextInfo?.messageAddOnDurationInSecs;
    return {
      pinMessage: { action: pin ? 'pin' : 'unpin', ...(pin && seconds ? { pinDurationInSecs: seconds } : {}), referencedMessage: await referenced(p.key!, src) },
      referenceMessageId: p.key!.id!,
    };
  }
  if (m.protocolMessage) return protocolContent(m.protocolMessage, src);
  return null;
}

async function textContent(m: proto.IMessage, src: Source): Promise<Content> {
  const x = m.extendedTextMessage;
  const text = m.conversation ?? x?.text ?? '';
  const numbered = src.fromMe ? undefined : await numberedAnswer(text, src);
  if (numbered) return numbered;
  const preview: { title?: string; description?: string; url?: string; thumbnailUrl?: string } = {};
  if (x?.matchedText) {
    preview.url = x.matchedText;
    if (x.title) preview.title = x.title;
    if (x.description) preview.description = x.description;
    if (x.jpegThumbnail && x.jpegThumbnail.length > 0) {
      const got = await src.ctx.media(src.messageId, [{ part: 'thumbnail', mimetype: 'image/jpeg', fileName: null, source: { inline: Buffer.from(x.jpegThumbnail) } }]);
      const thumb = got.get('thumbnail');
      if (thumb) preview.thumbnailUrl = thumb;
    }
  }
  return { text: { message: text, ...preview }, ...refOf(x?.contextInfo) };
}

/** Edits arrive as the message's new content, under the edited message's id (Z-API: `isEdit`). */
async function protocolContent(p: proto.Message.IProtocolMessage, src: Source): Promise<Content | null> {
  const target = p.key?.id;
  if (!target) return null;
  if (p.type === proto.Message.ProtocolMessage.Type.REVOKE) {
    return { notification: 'REVOKE', notificationParameters: [target], messageId: target, referenceMessageId: target };
  }
  if (p.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT && p.editedMessage) {
    const edited = normalizeMessageContent(p.editedMessage);
    if (!edited) return null;
    const content = await contentOf(edited, { ...src, messageId: target });
    return content ? { ...content, messageId: target, isEdit: true } : null;
  }
  return null;
}

async function referenced(k: proto.IMessageKey, src: Source): Promise<{ messageId: string; fromMe: boolean; phone: string; participant: string | null }> {
  return {
    messageId: k.id!,
    fromMe: !!k.fromMe,
    phone: isGroup(src.chat) ? groupIdOf(src.chat) : await src.ctx.phoneOf(src.chat),
    participant: k.participant ? await src.ctx.phoneOf(k.participant) : null,
  };
}

function contactOf(c: proto.Message.IContactMessage): { displayName: string; vCard: string; phones: string[] } {
  const vCard = c.vcard ?? '';
  const phones = [...vCard.matchAll(/waid=(\d+)/g)].map((x) => x[1]!);
  return { displayName: c.displayName ?? '', vCard, phones };
}

/** "2" sent after a numbered-text list in the same chat is the second option of that list. */
async function numberedAnswer(text: string, src: Source): Promise<Content | null> {
  if (!/^\s*\d{1,3}\s*[.)]?\s*$/.test(text)) return null;
  const list = await src.ctx.latestList(src.chat);
  if (!list || list.meta.mode !== 'text') return null;
  const option = optionForNumber(list.meta, text);
  return option ? answer(list, option) : null;
}

function answer(list: StoredList, option: ListMeta['options'][number]): Content {
  if (list.meta.kind === 'button-list') {
    return { buttonsResponseMessage: { buttonId: option.id, message: option.title }, referenceMessageId: list.messageId };
  }
  return { listResponseMessage: { message: option.title, title: option.title, selectedRowId: option.id }, referenceMessageId: list.messageId };
}

/** Decrypts a vote with each (creator, voter) pairing the network may have used; null when none fits. */
async function voteHashes(update: proto.Message.IPollUpdateMessage, pollId: string, secret: Uint8Array, src: Source): Promise<Uint8Array[] | null> {
  const creators = [src.ctx.me.pn, src.ctx.me.lid].filter((j): j is string => !!j);
  const voters = await src.ctx.senderJids(src.senderJid, src.senderAlt);
  for (const creator of creators) {
    for (const voter of voters) {
      try {
        return decryptPollVote(update.vote!, { pollCreatorJid: creator, pollMsgId: pollId, pollEncKey: secret, voterJid: voter }).selectedOptions;
      } catch {
        continue; // wrong (creator, voter) pairing: the GCM tag does not verify; try the next
      }
    }
  }
  return null;
}

async function pollVote(update: proto.Message.IPollUpdateMessage, src: Source): Promise<Content | null> {
  const pollId = update.pollCreationMessageKey?.id;
  if (!pollId || !update.vote?.encPayload || !update.vote.encIv) return null;
  const list = await src.ctx.listById(pollId);
  if (list?.secret) {
    const hashes = await voteHashes(update, pollId, list.secret, src);
    if (!hashes) return null;
    const [option] = optionsForVoteHashes(list.meta, hashes);
    // An empty vote is a retracted one: nothing was chosen, nothing to report.
    return option ? answer(list, option) : null;
  }
  // A poll this instance sent as a poll (send-poll): Z-API's pollVote with the options' names.
  const stored = await src.ctx.stored(pollId);
  const poll = stored && normalizeMessageContent(stored);
  const creation = poll?.pollCreationMessage ?? poll?.pollCreationMessageV2 ?? poll?.pollCreationMessageV3;
  const secret = stored?.messageContextInfo?.messageSecret;
  if (!creation || !secret) return null;
  const hashes = await voteHashes(update, pollId, secret, src);
  if (!hashes) return null;
  const chosen = new Set(hashes.map((h) => Buffer.from(h).toString('hex')));
  const options = (creation.options ?? [])
    .map((o) => o.optionName ?? '')
    .filter((name) => chosen.has(createHash('sha256').update(name).digest('hex')))
    .map((name) => ({ name }));
  return { pollVote: { pollMessageId: pollId, options }, referenceMessageId: pollId };
}


const EVENT_RESPONSES = ['UNKNOWN', 'GOING', 'NOT_GOING', 'MAYBE'] as const;

/**
 * An answer to an event this instance knows (it sent it, or received it): decrypted with the
 * event's secret, trying each (creator, responder) pairing the network may have used; null when
 * the event is not known or none fits.
 */
async function eventResponse(enc: proto.Message.IEncEventResponseMessage, src: Source): Promise<Content | null> {
  const key = enc.eventCreationMessageKey;
  if (!key?.id || !enc.encPayload || !enc.encIv) return null;
  const secret = (await src.ctx.stored(key.id))?.messageContextInfo?.messageSecret;
  if (!secret) return null;
  const creators = key.fromMe ? [src.ctx.me.pn, src.ctx.me.lid] : await src.ctx.senderJids(key.participant ?? key.remoteJid, null);
  const responders = src.fromMe ? [src.ctx.me.pn, src.ctx.me.lid] : await src.ctx.senderJids(src.senderJid, src.senderAlt);
  for (const creator of creators.filter((j): j is string => !!j)) {
    for (const responder of responders.filter((j): j is string => !!j)) {
      try {
        const r = decryptEventResponse({ encPayload: enc.encPayload, encIv: enc.encIv }, { eventCreatorJid: creator, eventMsgId: key.id, eventEncKey: secret, responderJid: responder });
        return {
          eventResponse: {
            response: EVENT_RESPONSES[r.response ?? 0] ?? 'UNKNOWN',
            responseFrom: src.fromMe ? (src.ctx.me.pn ? userOf(src.ctx.me.pn) : '') : await src.ctx.phoneOf(src.senderJid, src.senderAlt),
            time: Number(r.timestampMs ?? src.ctx.now()),
            referencedMessage: await referenced(key, src),
          },
          referenceMessageId: key.id,
        };
      } catch {
        continue; // wrong pairing: the GCM tag does not verify; try the next
      }
    }
  }
  return null;
}
