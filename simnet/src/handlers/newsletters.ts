// Channels (newsletters) as WhatsApp serves them: the w:mex GraphQL queries and mutations Baileys
// sends (create, metadata, follow, mute, update, admin invites, owner change, demote, delete, the
// subscribed list and the directory), the plain `newsletter` iqs, posts (plaintext <message> to
// `<id>@newsletter`, acked with a server id and fanned out to the audience's linked devices) and
// the admin-change notifications.
import { proto, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, iqResult } from '../server/stanza.js';
import { digitsOf, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Account, LinkedDevice } from '../network/accounts.js';
import { ADMIN_INVITE_SECONDS, countryOf, type Newsletter, type ReactionCodes } from '../network/newsletters.js';
import { describeMessage, type ReceivedMessage } from '../contacts/content.js';
import { pushBounded, sendAck } from './message-helpers.js';
import { HttpError } from '../http-error.js';

/** WhatsApp's query ids (WA Web's GraphQL documents) and the data path each answers under. */
export const MEX = {
  create: { id: '8823471724422422', path: 'xwa2_newsletter_create' },
  update: { id: '24250201037901610', path: 'xwa2_newsletter_update' },
  metadata: { id: '6563316087068696', path: 'xwa2_newsletter' },
  follow: { id: '24404358912487870', path: 'xwa2_newsletter_join_v2' },
  unfollow: { id: '9767147403369991', path: 'xwa2_newsletter_leave_v2' },
  mute: { id: '29766401636284406', path: 'xwa2_newsletter_mute_v2' },
  unmute: { id: '9864994326891137', path: 'xwa2_newsletter_unmute_v2' },
  adminCount: { id: '7130823597031706', path: 'xwa2_newsletter_admin' },
  changeOwner: { id: '7341777602580933', path: 'xwa2_newsletter_change_owner' },
  demote: { id: '6551828931592903', path: 'xwa2_newsletter_demote' },
  delete: { id: '30062808666639665', path: 'xwa2_newsletter_delete_v2' },
  subscribed: { id: '6388546374527196', path: 'xwa2_newsletter_subscribed' },
  inviteCreate: { id: '9387141988078609', path: 'xwa2_newsletter_admin_invite_create' },
  inviteRevoke: { id: '9656078347839416', path: 'xwa2_newsletter_admin_invite_revoke' },
  inviteAccept: { id: '9580828702035549', path: 'xwa2_newsletter_admin_invite_accept' },
  directoryList: { id: '26125047313831973', path: 'xwa2_newsletters_directory_list' },
  directorySearch: { id: '26301059626252132', path: 'xwa2_newsletters_directory_search' },
} as const;

/** A refusal answered as a GraphQL error (Baileys turns `error_code` into its Boom status). */
export class MexError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Vars = Record<string, unknown>;
const DIRECTORY_MAX = 100;

function mexAnswer(node: BinaryNode, body: unknown): BinaryNode {
  return iqResult(node, [{ tag: 'result', attrs: {}, content: Buffer.from(JSON.stringify(body), 'utf8') }]);
}

/** xmlns=w:mex: the newsletter queries; any other query id keeps simnet's empty answer. */
export function handleMexIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const q = child(node, 'query');
  const me = conn.device?.account;
  const op = Object.values(MEX).find((m) => m.id === q?.attrs.query_id);
  if (!q || !me || !op) return void conn.sendNode(iqResult(node));
  let variables: Vars = {};
  try {
    const parsed = JSON.parse(bytesOf(q)?.toString('utf8') ?? '{}') as { variables?: Vars };
    variables = parsed.variables ?? {};
  } catch {
    return void conn.sendNode(mexAnswer(node, { errors: [{ message: 'malformed query', extensions: { error_code: 400 } }] }));
  }
  try {
    const data = runMex(net, me, op.id, variables);
    net.counters.inc(`newsletters.${op.path}`);
    conn.sendNode(mexAnswer(node, { data: { [op.path]: data } }));
  } catch (e) {
    const code = e instanceof MexError ? e.code : 500;
    conn.sendNode(mexAnswer(node, { errors: [{ message: (e as Error).message, extensions: { error_code: code } }] }));
  }
}

/** xmlns=newsletter: live updates (a subscription window) and message updates (none kept apart). */
export function handleNewsletterIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  if (child(node, 'live_updates')) return void conn.sendNode(iqResult(node, [{ tag: 'live_updates', attrs: { duration: '300' } }]));
  conn.sendNode(iqResult(node, [{ tag: 'message_updates', attrs: {}, content: [] }]));
}

function channel(net: SimnetContext, v: Vars): Newsletter {
  const key = typeof v.newsletter_id === 'string' ? v.newsletter_id : '';
  const n = net.newsletters.get(key);
  if (!n) throw new MexError(404, `no such channel ${key}`);
  return n;
}

function staff(n: Newsletter, me: Account): void {
  if (!n.isStaff(me.phone)) throw new MexError(403, `${me.phone} is not an admin of ${n.jid}`);
}

function owner(n: Newsletter, me: Account): void {
  if (n.ownerPhone !== me.phone) throw new MexError(403, `${me.phone} is not the owner of ${n.jid}`);
}

function userOf(net: SimnetContext, v: Vars): Account {
  const p = parseJid(typeof v.user_id === 'string' ? v.user_id : '');
  const acc = p && (p.server === 's.whatsapp.net' || p.server === 'lid') ? net.registry.byUser(p.user, p.server) : undefined;
  if (!acc) throw new MexError(404, `no such user ${String(v.user_id)}`);
  return acc;
}

function runMex(net: SimnetContext, me: Account, id: string, v: Vars): unknown {
  switch (id) {
    case MEX.create.id: {
      const input = (v.input ?? {}) as { name?: unknown; description?: unknown };
      const name = typeof input.name === 'string' ? input.name.trim() : '';
      if (!name) throw new MexError(400, 'a channel needs a name');
      const n = net.newsletters.create(name, typeof input.description === 'string' ? input.description : '', me.phone);
      // The create answer always carries picture objects (Baileys reads their ids).
      return metadataOf(net, n, me, true);
    }
    case MEX.metadata.id: {
      const input = (v.input ?? {}) as { key?: unknown };
      const n = net.newsletters.get(typeof input.key === 'string' ? input.key : '');
      if (!n) throw new MexError(404, 'channel not found');
      return metadataOf(net, n, me);
    }
    case MEX.update.id: {
      const n = channel(net, v);
      staff(n, me);
      applyUpdates(net, n, (v.updates ?? {}) as Vars);
      return metadataOf(net, n, me);
    }
    case MEX.follow.id: {
      const n = channel(net, v);
      if (!n.isStaff(me.phone) && !n.followers.has(me.phone)) n.followers.set(me.phone, false);
      return { id: n.jid };
    }
    case MEX.unfollow.id: {
      const n = channel(net, v);
      if (n.ownerPhone === me.phone) throw new MexError(403, 'the owner cannot unfollow its channel');
      n.followers.delete(me.phone);
      return { id: n.jid };
    }
    case MEX.mute.id:
    case MEX.unmute.id: {
      const n = channel(net, v);
      if (n.roleOf(me.phone) === 'GUEST') throw new MexError(403, `${me.phone} does not follow ${n.jid}`);
      n.setMuted(me.phone, id === MEX.mute.id);
      return { id: n.jid, mute: n.muted(me.phone) ? 'ON' : 'OFF' };
    }
    case MEX.adminCount.id: {
      const n = channel(net, v);
      return { admin_count: n.admins.size + 1 };
    }
    case MEX.changeOwner.id: {
      const n = channel(net, v);
      owner(n, me);
      const to = userOf(net, v);
      if (!n.admins.has(to.phone)) throw new MexError(403, `${to.phone} must be an admin of ${n.jid} to become its owner`);
      n.admins.delete(to.phone);
      n.admins.add(me.phone);
      n.ownerPhone = to.phone;
      net.counters.inc('newsletters.ownerChanged');
      return { id: n.jid };
    }
    case MEX.demote.id: {
      const n = channel(net, v);
      const who = userOf(net, v);
      // The owner demotes any admin; an admin may step down itself.
      if (who.phone !== me.phone) owner(n, me);
      if (!n.admins.has(who.phone)) throw new MexError(404, `${who.phone} is not an admin of ${n.jid}`);
      demote(net, n, me, who);
      return { id: n.jid };
    }
    case MEX.delete.id: {
      const n = channel(net, v);
      owner(n, me);
      n.deleted = true;
      return { id: n.jid, state: { type: 'DELETED' } };
    }
    case MEX.subscribed.id:
      return net.newsletters
        .live()
        .filter((n) => n.roleOf(me.phone) !== 'GUEST')
        .map((n) => metadataOf(net, n, me));
    case MEX.inviteCreate.id: {
      const n = channel(net, v);
      owner(n, me);
      const to = userOf(net, v);
      if (n.isStaff(to.phone)) throw new MexError(409, `${to.phone} is already an admin of ${n.jid}`);
      const expiration = Math.floor(net.now() / 1000) + ADMIN_INVITE_SECONDS;
      n.adminInvites.set(to.phone, expiration);
      return { id: n.jid, invite_expiration_time: String(expiration) };
    }
    case MEX.inviteRevoke.id: {
      const n = channel(net, v);
      owner(n, me);
      const to = userOf(net, v);
      if (!n.adminInvites.delete(to.phone)) throw new MexError(404, `no pending admin invite for ${to.phone}`);
      return { id: n.jid };
    }
    case MEX.inviteAccept.id: {
      const n = channel(net, v);
      acceptInvite(net, n, me);
      return { id: n.jid };
    }
    case MEX.directoryList.id:
    case MEX.directorySearch.id:
      return { result: directory(net, me, (v.input ?? {}) as Vars, id === MEX.directorySearch.id), page_info: { has_next_page: false, end_cursor: null } };
    default:
      throw new MexError(400, `unknown query ${id}`);
  }
}

function applyUpdates(net: SimnetContext, n: Newsletter, updates: Vars): void {
  const now = Math.floor(net.now() / 1000);
  if (typeof updates.name === 'string') {
    if (!updates.name.trim()) throw new MexError(400, 'a channel needs a name');
    n.name = updates.name;
    n.nameTime = now;
  }
  if (typeof updates.description === 'string') {
    n.description = updates.description;
    n.descriptionTime = now;
  }
  if (typeof updates.picture === 'string') {
    if (!updates.picture) n.picture = null;
    else {
      const bytes = Buffer.from(updates.picture, 'base64');
      const directPath = net.media?.put(bytes, 'newsletter-image') ?? `/v/t61.newsletter/${net.newId()}.jpg`;
      n.picture = { id: net.newId(), bytes, directPath };
    }
  }
  const settings = updates.settings as { reaction_codes?: { value?: unknown } } | null | undefined;
  const codes = settings?.reaction_codes?.value;
  if (codes !== undefined) {
    if (codes !== 'ALL' && codes !== 'BASIC' && codes !== 'NONE') throw new MexError(400, `unknown reaction codes ${String(codes)}`);
    n.reactionCodes = codes as ReactionCodes;
  }
}

/** The channel as the network describes it to `viewer` (the NewsletterMetadata Baileys parses). */
export function metadataOf(net: SimnetContext, n: Newsletter, viewer: Account, pictureObjects = false): Record<string, unknown> {
  const picture = n.picture ? { id: n.picture.id, type: 'IMAGE', direct_path: n.picture.directPath } : pictureObjects ? { id: '', type: '', direct_path: '' } : null;
  return {
    id: n.jid,
    state: { type: n.deleted ? 'DELETED' : 'ACTIVE' },
    thread_metadata: {
      creation_time: String(n.creation),
      description: { id: String(n.descriptionTime), text: n.description, update_time: String(n.descriptionTime) },
      handle: null,
      invite: n.inviteCode,
      name: { id: String(n.nameTime), text: n.name, update_time: String(n.nameTime) },
      picture,
      preview: picture,
      settings: { reaction_codes: { value: n.reactionCodes } },
      subscribers_count: String(n.followers.size),
      verification: 'UNVERIFIED',
    },
    viewer_metadata: { mute: n.muted(viewer.phone) ? 'ON' : 'OFF', role: n.roleOf(viewer.phone) },
  };
}

function directory(net: SimnetContext, viewer: Account, input: Vars, search: boolean): Record<string, unknown>[] {
  const limit = Math.max(1, Math.min(DIRECTORY_MAX, Number(input.limit ?? 50) || 50));
  const text = typeof input.search_text === 'string' ? input.search_text.trim().toLowerCase() : '';
  const countries = ((input.filters as { country_codes?: unknown } | undefined)?.country_codes ?? []) as unknown[];
  let list = net.newsletters.live();
  if (search && text) list = list.filter((n) => n.name.toLowerCase().includes(text) || n.description.toLowerCase().includes(text));
  if (countries.length > 0) list = list.filter((n) => countries.includes(countryOf(n.ownerPhone)));
  // NEW: newest first; the other views (RECOMMENDED, TRENDING, POPULAR): most followers first.
  if (input.view === 'NEW') list.sort((a, b) => b.creation - a.creation);
  else list.sort((a, b) => b.followers.size - a.followers.size || a.name.localeCompare(b.name));
  return list.slice(0, limit).map((n) => metadataOf(net, n, viewer));
}

// ---- admin changes ------------------------------------------------------------------------

/** `who` accepts its pending admin invite: it becomes an admin; its devices and the owner's hear the promotion. */
export function acceptInvite(net: SimnetContext, n: Newsletter, who: Account): void {
  const expires = n.adminInvites.get(who.phone);
  if (expires === undefined || expires < net.now() / 1000) throw new MexError(404, `no pending admin invite for ${who.phone}`);
  n.adminInvites.delete(who.phone);
  n.followers.delete(who.phone);
  n.admins.add(who.phone);
  net.counters.inc('newsletters.promoted');
  // The legacy <mex> notification Baileys reads as newsletter-participants.update (promote, ADMIN).
  const payload = { operation: 'NotificationNewsletterAdminPromote', updates: [{ jid: n.jid, user: pnJid(who.phone) }] };
  notify(net, [who, net.registry.byNumber(n.ownerPhone)], { from: n.jid, type: 'mex' }, { tag: 'mex', attrs: {}, content: Buffer.from(JSON.stringify(payload), 'utf8') });
}

/** `by` demotes `who` (or `who` steps down): a subscriber again; its devices and the owner's hear it. */
export function demote(net: SimnetContext, n: Newsletter, by: Account, who: Account): void {
  n.admins.delete(who.phone);
  n.followers.set(who.phone, n.staffMuted.delete(who.phone));
  net.counters.inc('newsletters.demoted');
  const change: BinaryNode = { tag: 'participant', attrs: { jid: pnJid(who.phone), action: 'demote', role: 'SUBSCRIBER' } };
  notify(net, [who, net.registry.byNumber(n.ownerPhone)], { from: n.jid, type: 'newsletter', participant: lidJid(by.lid), participant_pn: pnJid(by.phone) }, change);
}

function notify(net: SimnetContext, to: (Account | undefined)[], attrs: Record<string, string>, content: BinaryNode): number {
  let devices = 0;
  const seen = new Set<Account>();
  for (const acc of to) {
    if (!acc || seen.has(acc)) continue;
    seen.add(acc);
    for (const d of acc.activeCompanions()) {
      net.deliver(d, { tag: 'notification', attrs: { ...attrs, id: net.newId(), t: net.nowSec() }, content: [content] });
      devices++;
    }
  }
  return devices;
}

// ---- posts ----------------------------------------------------------------------------------

export interface PostOutcome {
  serverId: number;
  /** Linked devices the post was delivered (or held) for. */
  devices: number;
  /** Accounts (phones) whose record of received messages got it. */
  reached: string[];
}

/** A linked device posts to a channel: only its owner and admins may; acked with the post's server id. */
export async function handleNewsletterMessage(net: SimnetContext, conn: ClientConnection, dev: LinkedDevice, node: BinaryNode): Promise<void> {
  const n = net.newsletters.get(node.attrs.to ?? '');
  const bytes = bytesOf(child(node, 'plaintext'));
  if (!n) return sendAck(net, conn, node, '404');
  if (!n.isStaff(dev.account.phone)) return sendAck(net, conn, node, '403');
  if (!bytes) return sendAck(net, conn, node, '400');
  const out = await post(net, n, dev.account, node.attrs.id ?? net.newId(), bytes, dev);
  conn.sendNode({ tag: 'ack', attrs: { class: 'message', id: node.attrs.id ?? '', from: n.jid, t: net.nowSec(), server_id: String(out.serverId) } });
}

/**
 * Keeps the post and fans it out as WhatsApp does for channels: a plaintext <message> from the
 * channel to every linked device of its followers, owner and admins (but the sending device).
 */
export async function post(net: SimnetContext, n: Newsletter, author: Account, id: string, bytes: Buffer, fromDevice?: LinkedDevice): Promise<PostOutcome> {
  const p = n.addPost(id, author.phone, bytes, Number(net.nowSec()));
  net.counters.inc('newsletters.posts');
  let devices = 0;
  const reached: string[] = [];
  const received = await describePost(net, n, p.id, author, bytes);
  for (const phone of n.audience()) {
    const acc = net.registry.byNumber(phone);
    if (!acc) continue;
    if (acc !== author) {
      pushBounded(acc.received, { ...received, to: acc.phone });
      reached.push(acc.phone);
      net.emitReceived({ ...received, to: acc.phone });
    }
    for (const d of acc.activeCompanions()) {
      if (d === fromDevice) continue;
      net.deliver(d, {
        tag: 'message',
        attrs: { from: n.jid, id: p.id, server_id: String(p.serverId), t: String(p.t), type: mediaOf(bytes) ? 'media' : 'text' },
        content: [{ tag: 'plaintext', attrs: {}, content: bytes }],
      });
      devices++;
    }
  }
  return { serverId: p.serverId, devices, reached };
}

function mediaOf(bytes: Buffer): boolean {
  const m = proto.Message.decode(bytes);
  return !!(m.imageMessage ?? m.videoMessage ?? m.audioMessage ?? m.documentMessage ?? m.stickerMessage);
}

/** The post as a follower's phone records it; channel media is not encrypted, so its bytes are read as stored. */
async function describePost(net: SimnetContext, n: Newsletter, id: string, author: Account, bytes: Buffer): Promise<ReceivedMessage> {
  const message = proto.Message.decode(bytes);
  const rec = await describeMessage({ id, from: author.phone, to: '', fromDevice: 0, atMs: net.now(), message, fetchMedia: () => undefined });
  rec.newsletter = n.jid;
  const media = message.imageMessage ?? message.videoMessage ?? message.audioMessage ?? message.documentMessage ?? message.stickerMessage;
  const where = media?.directPath ?? media?.url;
  const raw = where ? net.media?.get(where) : undefined;
  if (rec.media && raw) {
    rec.media.base64 = raw.toString('base64');
    rec.media.size = raw.length;
    delete rec.media.error;
  }
  return rec;
}

/** Resolves a phone or jid for the admin API. */
export function accountOf(net: SimnetContext, who: string): Account {
  const p = who.includes('@') ? parseJid(who) : null;
  const acc = p ? net.registry.byUser(p.user, p.server) : net.registry.byNumber(digitsOf(who));
  if (!acc) throw new HttpError(404, `no such user ${who}`);
  return acc;
}
