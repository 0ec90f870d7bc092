// What the network keeps of a WhatsApp Business account's public profile (description, address,
// email, websites, categories, hours) and the category directory a business picks from. Anyone may
// read a business's profile; only the business's own devices may change it (handlers/business-profile.ts).
import type { Account } from './accounts.js';

export interface BusinessCategory {
  /** The network's id of the category (a Facebook page-category id). */
  id: string;
  /** Stable machine name (what Z-API calls `label`). */
  label: string;
  /** The name shown to people. */
  displayName: string;
}

export interface BusinessHoursDay {
  /** sun, mon, tue, wed, thu, fri, sat (WhatsApp's day_of_week) */
  day: string;
  /** specific_hours, open_24h or appointment_only */
  mode: string;
  /** Minutes since midnight, specific_hours only. */
  openMinutes?: number;
  closeMinutes?: number;
}

export interface BusinessProfile {
  description: string;
  address: string;
  email: string;
  websites: string[];
  /** Category ids, in the order chosen. */
  categories: string[];
  hours: { timezone: string; days: BusinessHoursDay[] } | null;
}

/** Websites a business may list (WhatsApp's own limit). */
export const MAX_WEBSITES = 2;
/** Categories a business may pick: at least one, at most three. */
export const MAX_CATEGORIES = 3;

/** The directory businesses pick categories from (a sample of WhatsApp's; ids as the network names them). */
export const CATEGORIES: readonly BusinessCategory[] = [
  { id: '629412378414563', label: 'OTHER_COMPANIES', displayName: 'Other business' },
  { id: '273819889375819', label: 'RESTAURANT', displayName: 'Restaurant' },
  { id: '2214', label: 'FINANCE', displayName: 'Finance' },
  { id: '200600219953504', label: 'SHOPPING_RETAIL', displayName: 'Shopping & retail' },
  { id: '180164648685982', label: 'BEAUTY_COSMETIC_PERSONAL_CARE', displayName: 'Beauty, cosmetic & personal care' },
  { id: '1757592557789532', label: 'EDUCATION', displayName: 'Education' },
  { id: '2500', label: 'MEDICAL_HEALTH', displayName: 'Medical & health' },
  { id: '184405378265823', label: 'AUTOMOTIVE_SERVICE', displayName: 'Automotive service' },
  { id: '192614304101075', label: 'TRAVEL_TRANSPORTATION', displayName: 'Travel & transportation' },
  { id: '1706730532910578', label: 'PROFESSIONAL_SERVICES', displayName: 'Professional services' },
];

const profiles = new WeakMap<Account, BusinessProfile>();

/** The business's profile (a new business has an empty one, in "Other business"). */
export function businessProfileOf(acc: Account): BusinessProfile {
  let p = profiles.get(acc);
  if (!p) profiles.set(acc, (p = { description: '', address: '', email: '', websites: [], categories: [CATEGORIES[0]!.id], hours: null }));
  return p;
}

export function categoryById(id: string): BusinessCategory | undefined {
  return CATEGORIES.find((c) => c.id === id);
}

/** Categories whose label or display name contains `query` (case-insensitive); all without one. */
export function searchCategories(query: string): BusinessCategory[] {
  const q = query.trim().toLowerCase();
  if (!q) return [...CATEGORIES];
  return CATEGORIES.filter((c) => c.label.toLowerCase().includes(q) || c.displayName.toLowerCase().includes(q));
}
