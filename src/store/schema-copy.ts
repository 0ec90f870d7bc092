// The schema's tables of the stored copy of the account (010-chats, 014-labels): chats, contacts,
// their recent messages and labels; part of store/schema.ts's DB.
import type { Flag } from './schema-types.js';

/** A conversation as the account sees it (010-chats). */
export interface ChatsTable {
  instance_id: string;
  /** `<digits>`, `<digits>-group` or `<digits>@lid`. */
  chat_id: string;
  jid: string;
  is_group: Flag;
  name: string | null;
  /** ms; 0 while no message is known. */
  last_message_at: number;
  last_message_id: string | null;
  last_message_from_me: Flag;
  /** Received since last read; -1 = marked unread. */
  unread: number;
  archived: Flag;
  /** ms when pinned; 0 = not pinned. */
  pinned_at: number;
  /** ms until which the chat is muted; -1 = for ever; null = not muted. */
  muted_until: number | null;
  ephemeral: number | null;
  updated_at: number;
}

/** A person the instance has seen (010-chats). */
export interface ContactsTable {
  instance_id: string;
  phone: string;
  lid: string | null;
  name: string | null;
  short: string | null;
  notify: string | null;
  vname: string | null;
  img_url: string | null;
  img_fetched_at: number | null;
  blocked: Flag;
  updated_at: number;
}

/** A recent message of a chat, bounded (010-chats). */
export interface ChatMessagesTable {
  instance_id: string;
  chat_id: string;
  message_id: string;
  from_me: Flag;
  sender: string | null;
  at: number;
  type: string;
  body: string | null;
  media_id: string | null;
  status: string;
}

/** A WhatsApp Business label (Z-API's tag), as the account's app-state carries it (014). */
export interface LabelsTable {
  instance_id: string;
  /** WhatsApp's id: "1", "2", … */
  label_id: string;
  name: string;
  /** Colour index 0–19. */
  color: number;
  predefined_id: string | null;
  updated_at: number;
}

/** A label on a chat (014); chat_id is the Z-API phone, jid the network's. */
export interface LabelChatsTable {
  instance_id: string;
  label_id: string;
  chat_id: string;
  jid: string;
  updated_at: number;
}
