// The account's own settings as the server keeps them: about text (xmlns=status), profile picture
// (w:profile:picture, set and get), privacy categories and their lists (privacy), the blocklist
// (blocklist) and the default disappearing timer (disappearing_mode). What contacts see follows
// from it: pictures and about obey privacy, a blocker gets nothing from whom it blocked.
import { randomBytes } from 'node:crypto';
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { digitsOf, parseJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import { profileOf, visibleTo } from '../network/profiles.js';

const CATEGORIES = new Set(['readreceipts', 'last', 'online', 'profile', 'status', 'groupadd', 'calladd', 'messages']);
const VALUES = new Set(['all', 'contacts', 'contact_blacklist', 'none', 'match_last_seen', 'known']);

/** The account a jid names (phone or LID), if it exists. */
function accountOf(net: SimnetContext, jid: string | undefined): Account | undefined {
  const p = parseJid(jid);
  return p ? net.registry.byUser(p.user, p.server) : undefined;
}

/** xmlns=status, type=set: `<status>about</status>`. */
export function handleStatusIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const acc = conn.device?.account;
  if (!acc || node.attrs.type !== 'set') return void conn.sendNode(iqResult(node));
  const p = profileOf(acc);
  p.about = bytesOf(child(node, 'status'))?.toString('utf8') ?? '';
  p.aboutSetAt = Number(net.nowSec());
  net.counters.inc('profile.about');
  conn.sendNode(iqResult(node));
}

/** The about text as a usync `status` query shows it to `viewer` (privacy `status`). */
export function aboutFor(owner: Account, viewer: Account | undefined): { text: string; t: number } | null {
  if (!visibleTo(owner, viewer, 'status')) return null;
  const p = profileOf(owner);
  return { text: p.about, t: p.aboutSetAt };
}

/** w:profile:picture for accounts (group pictures stay with the group handlers). Returns false when not ours. */
export function handleProfilePictureIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): boolean {
  const acc = conn.device?.account;
  const target = node.attrs.target;
  if (target?.endsWith('@g.us')) return false;
  if (node.attrs.type === 'set') {
    if (!acc || (target && accountOf(net, target) !== acc)) {
      conn.sendNode(iqError(node, 401, 'not-authorized'));
      return true;
    }
    const bytes = bytesOf(child(node, 'picture'));
    const p = profileOf(acc);
    if (!bytes) {
      // No picture node: remove the picture.
      p.picture = null;
    } else {
      const id = String(net.now()) + randomBytes(2).toString('hex');
      // Served by the media host like any picture WhatsApp hands out (the path is all a client needs).
      const directPath = net.media ? net.media.put(bytes, 'profile', { uploader: acc.phone }) : `/v/t61.24694-24/${id}.jpg`;
      p.picture = { id, bytes, directPath };
    }
    net.counters.inc('profile.picture');
    conn.sendNode(iqResult(node, p.picture ? [{ tag: 'picture', attrs: { id: p.picture.id } }] : undefined));
    return true;
  }
  const owner = accountOf(net, target);
  if (!owner) return false;
  const p = profileOf(owner);
  if (!p.picture) {
    conn.sendNode(iqError(node, 404, 'item-not-found'));
    return true;
  }
  if (!visibleTo(owner, acc, 'profile') || (acc && profileOf(owner).blocked.has(acc.phone))) {
    conn.sendNode(iqError(node, 401, 'not-authorized'));
    return true;
  }
  const url = `https://${net.media?.hostname ?? 'mmg.whatsapp.net'}${p.picture.directPath}`;
  const type = child(node, 'picture')?.attrs.type ?? 'preview';
  conn.sendNode(iqResult(node, [{ tag: 'picture', attrs: { id: p.picture.id, type, url, direct_path: p.picture.directPath } }]));
  return true;
}

/** xmlns=privacy: read all categories, set one (with its list changes), read a category's list. */
export function handlePrivacyIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): boolean {
  const acc = conn.device?.account;
  const privacy = child(node, 'privacy');
  if (!acc || !privacy) return false;
  const p = profileOf(acc);
  if (node.attrs.type === 'get') {
    const list = child(privacy, 'list');
    if (list) {
      const name = list.attrs.name ?? '';
      const users = [...(p.disallowed.get(name) ?? [])].map((phone) => ({ tag: 'user', attrs: { jid: pnJid(phone) } }));
      conn.sendNode(iqResult(node, [{ tag: 'privacy', attrs: {}, content: [{ tag: 'list', attrs: { name, value: 'contact_blacklist' }, content: users }] }]));
      return true;
    }
    const categories = [...p.privacy].map(([name, value]) => ({ tag: 'category', attrs: { name, value } }));
    conn.sendNode(iqResult(node, [{ tag: 'privacy', attrs: {}, content: categories }]));
    return true;
  }
  for (const cat of childNodes(privacy).filter((c) => c.tag === 'category')) {
    const name = cat.attrs.name ?? '';
    const value = cat.attrs.value ?? '';
    if (!CATEGORIES.has(name) || !VALUES.has(value)) {
      conn.sendNode(iqError(node, 400, 'bad-request'));
      return true;
    }
    p.privacy.set(name, value);
    let list = p.disallowed.get(name);
    for (const user of childNodes(cat).filter((u) => u.tag === 'user')) {
      const phone = digitsOf(user.attrs.pn_jid ?? user.attrs.jid ?? '');
      if (!phone) continue;
      if (!list) p.disallowed.set(name, (list = new Set()));
      if (user.attrs.action === 'remove') list.delete(phone);
      else list.add(phone);
    }
    // Who may add this account to groups: without address books, only "all" lets strangers add it.
    if (name === 'groupadd') acc.groupAddable = value === 'all';
    net.counters.inc(`privacy.${name}`);
  }
  conn.sendNode(iqResult(node));
  return true;
}

/** xmlns=blocklist: get the list, or block/unblock one contact (named by LID, with pn_jid on block). */
export function handleBlocklistIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const acc = conn.device?.account;
  if (!acc) return void conn.sendNode(iqResult(node, [{ tag: 'list', attrs: {}, content: [] }]));
  const p = profileOf(acc);
  if (node.attrs.type === 'set') {
    const item = child(node, 'item');
    const target = accountOf(net, item?.attrs.pn_jid) ?? accountOf(net, item?.attrs.jid);
    if (!item || !target) return void conn.sendNode(iqError(node, 400, 'bad-request'));
    if (item.attrs.action === 'block') p.blocked.add(target.phone);
    else if (item.attrs.action === 'unblock') p.blocked.delete(target.phone);
    else return void conn.sendNode(iqError(node, 400, 'bad-request'));
    net.counters.inc(`blocklist.${item.attrs.action}`);
    conn.sendNode(iqResult(node));
    return;
  }
  const items = [...p.blocked].map((phone) => ({ tag: 'item', attrs: { jid: pnJid(phone) } }));
  conn.sendNode(iqResult(node, [{ tag: 'list', attrs: {}, content: items }]));
}

/** xmlns=disappearing_mode, set: the default timer of new chats. */
export function handleDisappearingIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const acc = conn.device?.account;
  const duration = Number(child(node, 'disappearing_mode')?.attrs.duration);
  if (!acc || !Number.isInteger(duration) || duration < 0) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  profileOf(acc).disappearingSeconds = duration;
  net.counters.inc('profile.disappearing');
  conn.sendNode(iqResult(node));
}
