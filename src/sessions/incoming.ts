// Incoming network messages → ReceivedCallback (CONTRACT §5): phones instead of LIDs, one content
// key, and answers to our lists (poll votes, numbered replies, native selections) mapped back to
// the option ids the client chose.
import { decryptPollVote, normalizeMessageContent, type WAMessage, type proto } from 'baileys';
import type { ReceivedCallback, ReceivedContent } from '../events/types.js';
import { groupIdOf, isGroup } from './jids.js';
import { optionForId, optionForNumber, optionsForVoteHashes, type ListMeta } from './lists.js';

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
  phoneOf(jid: string | null | undefined, alt?: string | null): Promise<string>;
  /** Every jid the sender may have used (phone and LID): votes are bound to the voter's jid. */
  senderJids(jid: string | null | undefined, alt?: string | null): Promise<string[]>;
  chatName(jid: string): Promise<string>;
  /** A list we sent, by message id (polls, native answers). */
  listById(messageId: string): Promise<StoredList | undefined>;
  /** The newest list we sent in this chat (numbered-text replies). */
  latestList(chatJid: string): Promise<StoredList | undefined>;
}

type Content = ReceivedContent & { referenceMessageId?: string };

export async function toReceivedCallback(msg: WAMessage, ctx: IncomingContext): Promise<ReceivedCallback | null> {
  const key = msg.key;
  const chat = key.remoteJid;
  if (!chat || !key.id || chat === 'status@broadcast' || chat.endsWith('@newsletter') || chat.endsWith('@broadcast')) return null;
  const message = normalizeMessageContent(msg.message);
  if (!message) return null;
  const group = isGroup(chat);
  const keyAlt = key as { remoteJidAlt?: string; participantAlt?: string };
  const senderJid = group ? (key.participant ?? null) : chat;
  const senderAlt = group ? (keyAlt.participantAlt ?? null) : (keyAlt.remoteJidAlt ?? null);
  const content = await contentOf(message, { chat, senderJid, senderAlt, fromMe: !!key.fromMe, ctx });
  if (!content) return null;
  const phone = group ? groupIdOf(chat) : await ctx.phoneOf(chat, keyAlt.remoteJidAlt);
  const ts = Number(msg.messageTimestamp ?? 0);
  return {
    type: 'ReceivedCallback',
    messageId: key.id,
    phone,
    fromMe: !!key.fromMe,
    momment: ts > 0 ? ts * 1000 : Date.now(),
    status: key.fromMe ? 'SENT' : 'RECEIVED',
    chatName: group ? await ctx.chatName(chat) : (msg.pushName ?? ''),
    senderName: msg.pushName ?? '',
    participantPhone: group && senderJid ? await ctx.phoneOf(senderJid, senderAlt) : null,
    isGroup: group,
    ...content,
  };
}

interface Source {
  chat: string;
  senderJid: string | null;
  senderAlt: string | null;
  fromMe: boolean;
  ctx: IncomingContext;
}

function refOf(info: proto.IContextInfo | null | undefined): { referenceMessageId?: string } {
  return info?.stanzaId ? { referenceMessageId: info.stanzaId } : {};
}

async function contentOf(m: proto.IMessage, src: Source): Promise<Content | null> {
  if (m.conversation || m.extendedTextMessage?.text) {
    const text = m.conversation ?? m.extendedTextMessage?.text ?? '';
    const numbered = src.fromMe ? undefined : await numberedAnswer(text, src);
    if (numbered) return numbered;
    return { text: { message: text }, ...refOf(m.extendedTextMessage?.contextInfo) };
  }
  if (m.imageMessage) {
    const i = m.imageMessage;
    return { image: { caption: i.caption ?? '', mimeType: i.mimetype ?? 'image/jpeg' }, ...refOf(i.contextInfo) };
  }
  if (m.stickerMessage) {
    return { sticker: { mimeType: m.stickerMessage.mimetype ?? 'image/webp' }, ...refOf(m.stickerMessage.contextInfo) };
  }
  if (m.locationMessage) {
    const l = m.locationMessage;
    return {
      location: {
        latitude: Number(l.degreesLatitude ?? 0),
        longitude: Number(l.degreesLongitude ?? 0),
        ...(l.name ? { name: l.name } : {}),
        ...(l.address ? { address: l.address } : {}),
      },
      ...refOf(l.contextInfo),
    };
  }
  if (m.reactionMessage?.key?.id) {
    const r = m.reactionMessage;
    const k = r.key!;
    return {
      reaction: {
        value: r.text ?? '',
        time: Number(r.senderTimestampMs ?? Date.now()),
        referencedMessage: {
          messageId: k.id!,
          fromMe: !!k.fromMe,
          phone: isGroup(src.chat) ? groupIdOf(src.chat) : await src.ctx.phoneOf(src.chat),
          participant: k.participant ? await src.ctx.phoneOf(k.participant) : null,
        },
      },
      referenceMessageId: k.id!,
    };
  }
  if (m.pollUpdateMessage) return pollVote(m.pollUpdateMessage, src);
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
  return null;
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

async function pollVote(update: proto.Message.IPollUpdateMessage, src: Source): Promise<Content | null> {
  const pollId = update.pollCreationMessageKey?.id;
  if (!pollId || !update.vote?.encPayload || !update.vote.encIv) return null;
  const list = await src.ctx.listById(pollId);
  if (!list?.secret) return null;
  const creators = [src.ctx.me.pn, src.ctx.me.lid].filter((j): j is string => !!j);
  const voters = await src.ctx.senderJids(src.senderJid, src.senderAlt);
  for (const creator of creators) {
    for (const voter of voters) {
      let hashes: Uint8Array[];
      try {
        hashes = decryptPollVote(update.vote, { pollCreatorJid: creator, pollMsgId: pollId, pollEncKey: list.secret, voterJid: voter }).selectedOptions;
      } catch {
        continue; // wrong (creator, voter) pairing: the GCM tag does not verify; try the next
      }
      const [option] = optionsForVoteHashes(list.meta, hashes);
      // An empty vote is a retracted one: nothing was chosen, nothing to report.
      return option ? answer(list, option) : null;
    }
  }
  return null;
}

