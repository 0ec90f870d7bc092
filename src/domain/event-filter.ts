// Event filters (docs/contract.md §5b): which events an instance's webhooks, and each of its broker
// sinks, receive. Z-API's `update-filters` vocabulary (`messageFilters`, `callbackTypeFilters`) plus
// zapgate's chat lists (`includeChats`, `excludeChats`). A filtered event gets no delivery for that
// target; the other targets are unaffected.

export const MESSAGE_FILTERS = [
  'FILTER_FROM_GROUP',
  'FILTER_FROM_PRIVATE_CHAT',
  'FILTER_TEXT_MESSAGE',
  'FILTER_IMAGE_MESSAGE',
  'FILTER_VIDEO_MESSAGE',
  'FILTER_AUDIO_MESSAGE',
  'FILTER_DOCUMENT_MESSAGE',
] as const;
export type MessageFilter = (typeof MESSAGE_FILTERS)[number];

/** Z-API's webhook type filters, by the event type each one silences. */
export const CALLBACK_TYPE_FILTER_OF = {
  FILTER_RECEIVED_CALLBACK: 'ReceivedCallback',
  FILTER_DELIVERY_CALLBACK: 'DeliveryCallback',
  FILTER_CONNECTED_CALLBACK: 'ConnectedCallback',
  FILTER_DISCONNECTED_CALLBACK: 'DisconnectedCallback',
  FILTER_PRESENCE_CHAT_CALLBACK: 'PresenceChatCallback',
  FILTER_MESSAGE_STATUS_CALLBACK: 'MessageStatusCallback',
} as const;
export type CallbackTypeFilter = keyof typeof CALLBACK_TYPE_FILTER_OF;
export const CALLBACK_TYPE_FILTERS = Object.keys(CALLBACK_TYPE_FILTER_OF) as CallbackTypeFilter[];

export interface EventFilter {
  /** ReceivedCallback only (as Z-API): messages of these kinds are left out. */
  messageFilters: MessageFilter[];
  /** Events of these types are left out. */
  callbackTypeFilters: CallbackTypeFilter[];
  /** Not empty: only events of these chats (phones or `<digits>-group` ids) pass, among events that name a chat. */
  includeChats: string[];
  /** Events of these chats are left out (applied after includeChats). */
  excludeChats: string[];
}

export const NO_FILTER: EventFilter = Object.freeze({ messageFilters: [], callbackTypeFilters: [], includeChats: [], excludeChats: [] }) as EventFilter;

/** Where a filter applies: the instance's webhook URLs, or one broker sink (`sink:<kind>`). */
export const WEBHOOKS_TARGET = 'webhooks';

/** The fields of an event a filter looks at (any GatewayEvent has this shape). */
export interface FilterableEvent {
  type: string;
  phone?: string;
  isGroup?: boolean;
  notification?: unknown;
  text?: unknown;
  image?: unknown;
  video?: unknown;
  audio?: unknown;
  document?: unknown;
}

/** Event types whose `phone` is the chat (ConnectedCallback's is the instance's own number). */
const CHAT_EVENTS: ReadonlySet<string> = new Set(['ReceivedCallback', 'MessageStatusCallback', 'DeliveryCallback', 'PresenceChatCallback']);

/** A chat as lists name it: a phone without `+`, spaces or dashes, or a `<digits>-group` id as is. */
export function chatKey(chat: string): string {
  const trimmed = chat.trim();
  if (trimmed.endsWith('-group') || trimmed.includes('@')) return trimmed;
  return trimmed.replace(/[\s+()-]/g, '');
}

function isGroupChat(event: FilterableEvent): boolean {
  return event.isGroup === true || (event.phone?.endsWith('-group') ?? false);
}

function messageFiltered(event: FilterableEvent, filters: readonly MessageFilter[]): boolean {
  for (const f of filters) {
    switch (f) {
      case 'FILTER_FROM_GROUP':
        if (isGroupChat(event)) return true;
        break;
      case 'FILTER_FROM_PRIVATE_CHAT':
        if (!isGroupChat(event)) return true;
        break;
      case 'FILTER_TEXT_MESSAGE':
        if (event.text !== undefined) return true;
        break;
      case 'FILTER_IMAGE_MESSAGE':
        if (event.image !== undefined) return true;
        break;
      case 'FILTER_VIDEO_MESSAGE':
        if (event.video !== undefined) return true;
        break;
      case 'FILTER_AUDIO_MESSAGE':
        if (event.audio !== undefined) return true;
        break;
      case 'FILTER_DOCUMENT_MESSAGE':
        if (event.document !== undefined) return true;
        break;
    }
  }
  return false;
}

/** Whether the event passes the filter (and so gets a delivery for its target). */
export function passesFilter(filter: EventFilter | undefined, event: FilterableEvent): boolean {
  if (filter === undefined) return true;
  if (filter.callbackTypeFilters.some((f) => CALLBACK_TYPE_FILTER_OF[f] === event.type)) return false;
  if (event.type === 'ReceivedCallback' && messageFiltered(event, filter.messageFilters)) return false;
  if (CHAT_EVENTS.has(event.type) && event.phone !== undefined) {
    const chat = chatKey(event.phone);
    if (filter.includeChats.length > 0 && !filter.includeChats.includes(chat)) return false;
    if (filter.excludeChats.includes(chat)) return false;
  }
  return true;
}

/** The stored form, normalised: chats as chatKey, duplicates dropped. */
export function normaliseFilter(input: Partial<EventFilter>): EventFilter {
  const chats = (list: readonly string[] | undefined): string[] => [...new Set((list ?? []).map(chatKey).filter((c) => c !== ''))];
  return {
    messageFilters: [...new Set(input.messageFilters ?? [])],
    callbackTypeFilters: [...new Set(input.callbackTypeFilters ?? [])],
    includeChats: chats(input.includeChats),
    excludeChats: chats(input.excludeChats),
  };
}

/** Reads a stored filter; anything unreadable filters nothing (the API only ever writes valid ones). */
export function parseFilter(json: string): EventFilter {
  try {
    const v = JSON.parse(json) as Partial<EventFilter>;
    return normaliseFilter({
      messageFilters: (v.messageFilters ?? []).filter((f): f is MessageFilter => (MESSAGE_FILTERS as readonly string[]).includes(f)),
      callbackTypeFilters: (v.callbackTypeFilters ?? []).filter((f): f is CallbackTypeFilter => f in CALLBACK_TYPE_FILTER_OF),
      includeChats: v.includeChats ?? [],
      excludeChats: v.excludeChats ?? [],
    });
  } catch {
    return NO_FILTER;
  }
}
