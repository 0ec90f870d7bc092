// What a queued message holds: the validated request, normalised, exactly as the sender will send it.

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
  | { type: 'button-list'; message: string; buttons: ListButton[]; image?: string; video?: string };

export interface OutgoingMessage {
  content: OutgoingContent;
  /** Id of the message this one replies to. */
  replyTo?: string;
  mentioned?: string[];
  mentionAll?: boolean;
}

export type OutgoingKind = OutgoingContent['type'];
