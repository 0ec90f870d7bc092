// The send-kinds of a queued message → Baileys parts: link previews, contacts (vCard 3.0), polls,
// reactions, forwards, pins, and the interactive buttons (actions, OTP, Pix, carousel). Interactive
// messages follow the instance's list mode like option and button lists do (docs/contract.md §6): `native`
// sends WhatsApp's interactive message; `poll` (default) and `text` send a faithful rendering every
// client shows — links, numbers and codes as text, REPLY buttons as a poll or as numbered text
// whose answers come back as `buttonsResponseMessage`.
import { randomBytes } from 'node:crypto';
import { jpegThumbnail as thumbnailOf } from '../../convert/image.js';
import type { AnyMessageContent, WAMessageKey, proto } from 'baileys';
import type { ActionButton, CarouselCard, SendKindsContent, SharedContact } from '../../domain/outgoing.js';
import { errors } from '../../errors.js';
import { buttonListMeta, numberedText, type ListMeta, type ListSettings } from './lists.js';

/**
 * What the send-kinds builders need besides the message. Media goes through these two functions
 * only (outgoing.ts adapts them to the media loader), so this file never fetches or decodes media.
 */
interface KindsContext {
  /** Baileys image content (`image`, `mimetype`, and whatever else the media path prepared) for a URL or data URI. */
  image(ref: string, what: string): Promise<ImageContent>;
  /** A JPEG thumbnail at most `width` pixels wide for a link preview, from a URL or data URI. */
  linkThumbnail(ref: string, width: number): Promise<Buffer>;
  list: ListSettings;
  /** A message this instance remembers (sent or received), with its exact key. */
  known(messageId: string): Promise<{ key: WAMessageKey; message?: proto.IMessage | null } | undefined>;
  jid: string;
  /** Uploads image content and returns the imageMessage that references it (native interactive headers). */
  uploadImage?(image: ImageContent): Promise<proto.Message.IImageMessage>;
  /** Uploads image content as a link preview's high-quality thumbnail (large previews). */
  uploadLinkThumbnail?(image: ImageContent): Promise<proto.Message.IImageMessage>;
}

export type ImageContent = { image: Buffer; mimetype: string } & Record<string, unknown>;

/** One part to send. `raw` parts are relayed as built; `poll` adds the node WhatsApp wants on poll creations. */
type KindsPart =
  | { messageId: string; content: AnyMessageContent; meta?: ListMeta }
  | { messageId: string; raw: proto.IMessage; meta?: ListMeta; poll?: boolean };

export interface Mentions {
  mentions?: string[];
  mentionAll?: boolean;
}

/** contextInfo carrying mentions for messages built as protobuf (Baileys' own path misplaces them on polls). */
export function mentionContext(m: Mentions): proto.IContextInfo | undefined {
  if (!m.mentions?.length && !m.mentionAll) return undefined;
  return { ...(m.mentions?.length ? { mentionedJid: m.mentions } : {}), ...(m.mentionAll ? { nonJidMentions: 1 } : {}) };
}

/** A poll creation with a fresh secret (votes are encrypted with it); single-choice polls use V3 as WhatsApp does. */
export function pollMessage(name: string, values: readonly string[], selectableCount: number, context?: proto.IContextInfo): proto.IMessage {
  const creation: proto.Message.IPollCreationMessage = {
    name,
    options: values.map((optionName) => ({ optionName })),
    selectableOptionsCount: selectableCount,
    ...(context ? { contextInfo: context } : {}),
  };
  // The content key must come first: Baileys reads the first key as the message type.
  return {
    ...(selectableCount === 1 ? { pollCreationMessageV3: creation } : { pollCreationMessage: creation }),
    messageContextInfo: { messageSecret: randomBytes(32) },
  };
}

export async function buildKindsParts(
  c: SendKindsContent,
  messageId: string,
  derived: (part: string) => string,
  mention: Mentions,
  ctx: KindsContext,
): Promise<KindsPart[]> {
  switch (c.type) {
    case 'link':
      return [{ messageId, content: await linkContent(c, mention, ctx) }];
    case 'contacts':
      return [{ messageId, content: { contacts: contactsCard(c.contacts), ...mention } as AnyMessageContent }];
    case 'poll':
      // No list metadata: votes on it are reported as Z-API's pollVote (incoming.ts decrypts them
      // with the remembered poll), not as list answers, and numbered replies keep their list.
      return [{ messageId, raw: pollMessage(c.message, c.options, c.maxOptions, mentionContext(mention)), poll: true }];
    case 'reaction':
      return [{ messageId, content: { react: { text: c.reaction, key: await targetKey(c.targetId, ctx) } } }];
    case 'pin': {
      const key = await targetKey(c.targetId, ctx);
      const pin = c.action === 'pin' ? { pin: key, type: 1, time: c.durationSeconds } : { pin: key, type: 2 };
      return [{ messageId, content: pin as AnyMessageContent }];
    }
    case 'forward': {
      const source = await ctx.known(c.sourceId);
      if (!source?.message) throw errors.networkRefused(`messageId: message ${c.sourceId} is not known to this instance (messages are kept 14 days)`);
      return [{ messageId, content: { forward: { key: source.key, message: source.message } } }];
    }
    case 'button-actions':
      return buttonActions(c, messageId, derived, mention, ctx);
    case 'button-otp':
      return buttonOtp(c, messageId, mention, ctx);
    case 'button-pix':
      return buttonPix(c, messageId, mention, ctx);
    case 'carousel':
      return carousel(c, messageId, derived, mention, ctx);
    case 'newsletter-admin-invite':
      return [{ messageId, raw: { newsletterAdminInviteMessage: { newsletterJid: c.newsletterId, newsletterName: c.newsletterName, caption: c.caption, inviteExpiration: c.inviteExpiration } } }];
    case 'product':
      return [{ messageId, content: await productContent(c, ctx) }];
  }
}

// ---- link -----------------------------------------------------------------------------------

/** Width of the inline JPEG thumbnail per Z-API `linkType`; LARGE also uploads the image as the high-quality thumbnail. */
const THUMB_WIDTH = { SMALL: 140, MEDIUM: 300, LARGE: 140 } as const;

async function linkContent(c: Extract<SendKindsContent, { type: 'link' }>, mention: Mentions, ctx: KindsContext): Promise<AnyMessageContent> {
  // The thumbnail comes only through the guarded loader; Baileys is never asked to fetch anything.
  const jpegThumbnail = c.image ? await ctx.linkThumbnail(c.image, THUMB_WIDTH[c.linkType]) : undefined;
  // A large preview shows an uploaded picture (what WhatsApp's own previews call the high-quality thumbnail).
  const highQualityThumbnail =
    c.image && c.linkType === 'LARGE' && ctx.uploadLinkThumbnail ? await ctx.uploadLinkThumbnail(await ctx.image(c.image, 'image')) : undefined;
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

// ---- contacts -------------------------------------------------------------------------------

/** vCard 3.0 text values: backslash, comma, semicolon and newlines escaped (RFC 2426). */
function vcardText(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/;/g, '\\;').replace(/\r?\n/g, '\\n');
}

/** The vCard WhatsApp understands: `waid=` marks each number as a WhatsApp account. */
export function vcardOf(contact: SharedContact): string {
  const name = vcardText(contact.name);
  const lines = ['BEGIN:VCARD', 'VERSION:3.0', `N:;${name};;;`, `FN:${name}`];
  for (const phone of contact.phones) lines.push(`TEL;type=CELL;type=VOICE;waid=${phone}:+${phone}`);
  if (contact.businessDescription) lines.push(`X-WA-BIZ-DESCRIPTION:${vcardText(contact.businessDescription)}`);
  lines.push('END:VCARD');
  return lines.join('\n');
}

function contactsCard(contacts: readonly SharedContact[]): { displayName: string; contacts: { displayName: string; vcard: string }[] } {
  const displayName = contacts.length === 1 ? contacts[0]!.name : `${contacts.length} contacts`;
  return { displayName, contacts: contacts.map((x) => ({ displayName: x.name, vcard: vcardOf(x) })) };
}

// ---- reactions and pins ---------------------------------------------------------------------

/** The exact key of a remembered message; otherwise a received message in this chat (the usual target). */
async function targetKey(id: string, ctx: KindsContext): Promise<WAMessageKey> {
  const known = await ctx.known(id);
  if (known) return known.key;
  return { remoteJid: ctx.jid, fromMe: false, id };
}

// ---- interactive messages -------------------------------------------------------------------

function actionLine(b: ActionButton): string | undefined {
  if (b.type === 'URL') return `${b.label}: ${b.url ?? ''}`;
  if (b.type === 'CALL') return `${b.label}: +${b.phone ?? ''}`;
  return undefined;
}

function nativeButton(b: ActionButton): proto.Message.InteractiveMessage.NativeFlowMessage.INativeFlowButton {
  if (b.type === 'URL') {
    // WhatsApp's copy-code link turns a URL button into a copy button (Z-API documents this trick).
    const copy = /^https:\/\/www\.whatsapp\.com\/otp\/code\/?\?.*code=([^&]*)/.exec(b.url ?? '');
    if (copy) return { name: 'cta_copy', buttonParamsJson: JSON.stringify({ display_text: b.label, id: b.id, copy_code: decodeURIComponent(copy[1] ?? '') }) };
    return { name: 'cta_url', buttonParamsJson: JSON.stringify({ display_text: b.label, id: b.id, url: b.url, merchant_url: b.url }) };
  }
  if (b.type === 'CALL') return { name: 'cta_call', buttonParamsJson: JSON.stringify({ display_text: b.label, id: b.id, phone_number: `+${b.phone ?? ''}` }) };
  return { name: 'quick_reply', buttonParamsJson: JSON.stringify({ display_text: b.label, id: b.id }) };
}

function joinBlocks(...blocks: (string | undefined | false)[]): string {
  return blocks.filter((b): b is string => !!b && b.length > 0).join('\n\n');
}

/** A text part, or an image with the text as caption when there is an image. */
async function textOrImage(messageId: string, text: string, image: string | undefined, mention: Mentions, ctx: KindsContext, meta?: ListMeta): Promise<KindsPart> {
  if (image) {
    const img = await ctx.image(image, 'image');
    return { messageId, content: { ...img, ...(text ? { caption: text } : {}), ...mention } as AnyMessageContent, ...(meta ? { meta } : {}) };
  }
  return { messageId, content: { text, linkPreview: null, ...mention } as AnyMessageContent, ...(meta ? { meta } : {}) };
}

/** An interactive message (native mode), with the image uploaded into its header when possible. */
async function interactive(
  body: string,
  buttons: proto.Message.InteractiveMessage.NativeFlowMessage.INativeFlowButton[],
  opts: { title?: string; footer?: string; image?: string },
  mention: Mentions,
  ctx: KindsContext,
): Promise<proto.IMessage> {
  const image = opts.image && ctx.uploadImage ? await ctx.uploadImage(await ctx.image(opts.image, 'image')) : undefined;
  const context = mentionContext(mention);
  return {
    interactiveMessage: {
      ...(opts.title || image ? { header: { title: opts.title ?? '', hasMediaAttachment: !!image, ...(image ? { imageMessage: image } : {}) } } : {}),
      body: { text: body },
      ...(opts.footer ? { footer: { text: opts.footer } } : {}),
      nativeFlowMessage: { buttons, messageParamsJson: '', messageVersion: 1 },
      ...(context ? { contextInfo: context } : {}),
    },
  };
}

async function buttonActions(
  c: Extract<SendKindsContent, { type: 'button-actions' }>,
  messageId: string,
  derived: (part: string) => string,
  mention: Mentions,
  ctx: KindsContext,
): Promise<KindsPart[]> {
  const replies = c.buttons.filter((b) => b.type === 'REPLY');
  const meta = replies.length > 0 ? buttonListMeta(replies.map((b) => ({ id: b.id, label: b.label })), ctx.list.mode) : undefined;
  if (ctx.list.mode === 'native') {
    const raw = await interactive(c.message, c.buttons.map(nativeButton), { ...opts(c), image: c.image }, mention, ctx);
    return [{ messageId, raw, ...(meta ? { meta } : {}) }];
  }
  const actions = c.buttons.map(actionLine).filter((l): l is string => !!l).join('\n');
  const title = c.title ? `*${c.title}*` : undefined;
  const footer = c.footer ? `_${c.footer}_` : undefined;
  if (!meta) return [await textOrImage(messageId, joinBlocks(title, c.message, actions, footer), c.image, mention, ctx)];
  if (meta.mode === 'poll') {
    // What a poll cannot hold (image, title, links, numbers, footer) goes first; the poll asks the message.
    const parts: KindsPart[] = [];
    const intro = joinBlocks(title, actions, footer);
    if (intro || c.image) parts.push(await textOrImage(derived('intro'), intro, c.image, {}, ctx));
    parts.push({ messageId, raw: pollMessage(c.message, meta.options.map((o) => o.value), 1, mentionContext(mention)), meta, poll: true });
    return parts;
  }
  const numbered = numberedText(joinBlocks(title, c.message, actions), meta, { hint: ctx.list.replyHint });
  return [await textOrImage(messageId, joinBlocks(numbered, footer), c.image, mention, ctx, meta)];
}

function opts(c: { title?: string; footer?: string }): { title?: string; footer?: string } {
  return { ...(c.title ? { title: c.title } : {}), ...(c.footer ? { footer: c.footer } : {}) };
}

async function buttonOtp(c: Extract<SendKindsContent, { type: 'button-otp' }>, messageId: string, mention: Mentions, ctx: KindsContext): Promise<KindsPart[]> {
  if (ctx.list.mode === 'native') {
    const button = { name: 'cta_copy', buttonParamsJson: JSON.stringify({ display_text: c.buttonText, copy_code: c.code }) };
    return [{ messageId, raw: await interactive(c.message, [button], { image: c.image }, mention, ctx) }];
  }
  // The code alone on the last line, so it is easy to select and copy.
  return [await textOrImage(messageId, `${c.message}\n\n${c.buttonText}:\n${c.code}`, c.image, mention, ctx)];
}

const PIX_KEY_LABEL = { CPF: 'CPF', CNPJ: 'CNPJ', PHONE: 'Phone', EMAIL: 'E-mail', EVP: 'Random key (EVP)' } as const;

async function buttonPix(c: Extract<SendKindsContent, { type: 'button-pix' }>, messageId: string, mention: Mentions, ctx: KindsContext): Promise<KindsPart[]> {
  if (ctx.list.mode === 'native') {
    const params = {
      currency: 'BRL',
      total_amount: { value: 0, offset: 100 },
      reference_id: messageId,
      type: 'physical-goods',
      order: { status: 'pending', subtotal: { value: 0, offset: 100 }, order_type: 'ORDER', items: [] },
      payment_settings: [{ type: 'pix_static_code', pix_static_code: { merchant_name: c.merchantName, key: c.pixKey, key_type: c.keyType } }],
      share_payment_status: false,
    };
    const button = { name: 'payment_info', buttonParamsJson: JSON.stringify(params) };
    return [{ messageId, raw: await interactive(c.merchantName, [button], {}, mention, ctx) }];
  }
  return [await textOrImage(messageId, `*${c.merchantName}*\nPix — ${PIX_KEY_LABEL[c.keyType]}:\n${c.pixKey}`, undefined, mention, ctx)];
}

async function carousel(
  c: Extract<SendKindsContent, { type: 'carousel' }>,
  messageId: string,
  derived: (part: string) => string,
  mention: Mentions,
  ctx: KindsContext,
): Promise<KindsPart[]> {
  const many = c.cards.length > 1;
  const replies = c.cards.flatMap((card, i) =>
    card.buttons.filter((b) => b.type === 'REPLY').map((b) => ({ id: b.id, label: many ? `#${i + 1} ${b.label}` : b.label })),
  );
  const meta = replies.length > 0 ? buttonListMeta(replies, ctx.list.mode) : undefined;
  if (ctx.list.mode === 'native' && ctx.uploadImage) {
    const cards = await Promise.all(c.cards.map((card) => nativeCard(card, ctx)));
    const context = mentionContext(mention);
    const raw: proto.IMessage = {
      interactiveMessage: { body: { text: c.message }, carouselMessage: { cards, messageVersion: 1 }, ...(context ? { contextInfo: context } : {}) },
    };
    return [{ messageId, raw, ...(meta ? { meta } : {}) }];
  }
  // Fallback: each card is an image with its text and links; REPLY buttons become one poll (or numbered text).
  const cardParts = await Promise.all(
    c.cards.map(async (card, i) => {
      const actions = card.buttons.map(actionLine).filter((l): l is string => !!l).join('\n');
      const label = many ? `*#${i + 1}*` : undefined;
      return textOrImage(derived(`card-${i}`), joinBlocks(label, card.text, actions), card.image, {}, ctx);
    }),
  );
  if (!meta) return [await textOrImage(messageId, c.message, undefined, mention, ctx), ...cardParts];
  if (meta.mode === 'poll') {
    return [...cardParts, { messageId, raw: pollMessage(c.message, meta.options.map((o) => o.value), 1, mentionContext(mention)), meta, poll: true }];
  }
  return [...cardParts, await textOrImage(messageId, numberedText(c.message, meta, { hint: ctx.list.replyHint }), undefined, mention, ctx, meta)];
}

async function nativeCard(card: CarouselCard, ctx: KindsContext): Promise<proto.Message.IInteractiveMessage> {
  const image = await ctx.uploadImage!(await ctx.image(card.image, 'carousel image'));
  return {
    header: { hasMediaAttachment: true, imageMessage: image },
    body: { text: card.text },
    nativeFlowMessage: { buttons: card.buttons.map(nativeButton), messageParamsJson: '', messageVersion: 1 },
  };
}

// ---- product --------------------------------------------------------------------------------

/** WhatsApp's product message: the catalog snapshot, its picture uploaded as the product image. */
async function productContent(c: Extract<SendKindsContent, { type: 'product' }>, ctx: KindsContext): Promise<AnyMessageContent> {
  const img = await ctx.image(c.image, 'product image');
  return {
    product: {
      productImage: img.image,
      productId: c.productId,
      title: c.title,
      description: c.description,
      currencyCode: c.currency,
      priceAmount1000: c.priceAmount1000,
      ...(c.retailerId ? { retailerId: c.retailerId } : {}),
      ...(c.url ? { url: c.url } : {}),
      productImageCount: c.imageCount,
    },
    businessOwnerJid: `${c.catalogPhone}@s.whatsapp.net`,
  };
}
