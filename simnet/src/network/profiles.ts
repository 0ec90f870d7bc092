// What an account shows of itself and whom it keeps out, as the server holds it: about text,
// profile picture, privacy categories with their "all contacts except…" lists, the default
// disappearing timer and the blocklist. Kept beside Account (by a WeakMap) so accounts that never
// touch these cost nothing.
import type { Account } from './accounts.js';

export interface ProfilePicture {
  id: string;
  /** The JPEG the device uploaded, byte for byte. */
  bytes: Buffer;
  /** Where the media host serves it. */
  directPath: string;
}

export interface AccountProfile {
  about: string;
  aboutSetAt: number;
  picture: ProfilePicture | null;
  /** category → value, as `<category name value/>` carries them. */
  readonly privacy: Map<string, string>;
  /** category → phones on its "all contacts except…" list. */
  readonly disallowed: Map<string, Set<string>>;
  /** Seconds of the default disappearing timer for new chats (0 = off). */
  disappearingSeconds: number;
  /** Phones this account blocked: their messages and calls are not delivered to it. */
  readonly blocked: Set<string>;
}

export const DEFAULT_PRIVACY: Readonly<Record<string, string>> = {
  readreceipts: 'all',
  last: 'all',
  online: 'all',
  profile: 'all',
  status: 'all',
  groupadd: 'all',
  calladd: 'all',
  messages: 'all',
};

const profiles = new WeakMap<Account, AccountProfile>();

export function profileOf(acc: Account): AccountProfile {
  let p = profiles.get(acc);
  if (!p) {
    p = {
      about: 'Hey there! I am using WhatsApp.',
      aboutSetAt: 0,
      picture: null,
      privacy: new Map(Object.entries(DEFAULT_PRIVACY)),
      disallowed: new Map(),
      disappearingSeconds: 0,
      blocked: new Set(),
    };
    profiles.set(acc, p);
  }
  return p;
}

/** Whether `owner` lets `viewer` see what `category` guards (simnet has no address books: "contacts" lets no one but the owner). */
export function visibleTo(owner: Account, viewer: Account | undefined, category: string): boolean {
  if (viewer === owner) return true;
  const p = profileOf(owner);
  const value = p.privacy.get(category) ?? 'all';
  if (value === 'all') return true;
  if (value === 'contact_blacklist') return !!viewer && !p.disallowed.get(category)?.has(viewer.phone);
  return false;
}

/** Whether `recipient` blocked `sender` (the server then delivers nothing from sender to recipient). */
export function hasBlocked(recipient: Account, sender: Account): boolean {
  return profiles.get(recipient)?.blocked.has(sender.phone) ?? false;
}
