// The closed set of events the gateway reports, in the Z-API shapes of docs/contract.md §5.
// The engine emits them (phones with their LIDs beside them; statuses monotonic); the outbox stores and delivers them.
// Each type is derived from its payload schema (events/schemas.ts), the one definition of the
// payload; `instanceId` and `connectedPhone` are filled in by the outbox, so emitters leave them out.
import type { Static, TSchema } from '@sinclair/typebox';
import type {
  ConnectedCallbackSchema,
  DeliveryCallbackSchema,
  DisconnectedCallbackSchema,
  MessageStatusCallbackSchema,
  PresenceChatCallbackSchema,
  ReceivedCallbackSchema,
  ReceivedContentKey,
} from './schemas.js';
import type { WebhookKind } from './vocabulary.js';

export { MESSAGE_STATUSES, WEBHOOK_KINDS, type MessageStatus, type WebhookKind } from './vocabulary.js';

/** The body an emitter builds: the delivered payload without what the outbox adds. */
type Emitted<S extends TSchema> = Omit<Static<S>, 'instanceId' | 'connectedPhone'>;

/** An incoming message or notification (sent by this instance when fromMe and notifySentByMe). */
export type ReceivedCallback = Emitted<typeof ReceivedCallbackSchema>;
/** Content keys of a ReceivedCallback: exactly one is present (none for a pure notification). */
export type ReceivedContent = Pick<ReceivedCallback, ReceivedContentKey>;
/** A contact's presence in a 1:1 chat (Z-API's PresenceChatCallback; the chat-presence webhook). */
export type PresenceChatCallback = Emitted<typeof PresenceChatCallbackSchema>;
/** How far messages the instance sent got; READ_BY_ME: the account's own phone read messages the instance received. */
export type MessageStatusCallback = Emitted<typeof MessageStatusCallbackSchema>;
/** A queued message left for the network, or failed to (`errorCode`: MEDIA_INVALID, MEDIA_TOO_LARGE, …). */
export type DeliveryCallback = Emitted<typeof DeliveryCallbackSchema>;
export type ConnectedCallback = Emitted<typeof ConnectedCallbackSchema>;
export type DisconnectedCallback = Emitted<typeof DisconnectedCallbackSchema>;

export type GatewayEvent = ReceivedCallback | MessageStatusCallback | DeliveryCallback | ConnectedCallback | DisconnectedCallback | PresenceChatCallback;

/** Which webhook URL (docs/contract.md §5) each event type goes to. */
export const WEBHOOK_KIND_OF = {
  ReceivedCallback: 'received',
  MessageStatusCallback: 'message_status',
  DeliveryCallback: 'delivery',
  ConnectedCallback: 'connected',
  DisconnectedCallback: 'disconnected',
  PresenceChatCallback: 'chat_presence',
} as const satisfies Record<GatewayEvent['type'], WebhookKind>;

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
