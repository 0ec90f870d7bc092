// xmlns=w:biz: business profiles. `get <business_profile><profile jid/>…` answers each named account
// that is a business (as Baileys' getBusinessProfile reads it: address, description, website…, email,
// categories, business_hours); a personal account is simply absent from the answer. `set
// <business_profile mutation_type=delta>` changes only the fields it carries, and only from the
// business's own devices (403 otherwise). `get <categories query/>` searches the category directory
// (simnet's model of the directory the Business app offers).
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { businessProfileOf, categoryById, MAX_CATEGORIES, MAX_WEBSITES, searchCategories, type BusinessHoursDay, type BusinessProfile } from '../network/business.js';
import { digitsOf, parseJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';

const DAYS = new Set(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']);
const MODES = new Set(['specific_hours', 'open_24h', 'appointment_only']);

/** Handles a w:biz iq; false when it is not one this module models (the caller answers it). */
export function handleBusinessIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): boolean {
  const query = child(node, 'business_profile');
  if (node.attrs.type === 'get' && query) {
    const profiles = childNodes(query)
      .filter((p) => p.tag === 'profile')
      .map((p) => ({ jid: p.attrs.jid ?? '', acc: accountOf(net, p.attrs.jid) }))
      .filter((p): p is { jid: string; acc: Account } => !!p.acc?.business)
      .map((p) => profileNode(p.jid, businessProfileOf(p.acc)));
    net.counters.inc('biz.profile.get');
    conn.sendNode(iqResult(node, [{ tag: 'business_profile', attrs: {}, content: profiles }]));
    return true;
  }
  if (node.attrs.type === 'set' && query) {
    const acc = conn.device?.account;
    if (!acc?.business) {
      conn.sendNode(iqError(node, 403, 'not-a-business'));
      return true;
    }
    const problem = applyDelta(businessProfileOf(acc), query);
    if (problem) {
      conn.sendNode(iqError(node, 400, problem));
      return true;
    }
    net.counters.inc('biz.profile.set');
    conn.sendNode(iqResult(node, [{ tag: 'business_profile', attrs: {} }]));
    return true;
  }
  const categories = child(node, 'categories');
  if (node.attrs.type === 'get' && categories) {
    const found = searchCategories(categories.attrs.query ?? '');
    conn.sendNode(iqResult(node, [{ tag: 'categories', attrs: {}, content: found.map((c) => ({ tag: 'category', attrs: { id: c.id, label: c.label }, content: c.displayName })) }]));
    return true;
  }
  return false;
}

function accountOf(net: SimnetContext, jid: string | undefined): Account | undefined {
  const parsed = parseJid(jid);
  if (!parsed) return undefined;
  return parsed.server === 'lid' ? net.registry.byLidUser(parsed.user) : net.registry.byNumber(digitsOf(parsed.user));
}

function text(name: string, value: string): BinaryNode[] {
  return value ? [{ tag: name, attrs: {}, content: value }] : [];
}

function profileNode(jid: string, p: BusinessProfile): BinaryNode {
  const content: BinaryNode[] = [
    ...text('address', p.address),
    ...text('description', p.description),
    ...p.websites.flatMap((w) => text('website', w)),
    ...text('email', p.email),
    {
      tag: 'categories',
      attrs: {},
      content: p.categories.map((id) => ({ tag: 'category', attrs: { id }, content: categoryById(id)?.displayName ?? id })),
    },
  ];
  if (p.hours) {
    content.push({
      tag: 'business_hours',
      attrs: { timezone: p.hours.timezone },
      content: p.hours.days.map((d) => ({
        tag: 'business_hours_config',
        attrs: { day_of_week: d.day, mode: d.mode, ...(d.mode === 'specific_hours' ? { open_time: String(d.openMinutes ?? 0), close_time: String(d.closeMinutes ?? 0) } : {}) },
      })),
    });
  }
  return { tag: 'profile', attrs: { jid }, content };
}

const textOf = (n: BinaryNode): string => bytesOf(n)?.toString('utf8').trim() ?? '';

/** Applies the fields the delta carries (an empty value removes one); the reason it is refused, else null. */
function applyDelta(p: BusinessProfile, query: BinaryNode): string | null {
  const nodes = childNodes(query);
  const next: BusinessProfile = { ...p };
  const websites = nodes.filter((n) => n.tag === 'website').map(textOf);
  if (websites.length) {
    // One empty <website/> clears the list.
    const list = websites.filter((w) => w);
    if (list.length > MAX_WEBSITES) return `at most ${MAX_WEBSITES} websites`;
    if (list.some((w) => !/^https?:\/\/[^\s]+$/i.test(w))) return 'bad website';
    next.websites = list;
  }
  for (const n of nodes) {
    if (n.tag === 'description') next.description = textOf(n);
    else if (n.tag === 'address') next.address = textOf(n);
    else if (n.tag === 'email') {
      const email = textOf(n);
      if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return 'bad email';
      next.email = email;
    } else if (n.tag === 'categories') {
      const ids = childNodes(n).filter((c) => c.tag === 'category').map((c) => c.attrs.id ?? '');
      if (ids.length < 1 || ids.length > MAX_CATEGORIES) return `1 to ${MAX_CATEGORIES} categories`;
      if (ids.some((id) => !categoryById(id))) return 'unknown category';
      next.categories = [...new Set(ids)];
    } else if (n.tag === 'business_hours') {
      const days: BusinessHoursDay[] = [];
      for (const c of childNodes(n)) {
        const { day_of_week: day = '', mode = '', open_time: open, close_time: close } = c.attrs;
        if (c.tag !== 'business_hours_config' || !DAYS.has(day) || !MODES.has(mode)) return 'bad business hours';
        if (mode !== 'specific_hours') {
          days.push({ day, mode });
          continue;
        }
        const openMinutes = Number(open);
        const closeMinutes = Number(close);
        if (!Number.isInteger(openMinutes) || !Number.isInteger(closeMinutes) || openMinutes < 0 || closeMinutes > 1440 || openMinutes >= closeMinutes) return 'bad business hours';
        days.push({ day, mode, openMinutes, closeMinutes });
      }
      const timezone = n.attrs.timezone ?? '';
      if (!timezone) return 'business hours need a timezone';
      next.hours = { timezone, days };
    }
  }
  Object.assign(p, next);
  return null;
}
