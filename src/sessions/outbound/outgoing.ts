// A queued message (domain) → what Baileys sends: one or more parts, each with the id it carries.
// The main part carries the messageId fixed at enqueue; an extra part (a header before a poll, a
// carousel card) gets an id derived from it, so a resend after a crash repeats exactly the same ids.
// One module per content family under content/; this file only dispatches.
import type { WAMessage } from 'baileys';
import type { OutgoingMessage } from '../../domain/outgoing.js';
import { phoneJid } from '../jids.js';
import { interactiveParts } from './content/interactive.js';
import { listParts } from './content/list-parts.js';
import { contactsParts, locationParts } from './content/location-contacts.js';
import { actionParts } from './content/message-actions.js';
import { imageContent, mediaParts } from './content/media-parts.js';
import { derivedMessageId, type ContentInput, type ContentTools, type ImageContent, type OutgoingContext, type SendPart } from './content/parts.js';
import { pollParts } from './content/polls.js';
import { orderParts } from './content/orders.js';
import { productInviteParts } from './content/product-invite.js';
import { voteEventParts } from './content/votes-events.js';
import { jpegThumbnail, textParts } from './content/text.js';

export { derivedMessageId, type OutgoingContext } from './content/parts.js';

export async function buildParts(message: OutgoingMessage, messageId: string, ctx: OutgoingContext): Promise<SendPart[]> {
  const c = message.content;
  const mentions = (message.mentioned ?? []).map(phoneJid);
  const input: ContentInput = {
    messageId,
    derived: (part) => derivedMessageId(messageId, part),
    // Mentions apply to any content type in Baileys (it attaches contextInfo.mentionedJid).
    mention: {
      ...(mentions.length > 0 ? { mentions } : {}),
      ...(message.mentionAll ? { mentionAll: true } : {}),
    },
    ctx,
    tools: contentTools(ctx),
  };
  switch (c.type) {
    case 'text':
      return textParts(c, input, message.groupMentions);
    case 'link':
      return textParts(c, input);
    case 'image':
    case 'sticker':
    case 'audio':
    case 'video':
    case 'ptv':
    case 'gif':
    case 'document':
      return mediaParts(c, input);
    case 'location':
      return locationParts(c, input);
    case 'contacts':
      return contactsParts(c, input);
    case 'option-list':
    case 'button-list':
      return listParts(c, input);
    case 'button-actions':
    case 'button-otp':
    case 'button-pix':
    case 'carousel':
      return interactiveParts(c, input);
    case 'poll':
      return pollParts(c, input);
    case 'reaction':
    case 'pin':
    case 'forward':
      return actionParts(c, input);
    case 'product':
    case 'newsletter-admin-invite':
      return productInviteParts(c, input);
    case 'poll-vote':
    case 'event':
    case 'event-edit':
    case 'event-response':
      return voteEventParts(c, input);
    case 'order':
    case 'order-update':
      return orderParts(c, input);
  }
}

/** The media adapters and settings of the families that never touch the media pipeline directly. */
function contentTools(ctx: OutgoingContext): ContentTools {
  return {
    image: async (ref) => imageContent(await ctx.media.image(ref, 'image')) as ImageContent,
    // Scaled from the pipeline's bounded image (pixel limit, long side ≤ 1600): safe to decode.
    linkThumbnail: async (ref, width) => jpegThumbnail((await ctx.media.image(ref, 'image')).data, width),
    list: { mode: ctx.listMode, replyHint: ctx.replyHint ?? null },
    known: ctx.quoted,
    jid: ctx.jid,
    me: ctx.me ?? null,
    ...(ctx.uploadImage ? { uploadImage: ctx.uploadImage } : {}),
    ...(ctx.uploadLinkThumbnail ? { uploadLinkThumbnail: ctx.uploadLinkThumbnail } : {}),
  };
}

/** The `quoted` send option for a reply, when the replied-to message is known to this instance. */
export async function quotedOption(message: OutgoingMessage, ctx: Pick<OutgoingContext, 'quoted'>): Promise<{ quoted: WAMessage } | Record<string, never>> {
  if (!message.replyTo) return {};
  const q = await ctx.quoted(message.replyTo);
  return q ? { quoted: q } : {};
}
