// What a queued message holds: the validated request, normalised, exactly as the sender will send it.
import { eventsOrdersTypedLength, type EventsOrdersContent } from './events-orders.js';

export interface ListOption {
  id: string;
  title: string;
  description: string;
}

export interface ListButton {
  id: string;
  label: string;
}

export type OutgoingContent =
  | { type: 'text'; message: string; editMessageId?: string }
  | { type: 'image'; image: string; caption?: string; viewOnce?: boolean }
  | { type: 'sticker'; sticker: string }
  | { type: 'location'; latitude: number; longitude: number; title?: string; address?: string }
  | { type: 'option-list'; message: string; title: string; buttonLabel: string; options: ListOption[] }
  | { type: 'button-list'; message: string; buttons: ListButton[]; image?: string; video?: string }
  | SendKindsContent
  | EventsOrdersContent
  | MediaOutgoingContent;

// Media sends (send-audio, send-video, send-ptv, send-gif, send-document). Media references are
// the request's URL or data URI; the sender converts them at send time.

export type MediaOutgoingContent =
  /** A voice note (Ogg/Opus, with its length and waveform unless `waveform` is false). */
  | { type: 'audio'; audio: string; viewOnce?: boolean; waveform?: boolean }
  | { type: 'video'; video: string; caption?: string; viewOnce?: boolean }
  /** A round video note. */
  | { type: 'ptv'; video: string }
  /** An MP4 (or GIF) shown looping, without sound. */
  | { type: 'gif'; gif: string; caption?: string }
  /** Any file, byte for byte; the mimetype follows `extension`. */
  | { type: 'document'; document: string; extension: string; fileName?: string; caption?: string };

export interface OutgoingMessage {
  content: OutgoingContent;
  /** Id of the message this one replies to. */
  replyTo?: string;
  /** Id of the contact's status post this one replies to (the contact is the message's phone). */
  statusReplyTo?: string;
  mentioned?: string[];
  mentionAll?: boolean;
  /** Groups of the same community mentioned in a text (Z-API's groupMentioned): `<digits>-group` and the name shown. */
  groupMentions?: { groupId: string; subject: string }[];
}

export type OutgoingKind = OutgoingContent['type'];

// ---- send-kinds: link previews, contacts, polls, reactions, forwards, pins, interactive buttons ----

export interface SharedContact {
  name: string;
  /** Digits with country code; the first one is the contact's WhatsApp number (`waid`). */
  phones: string[];
  businessDescription?: string;
}

type ActionType = 'CALL' | 'URL' | 'REPLY';

export interface ActionButton {
  id: string;
  type: ActionType;
  label: string;
  /** CALL: digits to call. */
  phone?: string;
  /** URL: http(s) address to open. */
  url?: string;
}

export interface CarouselCard {
  text: string;
  image: string;
  buttons: ActionButton[];
}

/** Z-API's `pinMessageDuration` values, in seconds (what WhatsApp's pin carries). */
export const PIN_SECONDS = { '24_hours': 86_400, '7_days': 604_800, '30_days': 2_592_000 } as const;

type PixKeyType = 'CPF' | 'CNPJ' | 'PHONE' | 'EMAIL' | 'EVP';
type LinkType = 'SMALL' | 'MEDIUM' | 'LARGE';

export type SendKindsContent =
  | { type: 'link'; message: string; linkUrl: string; title: string; linkDescription: string; image?: string; linkType: LinkType }
  | { type: 'contacts'; contacts: SharedContact[] }
  | { type: 'poll'; message: string; options: string[]; maxOptions: number }
  /** An empty `reaction` removes ours. */
  | { type: 'reaction'; targetId: string; reaction: string }
  | { type: 'forward'; sourceId: string; sourcePhone: string }
  | { type: 'pin'; targetId: string; action: 'pin' | 'unpin'; durationSeconds: number }
  | { type: 'button-actions'; message: string; title?: string; footer?: string; image?: string; buttons: ActionButton[] }
  | { type: 'button-otp'; message: string; code: string; buttonText: string; image?: string }
  | { type: 'button-pix'; pixKey: string; keyType: PixKeyType; merchantName: string }
  | { type: 'carousel'; message: string; cards: CarouselCard[] }
  /** An invitation to be an admin of a channel (the invite itself is made on the network first). */
  | { type: 'newsletter-admin-invite'; newsletterId: string; newsletterName: string; caption: string; inviteExpiration: number }
  /** A product of a business's catalog (read from the network when queued; `image` is its first picture). */
  | {
      type: 'product';
      catalogPhone: string;
      productId: string;
      title: string;
      description: string;
      currency: string;
      /** Thousandths of the currency unit, as WhatsApp's product snapshot carries it. */
      priceAmount1000: number;
      retailerId?: string;
      url?: string;
      image: string;
      imageCount: number;
    };

/** Characters a human would type for the content (anti-ban "typing…" time). */
export function sendKindsTypedLength(c: SendKindsContent | EventsOrdersContent): number {
  switch (c.type) {
    case 'link':
      return c.message.length;
    case 'contacts':
      return 0;
    case 'poll':
      return c.message.length + c.options.reduce((n, o) => n + o.length, 0);
    case 'reaction':
    case 'forward':
    case 'pin':
      return 0;
    case 'button-actions':
      return c.message.length + (c.title?.length ?? 0) + (c.footer?.length ?? 0) + c.buttons.reduce((n, b) => n + b.label.length, 0);
    case 'button-otp':
      return c.message.length;
    case 'button-pix':
      return c.merchantName.length;
    case 'carousel':
      return c.message.length + c.cards.reduce((n, k) => n + k.text.length, 0);
    case 'newsletter-admin-invite':
      return c.caption.length;
    case 'product':
      return 0;
    default:
      return eventsOrdersTypedLength(c);
  }
}
