// Privacy settings in Z-API's words (ALL, CONTACTS, CONTACT_BLACKLIST, …) mapped once onto the
// network's categories and values; a blacklist change is only valid with CONTACT_BLACKLIST.
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { AccountPort, BlacklistCategory, BlacklistChange, PrivacyCategory, PrivacyValue } from '../sessions/families/account/account-port.js';

/** Z-API's endpoints that take `visualizationType` (or `type` for group-add), by their path word. */
export type VisibilitySetting = 'last-seen' | 'photo-visualization' | 'description' | 'group-add' | 'online';
type VisibilityType = 'ALL' | 'NONE' | 'CONTACTS' | 'CONTACT_BLACKLIST' | 'SAME_LAST_SEEN';
type DisallowedType = 'lastSeen' | 'photo' | 'description' | 'groupAdd';
type MessagesDuration = 'days90' | 'days7' | 'hours24' | 'disable';

const CATEGORY: Record<VisibilitySetting, PrivacyCategory> = {
  'last-seen': 'last',
  'photo-visualization': 'profile',
  description: 'status',
  'group-add': 'groupadd',
  online: 'online',
};

/** Which Z-API types each setting accepts (as its page lists them). */
const ALLOWED: Record<VisibilitySetting, readonly VisibilityType[]> = {
  'last-seen': ['ALL', 'NONE', 'CONTACTS', 'CONTACT_BLACKLIST'],
  'photo-visualization': ['ALL', 'NONE', 'CONTACTS', 'CONTACT_BLACKLIST'],
  description: ['ALL', 'NONE', 'CONTACTS', 'CONTACT_BLACKLIST'],
  'group-add': ['ALL', 'CONTACTS', 'CONTACT_BLACKLIST'],
  online: ['ALL', 'SAME_LAST_SEEN'],
};

const VALUE: Record<VisibilityType, PrivacyValue> = {
  ALL: 'all',
  NONE: 'none',
  CONTACTS: 'contacts',
  CONTACT_BLACKLIST: 'contact_blacklist',
  SAME_LAST_SEEN: 'match_last_seen',
};

const DISALLOWED: Record<DisallowedType, BlacklistCategory> = { lastSeen: 'last', photo: 'profile', description: 'status', groupAdd: 'groupadd' };

const DURATION_SECONDS: Record<MessagesDuration, number> = { days90: 90 * 86_400, days7: 7 * 86_400, hours24: 86_400, disable: 0 };

export class PrivacyService {
  constructor(private readonly account: AccountPort) {}

  async setVisibility(
    instanceId: string,
    setting: VisibilitySetting,
    type: VisibilityType,
    blacklist: readonly { action: 'add' | 'remove'; phone: string }[] = [],
  ): Promise<void> {
    const field = setting === 'group-add' ? 'type' : 'visualizationType';
    if (!ALLOWED[setting].includes(type)) throw errors.invalidInput(`${field}: must be one of ${ALLOWED[setting].join(', ')}`);
    if (blacklist.length > 0 && type !== 'CONTACT_BLACKLIST') {
      throw errors.invalidInput(`contactsBlacklist: only with ${field} CONTACT_BLACKLIST`);
    }
    const changes: BlacklistChange[] = blacklist.map((c, i) => ({ action: c.action, phone: parsePhone(c.phone, `contactsBlacklist[${i}].phone`) }));
    await this.account.setPrivacy(instanceId, CATEGORY[setting], VALUE[type], changes);
  }

  setReadReceipts(instanceId: string, value: 'enable' | 'disable'): Promise<void> {
    return this.account.setPrivacy(instanceId, 'readreceipts', value === 'enable' ? 'all' : 'none', []);
  }

  setMessagesDuration(instanceId: string, value: MessagesDuration): Promise<void> {
    return this.account.setDefaultDisappearing(instanceId, DURATION_SECONDS[value]);
  }

  async disallowedContacts(instanceId: string, type: DisallowedType): Promise<{ disallowedContacts: string[] }> {
    return { disallowedContacts: await this.account.disallowedContacts(instanceId, DISALLOWED[type]) };
  }
}
