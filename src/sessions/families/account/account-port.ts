// What services may ask of the engine about the account itself, as the phone sees it: profile,
// privacy, blocking, the connected device, and the per-instance reactions (auto-read, call
// rejection). Kept beside SessionsPort rather than inside it so the group and message engine code
// stays as it is; the Baileys engine implements it in account-engine.ts.
import { errors } from '../../../errors.js';

/** WhatsApp's privacy categories that take a who-can value (Baileys' privacyQuery names). */
export type PrivacyCategory = 'last' | 'online' | 'profile' | 'status' | 'readreceipts' | 'groupadd';
/** The values the network takes; which one a category accepts is checked by the service. */
export type PrivacyValue = 'all' | 'contacts' | 'contact_blacklist' | 'none' | 'match_last_seen';
/** Categories whose "all contacts except…" list can be read and changed. */
export type BlacklistCategory = 'last' | 'profile' | 'status' | 'groupadd';

export interface BlacklistChange {
  action: 'add' | 'remove';
  /** Digits with country code. */
  phone: string;
}

/** The connected phone, as Z-API's GET /device reports it. */
export interface DeviceInfo {
  phone: string;
  imgUrl: string | null;
  about: string;
  name: string;
  /** The phone's platform as the network named it at pairing ("android", "iphone", "smba", "smbi"). */
  originalDevice: string;
  /** This linked device's number on the account. */
  sessionId: number;
  isBusiness: boolean;
}

/** Per-instance reactions to what arrives (stored in `instances`, migration 009). */
export interface AccountReactionSettings {
  autoReadMessage: boolean;
  autoReadStatus: boolean;
  callRejectAuto: boolean;
  callRejectMessage: string | null;
}

export interface AccountPort {
  setProfileName(instanceId: string, name: string): Promise<void>;
  setProfileDescription(instanceId: string, about: string): Promise<void>;
  /** `ref` is an https URL or a data URI: fetched under the address guard, decoded within the pixel limit. */
  setProfilePicture(instanceId: string, ref: string): Promise<void>;
  device(instanceId: string): Promise<DeviceInfo>;
  /** A contact's (or the account's own) profile picture URL; null when none is visible. */
  profilePictureUrl(instanceId: string, phone: string): Promise<string | null>;
  setBlocked(instanceId: string, phone: string, blocked: boolean): Promise<void>;
  setPrivacy(instanceId: string, category: PrivacyCategory, value: PrivacyValue, blacklist: readonly BlacklistChange[]): Promise<void>;
  /** A chat's disappearing-messages timer, in seconds (0 = off); `target` is digits, `<digits>-group` or `<digits>@lid`. */
  setChatExpiration(instanceId: string, target: string, seconds: number): Promise<void>;
  /** Default disappearing-messages timer for new chats, in seconds (0 = off). */
  setDefaultDisappearing(instanceId: string, seconds: number): Promise<void>;
  /** Phones on the "all contacts except…" list of `category`. */
  disallowedContacts(instanceId: string, category: BlacklistCategory): Promise<string[]>;
  /** A setting changed: the running session reacts accordingly from the next message or call. */
  applyReactions(instanceId: string, settings: AccountReactionSettings): void;
}

/** No engine: nothing is connected, every network operation is refused honestly. */
export function offlineAccount(): AccountPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    setProfileName: refuse,
    setProfileDescription: refuse,
    setProfilePicture: refuse,
    device: refuse,
    profilePictureUrl: refuse,
    setBlocked: refuse,
    setPrivacy: refuse,
    setDefaultDisappearing: refuse,
    setChatExpiration: refuse,
    disallowedContacts: refuse,
    applyReactions: () => undefined,
  };
}
