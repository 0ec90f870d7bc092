// Z-API's business tag (profile and labels; the catalog is elsewhere): the business profile
// (read anyone's, change the account's own), the category directory, labels (tags) with their
// chats, and chat notes. Everything but reading another business's profile and the static colour table needs an
// instance paired with a WhatsApp Business account (403 otherwise). Input is checked before
// anything is sent; labels are read from the store the app-state sync keeps.
import { errors } from '../errors.js';
import { formatTarget, parsePhone, parseTarget } from '../domain/phone.js';
import type { BusinessCategory, BusinessHours, BusinessPort, BusinessProfile, DayOfWeek, HoursMode } from '../sessions/families/business/business-port.js';
import type { SessionsPort } from '../sessions/port.js';
import type { LabelsRepo } from '../store/labels-repo.js';

/** WhatsApp's label colours by index, as its apps draw them (they look slightly different per platform). */
export const TAG_COLORS: Readonly<Record<string, string>> = Object.freeze({
  0: '#FF9485',
  1: '#64C4FF',
  2: '#FFD429',
  3: '#DFAEF0',
  4: '#99B6C1',
  5: '#55CCB3',
  6: '#FF9DFF',
  7: '#D3A91D',
  8: '#6D7CCE',
  9: '#D7E752',
  10: '#00D0E2',
  11: '#FFC5C7',
  12: '#93CEAC',
  13: '#F74848',
  14: '#00A0F2',
  15: '#83E422',
  16: '#FFAF04',
  17: '#B5EBFF',
  18: '#9BA6FF',
  19: '#9368CF',
});
export const MAX_COLOR = 19;
export const MAX_WEBSITES = 2;
export const MAX_CATEGORIES = 3;
export const MAX_TAG_NAME = 100;
export const MAX_NOTE = 4096;
const DAYS: readonly DayOfWeek[] = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];
const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

interface TagView {
  id: string;
  name: string;
  color: number;
}

export class BusinessService {
  /** The tail of each instance's tag creations (dropped once settled). */
  private readonly creating = new Map<string, Promise<void>>();

  constructor(
    private readonly port: BusinessPort,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly labels: Pick<LabelsRepo, 'list' | 'find' | 'nextId'>,
  ) {}

  /** `phone`'s business profile; without one (or with the account's own number), the account's own. */
  async profile(instanceId: string, rawPhone: string | undefined): Promise<BusinessProfile> {
    const phone = rawPhone?.trim() ? parsePhone(rawPhone) : null;
    this.connected(instanceId);
    // Anyone may read a business's profile; the account's own exists only on a business account.
    if (!phone) this.business(instanceId);
    const profile = await this.port.profile(instanceId, phone);
    if (!profile) {
      if (!phone) throw errors.notBusiness();
      throw errors.notFound(`No business profile: ${phone} is not a WhatsApp Business account`);
    }
    return profile;
  }

  async setDescription(instanceId: string, value: string): Promise<void> {
    this.business(instanceId);
    await this.port.updateProfile(instanceId, { description: value.trim() });
  }

  async setAddress(instanceId: string, value: string): Promise<void> {
    this.business(instanceId);
    await this.port.updateProfile(instanceId, { address: value.trim() });
  }

  async setEmail(instanceId: string, value: string): Promise<void> {
    const email = value.trim();
    if (email && !EMAIL.test(email)) throw errors.invalidInput('value: must be an email address (or empty to remove it)');
    this.business(instanceId);
    await this.port.updateProfile(instanceId, { email });
  }

  async setWebsites(instanceId: string, raw: readonly string[]): Promise<void> {
    const websites = raw.map((w) => w.trim());
    if (websites.length > MAX_WEBSITES) throw errors.invalidInput(`websites: at most ${MAX_WEBSITES}`);
    websites.forEach((w, i) => {
      if (!/^https?:\/\/[^\s/$.?#][^\s]*$/i.test(w)) throw errors.invalidInput(`websites[${i}]: must be an http(s) URL`);
    });
    if (new Set(websites).size !== websites.length) throw errors.invalidInput('websites: every website must be unique');
    this.business(instanceId);
    await this.port.updateProfile(instanceId, { websites });
  }

  /** Categories by id or label, as the directory names them (1 to 3). */
  async setCategories(instanceId: string, raw: readonly string[]): Promise<void> {
    const wanted = raw.map((c) => c.trim());
    if (wanted.length < 1 || wanted.length > MAX_CATEGORIES) throw errors.invalidInput(`categories: 1 to ${MAX_CATEGORIES}`);
    this.business(instanceId);
    const directory = await this.port.categories(instanceId, '');
    const ids = wanted.map((value, i) => {
      const found = directory.find((c) => c.id === value || c.label.toLowerCase() === value.toLowerCase());
      if (!found) throw errors.invalidInput(`categories[${i}]: ${JSON.stringify(value)} is no category id or label (see GET /business/available-categories)`);
      return found.id;
    });
    if (new Set(ids).size !== ids.length) throw errors.invalidInput('categories: every category must be unique');
    await this.port.updateProfile(instanceId, { categories: ids });
  }

  async setHours(instanceId: string, hours: { timezone: string; mode?: HoursMode | undefined; days?: BusinessHours['days'] | undefined }): Promise<void> {
    const timezone = hours.timezone.trim();
    if (!validTimezone(timezone)) throw errors.invalidInput('timezone: must be an IANA time zone such as America/Sao_Paulo');
    const mode = hours.mode ?? 'specificHours';
    const days = hours.days ?? [];
    if (new Set(days.map((d) => d.dayOfWeek)).size !== days.length) throw errors.invalidInput('days: each dayOfWeek at most once');
    days.forEach((d, i) => {
      if (!DAYS.includes(d.dayOfWeek)) throw errors.invalidInput(`days[${i}].dayOfWeek: one of ${DAYS.join(', ')}`);
      if (mode !== 'specificHours') return;
      if (!d.openTime || !d.closeTime || !TIME.test(d.openTime) || !TIME.test(d.closeTime)) throw errors.invalidInput(`days[${i}]: openTime and closeTime as HH:MM`);
      if (d.openTime >= d.closeTime) throw errors.invalidInput(`days[${i}]: openTime must be before closeTime`);
    });
    this.business(instanceId);
    const sorted = [...days].sort((a, b) => DAYS.indexOf(a.dayOfWeek) - DAYS.indexOf(b.dayOfWeek));
    await this.port.updateProfile(instanceId, { hours: { timezone, mode, days: sorted.map((d) => (mode === 'specificHours' ? d : { dayOfWeek: d.dayOfWeek })) } });
  }

  async availableCategories(instanceId: string, query: string | undefined): Promise<BusinessCategory[]> {
    this.business(instanceId);
    return this.port.categories(instanceId, (query ?? '').trim());
  }

  /** The account's labels as the phone last synced them. */
  async tags(instanceId: string): Promise<TagView[]> {
    this.business(instanceId);
    return (await this.labels.list(instanceId)).map((l) => ({ id: l.id, name: l.name, color: l.color }));
  }

  async createTag(instanceId: string, rawName: string, color: number | undefined): Promise<{ id: string }> {
    const name = tagName(rawName);
    this.business(instanceId);
    // One create at a time per instance: two at once would both take the same next id.
    const previous = this.creating.get(instanceId) ?? Promise.resolve();
    const run = previous.then(async () => {
      const id = await this.labels.nextId(instanceId);
      await this.port.editLabel(instanceId, { id, name, color: color ?? 0, deleted: false });
      return { id };
    });
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.creating.set(instanceId, tail);
    void tail.then(() => {
      if (this.creating.get(instanceId) === tail) this.creating.delete(instanceId);
    });
    return run;
  }

  async editTag(instanceId: string, id: string, rawName: string, color: number | undefined): Promise<{ success: true }> {
    const name = tagName(rawName);
    this.business(instanceId);
    const label = await this.tag(instanceId, id);
    await this.port.editLabel(instanceId, { id, name, color: color ?? label.color, deleted: false });
    return { success: true };
  }

  async deleteTag(instanceId: string, id: string): Promise<{ success: true }> {
    this.business(instanceId);
    const label = await this.tag(instanceId, id);
    await this.port.editLabel(instanceId, { id, name: label.name, color: label.color, deleted: true });
    return { success: true };
  }

  /** Puts the tag on the chat (or takes it off); the chat is a phone or `<digits>-group`. */
  async tagChat(instanceId: string, rawPhone: string, id: string, labeled: boolean): Promise<{ value: true }> {
    const chat = formatTarget(parseTarget(rawPhone));
    this.business(instanceId);
    await this.tag(instanceId, id);
    await this.port.labelChat(instanceId, id, chat, labeled);
    return { value: true };
  }

  /** The business's note on a chat (a phone or `<digits>-group`): kept on its own devices only. */
  async setNote(instanceId: string, rawPhone: string, rawNotes: string): Promise<{ success: true }> {
    const chat = formatTarget(parseTarget(rawPhone));
    const notes = rawNotes.trim();
    if (!notes) throw errors.invalidInput('notes: must not be blank');
    if (notes.length > MAX_NOTE) throw errors.invalidInput(`notes: at most ${MAX_NOTE} characters`);
    this.business(instanceId);
    await this.port.setChatNote(instanceId, chat, notes);
    return { success: true };
  }

  private async tag(instanceId: string, id: string): Promise<TagView> {
    const label = await this.labels.find(instanceId, id);
    if (!label) throw errors.notFound(`Tag ${id} not found`);
    return label;
  }

  private business(instanceId: string): void {
    this.connected(instanceId);
    if (!this.port.isBusiness(instanceId)) throw errors.notBusiness();
  }

  private connected(instanceId: string): void {
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
  }
}

function tagName(raw: string): string {
  const name = raw.trim();
  if (!name) throw errors.invalidInput('name: must not be blank');
  if (name.length > MAX_TAG_NAME) throw errors.invalidInput(`name: at most ${MAX_TAG_NAME} characters`);
  return name;
}

function validTimezone(tz: string): boolean {
  if (!tz) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
