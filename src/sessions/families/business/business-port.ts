// What services may ask of the engine for a WhatsApp Business account: whether the account is one,
// business profiles (read anyone's, change its own), the category directory, and labels (create,
// edit, delete, put on a chat or take off). Labels are app-state mutations the account's phone
// syncs; the engine keeps the store's copy from that sync (business-engine.ts). Chat notes are
// app-state mutations too.
import { errors } from '../../../errors.js';

export type DayOfWeek = 'SUNDAY' | 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY';
export type HoursMode = 'specificHours' | 'open24h' | 'appointmentOnly';

/** Z-API's business hours: one mode for the listed days; times "HH:MM" for specificHours. */
export interface BusinessHours {
  timezone: string;
  mode: HoursMode;
  days: { dayOfWeek: DayOfWeek; openTime?: string; closeTime?: string }[];
}

export interface BusinessCategory {
  id: string;
  label: string;
  displayName: string;
}

/** A business profile as Z-API answers it. */
export interface BusinessProfile {
  description: string;
  address: string;
  email: string;
  websites: string[];
  categories: BusinessCategory[];
  businessHours: BusinessHours | null;
  hasCoverPhoto: boolean;
}

/** Only the fields given change; an empty string (or list) removes the field. */
export interface BusinessProfileChange {
  description?: string;
  address?: string;
  email?: string;
  websites?: string[];
  /** Category ids (1 to 3). */
  categories?: string[];
  hours?: BusinessHours;
}

export interface LabelEdit {
  id: string;
  name: string;
  color: number;
  deleted: boolean;
}

export interface BusinessPort {
  /** Whether the connected account is a WhatsApp Business account (its phone's platform at pairing). */
  isBusiness(instanceId: string): boolean;
  /** `phone`'s business profile (the account's own with null); null when that number is no business. */
  profile(instanceId: string, phone: string | null): Promise<BusinessProfile | null>;
  updateProfile(instanceId: string, change: BusinessProfileChange): Promise<void>;
  /** The network's category directory, filtered by `query` (all without one). */
  categories(instanceId: string, query: string): Promise<BusinessCategory[]>;
  /** Creates, edits or deletes a label; the store has the result when this resolves. */
  editLabel(instanceId: string, label: LabelEdit): Promise<void>;
  /** Puts a label on a chat (a phone or `<digits>-group`) or takes it off; stored when this resolves. */
  labelChat(instanceId: string, labelId: string, chatId: string, labeled: boolean): Promise<void>;
  /** Sets the business's note on a chat (kept on the account's own devices; the customer never sees it). */
  setChatNote(instanceId: string, chatId: string, text: string): Promise<void>;
}

/** No engine: nothing is connected. */
export function offlineBusiness(): BusinessPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    isBusiness: () => {
      throw errors.notConnected();
    },
    profile: refuse,
    updateProfile: refuse,
    categories: refuse,
    editLabel: refuse,
    labelChat: refuse,
    setChatNote: refuse,
  };
}
