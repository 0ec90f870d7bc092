// Text and links: a text (an edit of an earlier one, group mentions), and a text with a link
// preview whose thumbnail comes only through the guarded media loader.
import type { AnyMessageContent } from 'baileys';
import { jpegThumbnail as thumbnailOf } from '../../../convert/image.js';
import type { OutgoingContent } from '../../../domain/outgoing.js';
import { errors } from '../../../errors.js';
import { groupJid } from '../../jids.js';
import { NO_PREVIEW, type ContentInput, type SendPart } from './parts.js';

type TextContent = Extract<OutgoingContent, { type: 'text' | 'link' }>;

export async function textParts(c: TextContent, input: ContentInput, groupMentions?: readonly { groupId: string; subject: string }[]): Promise<SendPart[]> {
  const { messageId, mention, ctx } = input;
  if (c.type === 'link') return [{ messageId, content: await linkContent(c, input) }];
  if (c.editMessageId) {
    return [{ messageId, content: { text: c.message, ...NO_PREVIEW, ...mention, edit: { remoteJid: ctx.jid, fromMe: true, id: c.editMessageId } } }];
  }
  // Groups of a community mentioned by name (contextInfo.groupMentions, as WhatsApp's apps send them).
  const groups = groupMentions?.length ? { contextInfo: { groupMentions: groupMentions.map((g) => ({ groupJid: groupJid(g.groupId), groupSubject: g.subject })) } } : {};
  return [{ messageId, content: { text: c.message, ...NO_PREVIEW, ...mention, ...groups } as AnyMessageContent }];
}

/** Width of the inline JPEG thumbnail per Z-API `linkType`; LARGE also uploads the image as the high-quality thumbnail. */
const THUMB_WIDTH = { SMALL: 140, MEDIUM: 300, LARGE: 140 } as const;

async function linkContent(c: Extract<OutgoingContent, { type: 'link' }>, { mention, tools }: ContentInput): Promise<AnyMessageContent> {
  // The thumbnail comes only through the guarded loader; Baileys is never asked to fetch anything.
  const jpegThumbnail = c.image ? await tools.linkThumbnail(c.image, THUMB_WIDTH[c.linkType]) : undefined;
  // A large preview shows an uploaded picture (what WhatsApp's own previews call the high-quality thumbnail).
  const highQualityThumbnail =
    c.image && c.linkType === 'LARGE' && tools.uploadLinkThumbnail ? await tools.uploadLinkThumbnail(await tools.image(c.image, 'image')) : undefined;
  const linkPreview = {
    'canonical-url': c.linkUrl,
    'matched-text': c.linkUrl,
    title: c.title,
    description: c.linkDescription,
    ...(jpegThumbnail ? { jpegThumbnail } : {}),
    ...(highQualityThumbnail ? { highQualityThumbnail } : {}),
  };
  return { text: c.message, linkPreview, ...mention } as AnyMessageContent;
}

/** A JPEG thumbnail no wider than `width` (convert/image.ts), from an untrusted image. */
export async function jpegThumbnail(data: Buffer, width: number): Promise<Buffer> {
  try {
    return await thumbnailOf(data, width);
  } catch (err) {
    throw errors.networkRefused('image: not a readable image', err);
  }
}
