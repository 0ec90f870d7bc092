// The closed set of events the gateway reports, in the Z-API shapes of CONTRACT §5.
// The engine emits them (phones, never @lid; statuses monotonic); the outbox stores and delivers them.
// `instanceId` and `connectedPhone` are filled in by the outbox, so emitters leave them out.

import type { MessageStatus } from './vocabulary.js';

export { MESSAGE_STATUSES, WEBHOOK_KINDS, type MessageStatus, type WebhookKind } from './vocabulary.js';

/**
 * Media fields shared by every media content: the file's signed URL on this gateway (valid before
 * the download from the network has finished: a GET waits for it or fetches it), and why the last
 * download failed, if it did (Z-API's `downloadError`; the URL keeps working and tries again).
 */
interface MediaFields {
  mimeType: string;
  downloadError?: string | null;
}

/** Content keys of a ReceivedCallback: exactly one is present (none for a pure notification). */
export interface ReceivedContent {
  text?: { message: string; title?: string; description?: string; url?: string; thumbnailUrl?: string };
  image?: MediaFields & { imageUrl: string; thumbnailUrl?: string; caption: string; width?: number; height?: number; viewOnce: boolean };
  audio?: MediaFields & { audioUrl: string; ptt: boolean; seconds?: number; viewOnce: boolean };
  /** Videos, round video notes (`ptv`) and GIFs (`gif`: an MP4 played looping and muted). */
  video?: MediaFields & { videoUrl: string; thumbnailUrl?: string; caption: string; seconds?: number; width?: number; height?: number; viewOnce: boolean; gif?: boolean; ptv?: boolean };
  document?: MediaFields & { documentUrl: string; thumbnailUrl?: string; title: string; fileName: string; pageCount?: number; caption?: string };
  sticker?: MediaFields & { stickerUrl: string; isAnimated?: boolean };
  contact?: { displayName: string; vCard: string; phones: string[] };
  /** A contacts-array message (several vCards), one entry per contact. */
  contacts?: { displayName: string; vCard: string; phones: string[] }[];
  location?: { latitude: number; longitude: number; name?: string; address?: string; url?: string };
  listResponseMessage?: { message: string; title: string; selectedRowId: string };
  buttonsResponseMessage?: { buttonId: string; message: string };
  reaction?: { value: string; time: number; reactionBy?: string; referencedMessage: { messageId: string; fromMe: boolean; phone: string; participant: string | null } };
  poll?: { question: string; pollMaxOptions: number; options: { name: string }[] };
  pollVote?: { pollMessageId: string; options: { name: string }[] };
  pinMessage?: { action: 'pin' | 'unpin'; pinDurationInSecs?: number; referencedMessage: { messageId: string; fromMe: boolean; phone: string; participant: string | null } };
  /** An invitation to be an admin of a channel. */
  newsletterAdminInvite?: { newsletterId: string; newsletterName: string; text: string; inviteExpiration: number };
  /** Group and system notifications: GROUP_CREATE, GROUP_PARTICIPANT_ADD, COMMUNITY_LINK_SUB_GROUP, REVOKE, CALL_MISSED_VOICE, … */
  notification?: string;
  /** Phones, subjects, …; CHAT_LABEL_ASSOCIATION carries one object per chat whose labels changed. */
  notificationParameters?: string[] | { phone: string; label: string; assigned: boolean }[];
}

/** An incoming message or notification (sent by this instance when fromMe and notifySentByMe). */
export interface ReceivedCallback extends ReceivedContent {
  type: 'ReceivedCallback';
  messageId: string;
  phone: string;
  fromMe: boolean;
  momment: number;
  status: 'RECEIVED' | 'SENT';
  chatName: string;
  senderName: string;
  participantPhone: string | null;
  isGroup: boolean;
  referenceMessageId?: string;
  /** Extra ids for group notifications (e.g. the pending id of an API-created group). */
  [extra: string]: unknown;
}

/** A contact's presence in a 1:1 chat (Z-API's PresenceChatCallback; the chat-presence webhook). */
export interface PresenceChatCallback {
  type: 'PresenceChatCallback';
  phone: string;
  status: 'AVAILABLE' | 'UNAVAILABLE' | 'COMPOSING' | 'PAUSED' | 'RECORDING';
  lastSeen: number | null;
  momment: number;
}

export interface MessageStatusCallback {
  type: 'MessageStatusCallback';
  /** READ_BY_ME: the account's own phone read messages the instance received. */
  status: MessageStatus | 'READ_BY_ME';
  ids: string[];
  momment: number;
  phone: string;
  isGroup: boolean;
  /** Z-API's device of the reader: 0 = the phone (READ_BY_ME is always the account's own phone). */
  phoneDevice?: number;
}

export interface DeliveryCallback {
  type: 'DeliveryCallback';
  phone: string;
  zaapId: string;
  messageId: string;
  momment: number;
  error?: string;
  /** With `error`: why, machine-readable (MEDIA_INVALID, MEDIA_TOO_LARGE, MEDIA_DOWNLOAD_FAILED, …). */
  errorCode?: string;
}

export interface ConnectedCallback {
  type: 'ConnectedCallback';
  connected: true;
  phone: string;
  momment: number;
}

export interface DisconnectedCallback {
  type: 'DisconnectedCallback';
  disconnected: true;
  error: string;
  momment: number;
}

export type GatewayEvent = ReceivedCallback | MessageStatusCallback | DeliveryCallback | ConnectedCallback | DisconnectedCallback | PresenceChatCallback;

/** Which webhook URL (CONTRACT §5) each event type goes to. */
export const WEBHOOK_KIND_OF = {
  ReceivedCallback: 'received',
  MessageStatusCallback: 'message_status',
  DeliveryCallback: 'delivery',
  ConnectedCallback: 'connected',
  DisconnectedCallback: 'disconnected',
  PresenceChatCallback: 'chat_presence',
} as const satisfies Record<GatewayEvent['type'], string>;

/** Where emitters hand events: committed to the outbox before the promise resolves. */
export interface EventSink {
  /**
   * `onceKeys[i]`, when given, is the network id of what `events[i]` reports (a message id): the
   * instance reports each id once, ever. The key is recorded in the same commit as the event, and an
   * event whose key was recorded before is dropped — a redelivery by the network, a reconnect or a
   * restart replaying the same message never becomes a second webhook.
   */
  emit(instanceId: string, events: readonly GatewayEvent[], onceKeys?: readonly (string | null)[]): Promise<void>;
}

/** What a system notification states; the rest of its ReceivedCallback has neutral values. */
export type NotificationFields = Pick<ReceivedCallback, 'messageId' | 'phone' | 'fromMe' | 'momment' | 'notification' | 'notificationParameters'> & Partial<ReceivedCallback>;

/**
 * A system event on the "received" webhook, the way Z-API reports them: a ReceivedCallback with a
 * `notification` and no content. One shape for every emitter (label sync, channels, groups,
 * calls, the anti-ban pause), so consumers see the same fields whatever reported it.
 */
export function notificationEvent(fields: NotificationFields): ReceivedCallback {
  return {
    type: 'ReceivedCallback',
    status: 'RECEIVED',
    chatName: '',
    senderName: '',
    participantPhone: null,
    isGroup: false,
    isNewsletter: false,
    broadcast: false,
    isEdit: false,
    isStatusReply: false,
    waitingMessage: false,
    fromApi: false,
    ...fields,
  };
}
