// A queued message (domain) → what Baileys sends: one or more parts, each with the id it carries.
// The main part carries the messageId fixed at enqueue; a media header sent first gets an id derived
// from it, so a resend after a crash repeats exactly the same ids.
import { createHash } from 'node:crypto';
import type { AnyMessageContent, WAMessage, proto } from 'baileys';
import type { OutgoingMessage } from '../domain/outgoing.js';
import { buttonListMeta, numberedText, optionListMeta, pollName, type ListMeta, type ListMode } from './lists.js';
import { toSendableImage, toSticker, type MediaLoader } from './media.js';
import { phoneJid } from './jids.js';

export type SendPart =
  | { messageId: string; content: AnyMessageContent; meta?: ListMeta }
  /** Messages with no high-level Baileys API (native lists/buttons): relayed as protobuf. */
  | { messageId: string; raw: proto.IMessage; meta?: ListMeta };

export interface OutgoingContext {
  media: MediaLoader;
  listMode: ListMode;
  /** The stored message being replied to, if known. */
  quoted(messageId: string): Promise<WAMessage | undefined>;
  /** The chat's jid (already resolved from the queued phone). */
  jid: string;
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
      return [{ messageId, content: { text: c.message, ...noPreview, ...mention } as AnyMessageContent }];
    }
    case 'image': {
      const img = await toSendableImage(await ctx.media.load(c.image));
      const content = {
        image: img.data,
        mimetype: img.mimetype,
        ...(c.caption ? { caption: c.caption } : {}),
        ...(c.viewOnce ? { viewOnce: true } : {}),
        ...mention,
      };
      return [{ messageId, content: { ...content } as AnyMessageContent }];
    }
    case 'sticker': {
      const webp = await toSticker((await ctx.media.load(c.sticker)).data);
      return [{ messageId, content: { sticker: webp, mimetype: 'image/webp', width: 512, height: 512, ...mention } as AnyMessageContent }];
    }
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
        const poll = { name: pollName(c.message, c.title), values: meta.options.map((o) => o.value), selectableCount: 1 };
        return [{ messageId, content: { poll, ...mention } as AnyMessageContent, meta }];
      }
      if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          listMessage: {
            title: c.title,
            description: c.message,
            buttonText: c.buttonLabel,
            listType: 1,
            sections: [{ title: c.title, rows: c.options.map((o) => ({ rowId: o.id, title: o.title, description: o.description })) }],
          },
        };
        return [{ messageId, raw, meta }];
      }
      const text = numberedText(c.message, meta, c.title, c.options.map((o) => o.description));
      return [{ messageId, content: { text, ...noPreview, ...mention } as AnyMessageContent, meta }];
    }
    case 'button-list': {
      const meta = buttonListMeta(c.buttons, ctx.listMode);
      const parts: SendPart[] = [];
      // The header goes first as its own message: polls and numbered text cannot carry media.
      if (meta.mode !== 'native' && c.image) {
        const img = await toSendableImage(await ctx.media.load(c.image));
        parts.push({ messageId: derivedMessageId(messageId, 'header'), content: { image: img.data, mimetype: img.mimetype } });
      } else if (meta.mode !== 'native' && c.video) {
        const v = await ctx.media.load(c.video);
        parts.push({ messageId: derivedMessageId(messageId, 'header'), content: { video: v.data, mimetype: v.mimetype } });
      }
      if (meta.mode === 'poll') {
        const poll = { name: c.message, values: meta.options.map((o) => o.value), selectableCount: 1 };
        parts.push({ messageId, content: { poll, ...mention } as AnyMessageContent, meta });
      } else if (meta.mode === 'native') {
        const raw: proto.IMessage = {
          buttonsMessage: {
            contentText: c.message,
            headerType: 1,
            buttons: c.buttons.map((b) => ({ buttonId: b.id, buttonText: { displayText: b.label }, type: 1 })),
          },
        };
        parts.push({ messageId, raw, meta });
      } else {
        parts.push({ messageId, content: { text: numberedText(c.message, meta), ...noPreview, ...mention } as AnyMessageContent, meta });
      }
      return parts;
    }
  }
}

/** The `quoted` send option for a reply, when the replied-to message is known to this instance. */
export async function quotedOption(message: OutgoingMessage, ctx: OutgoingContext): Promise<{ quoted: WAMessage } | Record<string, never>> {
  if (!message.replyTo) return {};
  const q = await ctx.quoted(message.replyTo);
  return q ? { quoted: q } : {};
}
