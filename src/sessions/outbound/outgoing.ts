// A queued message (domain) → what Baileys sends: one or more parts, each with the id it carries.
// The main part carries the messageId fixed at enqueue; a media header sent first gets an id derived
// from it, so a resend after a crash repeats exactly the same ids.
import { createHash } from 'node:crypto';
import type { AnyMessageContent, WAMessage, proto } from 'baileys';
import type { MediaOutgoingContent, OutgoingMessage } from '../../domain/outgoing.js';
import type { PreparedImage } from '../../convert/image.js';
import type { PreparedVideo } from '../../convert/av.js';
import { mimetypeOfExtension } from '../../convert/document.js';
import { sendFailures } from '../../domain/send-failure.js';
import type { ListMode } from '../../store/schema.js';
import { buttonListMeta, numberedText, optionListMeta, pollName, type ListMeta } from './lists.js';
import type { MediaPipeline } from './media.js';
import { groupJid, phoneJid } from '../jids.js';
import { buildKindsParts, jpegThumbnail, mentionContext, pollMessage, type ImageContent } from './outgoing-kinds.js';

type SendPart =
  | { messageId: string; content: AnyMessageContent; meta?: ListMeta }
  /** Messages with no high-level Baileys API (native lists/buttons, polls with mentions): relayed as protobuf. */
  | { messageId: string; raw: proto.IMessage; meta?: ListMeta; poll?: boolean };

export interface OutgoingContext {
  media: MediaPipeline;
  listMode: ListMode;
  /** The instance's closing line for numbered text (null: the default wording). */
  replyHint?: string | null;
  /** The stored message being replied to, if known. */
  quoted(messageId: string): Promise<WAMessage | undefined>;
  /** The chat's jid (already resolved from the queued phone). */
  jid: string;
  /** Uploads an image for a native interactive header (absent: headers go as a separate image). */
  uploadImage?(image: ImageContent): Promise<proto.Message.IImageMessage>;
  /** Uploads a link preview's high-quality thumbnail (absent: only the inline thumbnail). */
  uploadLinkThumbnail?(image: ImageContent): Promise<proto.Message.IImageMessage>;
}

/** Deterministic id of an extra part (e.g. the header image before a poll). */
export function derivedMessageId(messageId: string, part: string): string {
  return '3EB0' + createHash('sha256').update(`${messageId}:${part}`).digest('hex').slice(0, 18).toUpperCase();
}

export async function buildParts(message: OutgoingMessage, messageId: string, ctx: OutgoingContext): Promise<SendPart[]> {
  const c = message.content;
  const mentions = (message.mentioned ?? []).map(phoneJid);
  // Baileys would fetch any URL in a text to build a preview, outside the address guard: never.
  const noPreview = { linkPreview: null };
  // Mentions apply to any content type in Baileys (it attaches contextInfo.mentionedJid).
  const mention = {
    ...(mentions.length > 0 ? { mentions } : {}),
    ...(message.mentionAll ? { mentionAll: true } : {}),
  };
  switch (c.type) {
    case 'text': {
      if (c.editMessageId) {
        return [{ messageId, content: { text: c.message, ...noPreview, ...mention, edit: { remoteJid: ctx.jid, fromMe: true, id: c.editMessageId } } }];
      }
      // Groups of a community mentioned by name (contextInfo.groupMentions, as WhatsApp's apps send them).
      const groups = message.groupMentions?.length ? { contextInfo: { groupMentions: message.groupMentions.map((g) => ({ groupJid: groupJid(g.groupId), groupSubject: g.subject })) } } : {};
      return [{ messageId, content: { text: c.message, ...noPreview, ...mention, ...groups } as AnyMessageContent }];
    }
    case 'image': {
      const content = {
        ...imageContent(await ctx.media.image(c.image)),
        ...(c.caption ? { caption: c.caption } : {}),
        ...(c.viewOnce ? { viewOnce: true } : {}),
        ...mention,
      };
      return [{ messageId, content: { ...content } as AnyMessageContent }];
    }
    case 'sticker': {
      const webp = await ctx.media.sticker(c.sticker);
      return [{ messageId, content: { sticker: webp, mimetype: 'image/webp', width: 512, height: 512, ...mention } as AnyMessageContent }];
    }
    case 'audio':
    case 'video':
    case 'ptv':
    case 'gif':
    case 'document':
      return [{ messageId, content: { ...(await mediaContent(c, ctx.media)), ...mention } as AnyMessageContent }];
    case 'location': {
      const location = {
        degreesLatitude: c.latitude,
        degreesLongitude: c.longitude,
        ...(c.title ? { name: c.title } : {}),
        ...(c.address ? { address: c.address } : {}),
      };
      return [{ messageId, content: { location, ...mention } as AnyMessageContent }];
    }
    case 'option-list': {
      const meta = optionListMeta(c.options, ctx.listMode);
      if (meta.mode === 'poll') {
        const name = pollName(c.message, c.title, c.buttonLabel);
        const raw = pollMessage(name, meta.options.map((o) => o.value), 1, mentionContext(mention));
        return [{ messageId, raw, meta, poll: true }];
      }
      if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          listMessage: {
            title: c.title,
            description: c.message,
            buttonText: c.buttonLabel,
            listType: 1,
            sections: [{ title: c.title, rows: c.options.map((o) => ({ rowId: o.id, title: o.title, description: o.description })) }],
            ...withMentions(mention),
          },
        };
        return [{ messageId, raw, meta }];
      }
      const text = numberedText(c.message, meta, {
        title: c.title,
        descriptions: c.options.map((o) => o.description),
        label: c.buttonLabel,
        hint: ctx.replyHint,
      });
      return [{ messageId, content: { text, ...noPreview, ...mention } as AnyMessageContent, meta }];
    }
    case 'button-list': {
      const meta = buttonListMeta(c.buttons, ctx.listMode);
      const parts: SendPart[] = [];
      // The header goes first as its own message: polls and numbered text cannot carry media.
      if (meta.mode !== 'native' && c.image) {
        const img = await ctx.media.image(c.image, 'buttonList.image');
        parts.push({ messageId: derivedMessageId(messageId, 'header'), content: imageContent(img) as AnyMessageContent });
      } else if (meta.mode !== 'native' && c.video) {
        const v = await ctx.media.video(c.video, 'video');
        parts.push({ messageId: derivedMessageId(messageId, 'header'), content: videoContent(v) as AnyMessageContent });
      }
      if (meta.mode === 'poll') {
        parts.push({ messageId, raw: pollMessage(c.message, meta.options.map((o) => o.value), 1, mentionContext(mention)), meta, poll: true });
      } else if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          buttonsMessage: {
            contentText: c.message,
            headerType: 1,
            buttons: c.buttons.map((b) => ({ buttonId: b.id, buttonText: { displayText: b.label }, type: 1 })),
            ...withMentions(mention),
          },
        };
        parts.push({ messageId, raw, meta });
      } else {
        parts.push({ messageId, content: { text: numberedText(c.message, meta, { hint: ctx.replyHint }), ...noPreview, ...mention } as AnyMessageContent, meta });
      }
      return parts;
    }
    default:
      return buildKindsParts(c, messageId, (part) => derivedMessageId(messageId, part), mention, {
        // The send-kinds reach media only through these two adapters.
        image: async (ref) => imageContent(await ctx.media.image(ref, 'image')) as ImageContent,
        // Scaled from the pipeline's bounded image (pixel limit, long side ≤ 1600): safe to decode.
        linkThumbnail: async (ref, width) => jpegThumbnail((await ctx.media.image(ref, 'image')).data, width),
        list: { mode: ctx.listMode, replyHint: ctx.replyHint ?? null },
        known: ctx.quoted,
        jid: ctx.jid,
        ...(ctx.uploadImage ? { uploadImage: ctx.uploadImage } : {}),
        ...(ctx.uploadLinkThumbnail ? { uploadLinkThumbnail: ctx.uploadLinkThumbnail } : {}),
      });
  }
}

// Media parts: everything Baileys would otherwise compute from the media itself (thumbnail, size, length,
// waveform) is given here, from the bounded conversions: the engine never decodes user media.

function imageContent(img: PreparedImage): Record<string, unknown> {
  return { image: img.data, mimetype: img.mimetype, width: img.width, height: img.height, jpegThumbnail: img.thumbnail.toString('base64') };
}

function videoContent(v: PreparedVideo): Record<string, unknown> {
  return {
    video: v.data,
    mimetype: v.mimetype,
    width: v.width,
    height: v.height,
    seconds: v.seconds,
    // An empty string still tells Baileys not to run its own ffmpeg for a thumbnail.
    jpegThumbnail: v.thumbnail ? v.thumbnail.toString('base64') : '',
  };
}

async function mediaContent(c: MediaOutgoingContent, media: MediaPipeline): Promise<Record<string, unknown>> {
  switch (c.type) {
    case 'audio': {
      const a = await media.voiceNote(c.audio);
      return {
        audio: a.data,
        mimetype: a.mimetype,
        ptt: true,
        seconds: a.seconds,
        // Without a waveform WhatsApp draws a flat line; `waveform: false` asks for exactly that.
        waveform: c.waveform === false ? new Uint8Array(0) : a.waveform,
        ...(c.viewOnce ? { viewOnce: true } : {}),
      };
    }
    case 'video':
      return { ...videoContent(await media.video(c.video, 'video')), ...(c.caption ? { caption: c.caption } : {}), ...(c.viewOnce ? { viewOnce: true } : {}) };
    case 'ptv':
      return { ...videoContent(await media.video(c.video, 'ptv')), ptv: true };
    case 'gif':
      return { ...videoContent(await media.video(c.gif, 'gif')), gifPlayback: true, ...(c.caption ? { caption: c.caption } : {}) };
    case 'document':
      return {
        document: await media.load(c.document, 'document'),
        mimetype: mimetypeOfExtension(c.extension),
        fileName: c.fileName ?? `file.${c.extension}`,
        ...(c.caption ? { caption: c.caption } : {}),
      };
  }
}

/** True when sending this content downloads, converts or uploads media. */
export function carriesMedia(c: OutgoingMessage['content']): boolean {
  switch (c.type) {
    case 'image':
    case 'sticker':
    case 'audio':
    case 'video':
    case 'ptv':
    case 'gif':
    case 'document':
      return true;
    case 'button-list':
      return c.image !== undefined || c.video !== undefined;
    case 'product':
      return true;
    default:
      return false;
  }
}

/**
 * The engine's failures that are about media, in the sender's terms: Baileys reports a media
 * host that did not take the upload as a link-like 500, which must not read as "not connected".
 */
export function asSendFailure(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (/media upload failed/i.test(e.message)) return sendFailures.uploadFailed('media upload to the network failed', err);
  }
  return err;
}

/** The `quoted` send option for a reply, when the replied-to message is known to this instance. */
export async function quotedOption(message: OutgoingMessage, ctx: OutgoingContext): Promise<{ quoted: WAMessage } | Record<string, never>> {
  if (!message.replyTo) return {};
  const q = await ctx.quoted(message.replyTo);
  return q ? { quoted: q } : {};
}

/** Mentions on a message built as protobuf (native lists and buttons). */
function withMentions(mention: { mentions?: string[]; mentionAll?: boolean }): { contextInfo?: proto.IContextInfo } {
  const contextInfo = mentionContext(mention);
  return contextInfo ? { contextInfo } : {};
}
