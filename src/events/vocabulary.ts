// The words the gateway's events are written in, each listed once: the store's columns, the
// payload schemas, the webhook settings and the emitters all take them from here.

/** How far a message the instance sent has got, in the only order it may move (monotonic). */
export const MESSAGE_STATUSES = ['SENT', 'RECEIVED', 'READ', 'PLAYED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The webhook URLs an instance has, one per kind of event (docs/contract.md §5). */
export const WEBHOOK_KINDS = ['received', 'message_status', 'delivery', 'connected', 'disconnected', 'chat_presence'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
