// The closed set of events the gateway reports, in the Z-API shapes of CONTRACT §5.
// The engine emits them (phones, never @lid; statuses monotonic); the outbox stores and delivers them.
// `instanceId` and `connectedPhone` are filled in by the outbox, so emitters leave them out.

export type MessageStatus = 'SENT' | 'RECEIVED' | 'READ' | 'PLAYED';

/** Content keys of a ReceivedCallback: exactly one is present. */
export interface ReceivedContent {
  text?: { message: string };
  image?: { imageUrl?: string; caption: string; mimeType: string };
  location?: { latitude: number; longitude: number; name?: string; address?: string };
  sticker?: { stickerUrl?: string; mimeType: string };
  listResponseMessage?: { message: string; title: string; selectedRowId: string };
  buttonsResponseMessage?: { buttonId: string; message: string };
  reaction?: { value: string; time: number; referencedMessage: { messageId: string; fromMe: boolean; phone: string; participant: string | null } };
  /** Group and system notifications: GROUP_CREATE, GROUP_PARTICIPANT_ADD, REVOKE, … */
  notification?: string;
  notificationParameters?: string[];
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

export interface MessageStatusCallback {
  type: 'MessageStatusCallback';
  status: MessageStatus;
  ids: string[];
  momment: number;
  phone: string;
  isGroup: boolean;
}

export interface DeliveryCallback {
  type: 'DeliveryCallback';
  phone: string;
  zaapId: string;
  messageId: string;
  momment: number;
  error?: string;
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

export type GatewayEvent = ReceivedCallback | MessageStatusCallback | DeliveryCallback | ConnectedCallback | DisconnectedCallback;

/** Which webhook URL (CONTRACT §5) each event type goes to. */
export const WEBHOOK_KIND_OF = {
  ReceivedCallback: 'received',
  MessageStatusCallback: 'message_status',
  DeliveryCallback: 'delivery',
  ConnectedCallback: 'connected',
  DisconnectedCallback: 'disconnected',
} as const satisfies Record<GatewayEvent['type'], string>;

/** Where emitters hand events: committed to the outbox before the promise resolves. */
export interface EventSink {
  emit(instanceId: string, events: readonly GatewayEvent[]): Promise<void>;
}
