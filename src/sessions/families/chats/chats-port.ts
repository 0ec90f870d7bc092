// What services may ask of the engine about chats and contacts: changing a chat as the phone does
// (an app-state patch every device of the account syncs), and what the network says of a contact
// the stored copy does not know. The Baileys engine implements it in chats-engine.ts.
import { errors } from '../../../errors.js';

/** Z-API's modify-chat actions. */
export type ChatAction = 'read' | 'unread' | 'archive' | 'unarchive' | 'pin' | 'unpin' | 'mute' | 'unmute' | 'clear' | 'delete';

/** The chat's newest known message: archive, read, clear and delete patches name it (WhatsApp's message range). */
export interface LastMessageRef {
  id: string;
  fromMe: boolean;
  /** ms */
  at: number;
}

/** A contact as the network describes it. */
export interface NetworkContact {
  exists: boolean;
  /** Digits (the number the network knows). */
  phone: string;
  lid: string | null;
  imgUrl: string | null;
  about: string | null;
}

/** A name saved in the phone's address book. */
export interface AddressBookName {
  firstName: string;
  lastName: string | null;
}

export interface ChatsPort {
  /** `jid` is the chat's network address. */
  modifyChat(instanceId: string, jid: string, action: ChatAction, last: LastMessageRef | null): Promise<void>;
  contact(instanceId: string, phone: string): Promise<NetworkContact>;
  /**
   * Saves (`name`) or removes (null) a contact in the phone's address book, as an app-state change
   * the phone applies. Saving refuses a number not on WhatsApp (networkRefused). Answers the number
   * as the network knows it (the one saved).
   */
  saveContact(instanceId: string, phone: string, name: AddressBookName | null): Promise<string>;
}

/** No engine: nothing is connected. */
export function offlineChats(): ChatsPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return { modifyChat: refuse, contact: refuse, saveContact: refuse };
}
