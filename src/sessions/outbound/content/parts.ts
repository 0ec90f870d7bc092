// What every content family builds and receives: the parts a queued message becomes (each with
// the id it carries on the network), mentions, and the context the builders read.
import { createHash } from 'node:crypto';
import type { AnyMessageContent, WAMessage, WAMessageKey, proto } from 'baileys';
import type { ListMode } from '../../../domain/instance.js';
import type { ListMeta, ListSettings } from '../lists.js';
import type { MediaPipeline } from '../media.js';

/** One part to send. `raw` parts are relayed as built (no high-level Baileys API: native lists and buttons, polls with mentions); `poll` adds the node WhatsApp wants on poll creations. */
export type SendPart =
  | { messageId: string; content: AnyMessageContent; meta?: ListMeta }
  | { messageId: string; raw: proto.IMessage; meta?: ListMeta; poll?: boolean };

export type ImageContent = { image: Buffer; mimetype: string } & Record<string, unknown>;

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
  /** This instance's own jids (votes and event answers are signed with one of them). */
  me?: { pn: string; lid: string | null } | null;
  /** The gateway's clock (votes and event answers carry the time they were cast). */
  now(): number;
}

/**
 * What the link, interactive, product and action builders need besides the message. Media goes
 * through these two functions only (the dispatcher adapts them to the media pipeline), so those
 * builders never fetch or decode media.
 */
export interface ContentTools {
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
  /** This instance's own jids, once logged in. */
  me: { pn: string; lid: string | null } | null;
}

export interface Mentions {
  mentions?: string[];
  mentionAll?: boolean;
}

/** What each family builder receives with its content. */
export interface ContentInput {
  /** The id the main part carries (fixed at enqueue). */
  messageId: string;
  /** The id of an extra part (a header before a poll, a card): derived, so a resend repeats it. */
  derived(part: string): string;
  mention: Mentions;
  ctx: OutgoingContext;
  tools: ContentTools;
}

/** Baileys would fetch any URL in a text to build a preview, outside the address guard: never. */
export const NO_PREVIEW = { linkPreview: null };

/** Deterministic id of an extra part (e.g. the header image before a poll). */
export function derivedMessageId(messageId: string, part: string): string {
  return '3EB0' + createHash('sha256').update(`${messageId}:${part}`).digest('hex').slice(0, 18).toUpperCase();
}

/** contextInfo carrying mentions for messages built as protobuf (Baileys' own path misplaces them on polls). */
export function mentionContext(m: Mentions): proto.IContextInfo | undefined {
  if (!m.mentions?.length && !m.mentionAll) return undefined;
  return { ...(m.mentions?.length ? { mentionedJid: m.mentions } : {}), ...(m.mentionAll ? { nonJidMentions: 1 } : {}) };
}

/** Mentions on a message built as protobuf (native lists and buttons). */
export function withMentions(mention: Mentions): { contextInfo?: proto.IContextInfo } {
  const contextInfo = mentionContext(mention);
  return contextInfo ? { contextInfo } : {};
}
