// Interactive messages: action buttons (links, calls, replies), a copy-code (OTP) button, a Pix
// payment, a carousel of cards. They follow the instance's list mode like option and button lists
// do (docs/contract.md §6): `native` sends WhatsApp's interactive message; `poll` (default) and
// `text` send a faithful rendering every client shows (links, numbers and codes as text, REPLY
// buttons as a poll or as numbered text whose answers come back as `buttonsResponseMessage`).
import type { AnyMessageContent, proto } from 'baileys';
import type { ActionButton, CarouselCard, OutgoingContent, SendKindsContent } from '../../../domain/outgoing.js';
import { buttonListMeta, numberedText, type ListMeta } from '../lists.js';
import { mentionContext, type ContentInput, type ContentTools, type Mentions, type SendPart } from './parts.js';
import { pollMessage } from './polls.js';

type InteractiveContent = Extract<OutgoingContent, { type: 'button-actions' | 'button-otp' | 'button-pix' | 'carousel' }>;

export function interactiveParts(c: InteractiveContent, { messageId, derived, mention, tools }: ContentInput): Promise<SendPart[]> {
  switch (c.type) {
    case 'button-actions':
      return buttonActions(c, messageId, derived, mention, tools);
    case 'button-otp':
      return buttonOtp(c, messageId, mention, tools);
    case 'button-pix':
      return buttonPix(c, messageId, mention, tools);
    case 'carousel':
      return carousel(c, messageId, derived, mention, tools);
  }
}

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
async function textOrImage(messageId: string, text: string, image: string | undefined, mention: Mentions, ctx: ContentTools, meta?: ListMeta): Promise<SendPart> {
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
  ctx: ContentTools,
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
  ctx: ContentTools,
): Promise<SendPart[]> {
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
    const parts: SendPart[] = [];
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

async function buttonOtp(c: Extract<SendKindsContent, { type: 'button-otp' }>, messageId: string, mention: Mentions, ctx: ContentTools): Promise<SendPart[]> {
  if (ctx.list.mode === 'native') {
    const button = { name: 'cta_copy', buttonParamsJson: JSON.stringify({ display_text: c.buttonText, copy_code: c.code }) };
    return [{ messageId, raw: await interactive(c.message, [button], { image: c.image }, mention, ctx) }];
  }
  // The code alone on the last line, so it is easy to select and copy.
  return [await textOrImage(messageId, `${c.message}\n\n${c.buttonText}:\n${c.code}`, c.image, mention, ctx)];
}

const PIX_KEY_LABEL = { CPF: 'CPF', CNPJ: 'CNPJ', PHONE: 'Phone', EMAIL: 'E-mail', EVP: 'Random key (EVP)' } as const;

async function buttonPix(c: Extract<SendKindsContent, { type: 'button-pix' }>, messageId: string, mention: Mentions, ctx: ContentTools): Promise<SendPart[]> {
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
  ctx: ContentTools,
): Promise<SendPart[]> {
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

async function nativeCard(card: CarouselCard, ctx: ContentTools): Promise<proto.Message.IInteractiveMessage> {
  const image = await ctx.uploadImage!(await ctx.image(card.image, 'carousel image'));
  return {
    header: { hasMediaAttachment: true, imageMessage: image },
    body: { text: card.text },
    nativeFlowMessage: { buttons: card.buttons.map(nativeButton), messageParamsJson: '', messageVersion: 1 },
  };
}
