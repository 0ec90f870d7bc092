// Group changes made by someone other than the linked device (another admin, a member leaving, a stranger asking to join):
// the group state changes and every member device hears the w:gp2 (or picture) notification, as from the real server.
import { randomInt } from 'node:crypto';
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { childNodes, iqError, iqResult } from '../server/stanza.js';
import { memberAttrs } from '../network/addressing.js';
import { digitsOf, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import type { Group } from '../network/groups.js';
import { HttpError } from '../http-error.js';
import { notifyGroup, notifyGroupTo, type GroupNotified } from './group-notify.js';

export type GroupActionKind =
  | 'add'
  | 'remove'
  | 'promote'
  | 'demote'
  | 'leave'
  | 'subject'
  | 'description'
  | 'picture'
  | 'requestJoin'
  | 'revokeRequest'
  | 'approveRequest'
  | 'announce'
  | 'locked'
  | 'joinApproval'
  | 'memberAddMode'
  | 'revokeInvite';

export interface GroupActionInput {
  action: GroupActionKind;
  /** Phones (or jids) the action is about: add/remove/promote/demote, approveRequest, revokeRequest by an admin. */
  participants?: string[];
  /** subject / description text ('' deletes the description); picture: an id, '' or false removes it;
   *  announce / locked / joinApproval: true|'on' / false|'off'; memberAddMode: 'all_member_add' | 'admin_add'. */
  value?: string | boolean;
  /** requestJoin: how the request was made (Baileys' group.join-request `method`). Default 'invite_link'. */
  method?: string;
}

export interface GroupActionOutcome {
  /** Stanza id of the notification sent (the stub message's key id on the device); '' if nothing was sent. */
  notificationId: string;
  /** Linked devices the notification was delivered (or held) for. */
  devices: number;
  /** Participants the action applied to (phones), for add/remove/promote/demote/approve/revoke. */
  applied: string[];
  /** Participants it did not apply to, with the error code the real server would give (404 absent, 409 already there, 403 privacy). */
  failed: { phone: string; error: string }[];
}

const on = (v: string | boolean | undefined): boolean => v === true || v === 'on' || v === 'true' || v === '1';

const participantNode = (a: Account, extra: Record<string, string> = {}): BinaryNode => ({
  tag: 'participant',
  attrs: { ...memberAttrs(a), ...extra },
});

function members(net: SimnetContext, g: Group): (Account | undefined)[] {
  return g.members().map((m) => net.registry.byNumber(m.phone));
}

function admins(net: SimnetContext, g: Group): (Account | undefined)[] {
  return g.members().filter((m) => m.role).map((m) => net.registry.byNumber(m.phone));
}

function resolve(net: SimnetContext, who: string): Account | undefined {
  const p = who.includes('@') ? parseJid(who) : null;
  if (p) return net.registry.byUser(p.user, p.server);
  return net.registry.byNumber(digitsOf(who));
}

/** Applies `input` by `actor` to `g`: permission checks as the server makes them, state change, notification. */
export function applyGroupAction(net: SimnetContext, g: Group, actor: Account, input: GroupActionInput): GroupActionOutcome {
  const out: GroupActionOutcome = { notificationId: '', devices: 0, applied: [], failed: [] };
  const sent = (n: GroupNotified): GroupActionOutcome => {
    out.notificationId = n.id;
    out.devices = n.devices;
    net.counters.inc(`groups.action.${input.action}`);
    return out;
  };
  const member = g.participants.get(actor.phone);
  const isAdmin = !!member?.role;
  const requireMember = () => {
    if (!member) throw new HttpError(403, `${actor.phone} is not a member of ${g.jid}`);
  };
  const requireAdmin = () => {
    requireMember();
    if (!isAdmin) throw new HttpError(403, `${actor.phone} is not an admin of ${g.jid}`);
  };
  const targets = (): Account[] => {
    const list: Account[] = [];
    for (const p of input.participants ?? []) {
      const acc = resolve(net, p);
      if (!acc) out.failed.push({ phone: digitsOf(p), error: '404' });
      else list.push(acc);
    }
    return list;
  };

  switch (input.action) {
    case 'add': {
      requireMember();
      if (!isAdmin && g.memberAddMode !== 'all_member_add') throw new HttpError(403, `${actor.phone} may not add members to ${g.jid}`);
      const added: Account[] = [];
      for (const acc of targets()) {
        if (g.participants.has(acc.phone)) out.failed.push({ phone: acc.phone, error: '409' });
        else if (!acc.groupAddable) out.failed.push({ phone: acc.phone, error: '403' });
        else {
          g.participants.set(acc.phone, { phone: acc.phone, role: null });
          g.joinRequests.delete(acc.phone);
          added.push(acc);
        }
      }
      out.applied = added.map((a) => a.phone);
      if (!added.length) return out;
      return sent(notifyGroup(net, g, actor, { tag: 'add', attrs: {}, content: added.map((a) => participantNode(a)) }));
    }
    case 'remove':
    case 'promote':
    case 'demote': {
      requireAdmin();
      const changed: Account[] = [];
      for (const acc of targets()) {
        const m = g.participants.get(acc.phone);
        if (!m) {
          out.failed.push({ phone: acc.phone, error: '404' });
          continue;
        }
        if (input.action === 'remove') g.participants.delete(acc.phone);
        else m.role = input.action === 'promote' ? (m.role ?? 'admin') : null;
        changed.push(acc);
      }
      out.applied = changed.map((a) => a.phone);
      if (!changed.length) return out;
      const nodes = changed.map((a) => participantNode(a, input.action === 'promote' ? { type: 'admin' } : {}));
      // Removed members hear it too (their group turns read-only).
      return sent(notifyGroup(net, g, actor, { tag: input.action, attrs: {}, content: nodes }, input.action === 'remove' ? changed : []));
    }
    case 'leave': {
      requireMember();
      g.participants.delete(actor.phone);
      // The group keeps an admin: the real server promotes the longest-standing member when the last admin leaves.
      if (g.participants.size && !g.members().some((m) => m.role)) g.members()[0]!.role = 'admin';
      out.applied = [actor.phone];
      return sent(notifyGroup(net, g, actor, { tag: 'leave', attrs: {}, content: [participantNode(actor)] }, [actor]));
    }
    case 'subject': {
      requireMember();
      if (g.locked && !isAdmin) throw new HttpError(403, `${g.jid} is locked: only admins edit its info`);
      g.subject = String(input.value ?? '');
      g.subjectTime = Math.floor(net.now() / 1000);
      return sent(notifyGroup(net, g, actor, { tag: 'subject', attrs: { subject: g.subject, s_o: lidJid(actor.lid), s_t: String(g.subjectTime) } }));
    }
    case 'description': {
      requireMember();
      if (g.locked && !isAdmin) throw new HttpError(403, `${g.jid} is locked: only admins edit its info`);
      const text = input.value === false ? '' : String(input.value ?? '');
      const prev = g.descriptionId;
      g.description = text;
      g.descriptionId = net.newId();
      const attrs: Record<string, string> = { id: g.descriptionId };
      if (prev) attrs.prev = prev;
      if (!text) attrs.delete = 'true';
      return sent(notifyGroup(net, g, actor, { tag: 'description', attrs, content: text ? [{ tag: 'body', attrs: {}, content: Buffer.from(text) }] : undefined }));
    }
    case 'picture': {
      requireMember();
      if (g.locked && !isAdmin) throw new HttpError(403, `${g.jid} is locked: only admins edit its info`);
      const remove = input.value === '' || input.value === false;
      g.pictureId = remove ? null : typeof input.value === 'string' ? input.value : String(randomInt(1_000_000_000, 2_000_000_000));
      g.picture = null;
      const change: BinaryNode = remove
        ? { tag: 'delete', attrs: { jid: g.jid, author: lidJid(actor.lid), author_pn: pnJid(actor.phone) } }
        : { tag: 'set', attrs: { jid: g.jid, id: g.pictureId!, author: lidJid(actor.lid), author_pn: pnJid(actor.phone) } };
      // Picture changes travel as type="picture", not w:gp2.
      return sent(notifyGroupTo(net, g, actor, change, members(net, g), 'picture'));
    }
    case 'announce':
    case 'locked': {
      requireAdmin();
      const value = on(input.value);
      if (input.action === 'announce') g.announce = value;
      else g.locked = value;
      const tag = input.action === 'announce' ? (value ? 'announcement' : 'not_announcement') : value ? 'locked' : 'unlocked';
      return sent(notifyGroup(net, g, actor, { tag, attrs: {} }));
    }
    case 'joinApproval': {
      requireAdmin();
      g.joinApproval = on(input.value);
      return sent(notifyGroup(net, g, actor, { tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: g.joinApproval ? 'on' : 'off' } }] }));
    }
    case 'memberAddMode': {
      requireAdmin();
      const mode = input.value === 'all_member_add' || input.value === true ? 'all_member_add' : 'admin_add';
      g.memberAddMode = mode;
      return sent(notifyGroup(net, g, actor, { tag: 'member_add_mode', attrs: {}, content: Buffer.from(mode) }));
    }
    case 'revokeInvite': {
      requireAdmin();
      net.groups.revokeInvite(g);
      return sent(notifyGroup(net, g, actor, { tag: 'invite', attrs: { code: g.inviteCode } }));
    }
    case 'requestJoin': {
      if (member) throw new HttpError(409, `${actor.phone} is already a member of ${g.jid}`);
      if (!g.joinApproval) throw new HttpError(409, `${g.jid} does not require approval: join by invite instead`);
      const method = input.method ?? 'invite_link';
      g.joinRequests.set(actor.phone, { t: Math.floor(net.now() / 1000), method });
      out.applied = [actor.phone];
      // Only admins hear about join requests.
      return sent(notifyGroupTo(net, g, actor, { tag: 'created_membership_requests', attrs: { request_method: method }, content: [participantNode(actor)] }, admins(net, g)));
    }
    case 'revokeRequest': {
      // The requester withdraws (Baileys: 'revoked'), or an admin rejects listed requesters ('rejected').
      const self = g.joinRequests.has(actor.phone) && !(input.participants ?? []).length;
      const who = self ? [actor] : (requireAdmin(), targets());
      const done: Account[] = [];
      for (const acc of who) {
        if (g.joinRequests.delete(acc.phone)) done.push(acc);
        else out.failed.push({ phone: acc.phone, error: '404' });
      }
      out.applied = done.map((a) => a.phone);
      let last: GroupNotified = { id: '', devices: 0 };
      for (const acc of done) {
        last = notifyGroupTo(net, g, actor, { tag: 'revoked_membership_requests', attrs: {}, content: [participantNode(acc)] }, [...admins(net, g), acc]);
      }
      return done.length ? sent(last) : out;
    }
    case 'approveRequest': {
      requireAdmin();
      const added: Account[] = [];
      for (const acc of targets()) {
        if (!g.joinRequests.delete(acc.phone)) out.failed.push({ phone: acc.phone, error: '404' });
        else {
          g.participants.set(acc.phone, { phone: acc.phone, role: null });
          added.push(acc);
        }
      }
      out.applied = added.map((a) => a.phone);
      if (!added.length) return out;
      return sent(notifyGroup(net, g, actor, { tag: 'add', attrs: { reason: 'approval' }, content: added.map((a) => participantNode(a)) }));
    }
    default:
      throw new HttpError(400, `unknown group action ${String((input as { action: unknown }).action)}`);
  }
}

/** Admin-side iqs on join requests: list them (membership_approval_requests), approve/reject them (membership_requests_action). */
export function handleJoinRequestIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode, g: Group, me: Account, op: BinaryNode): boolean {
  if (op.tag !== 'membership_approval_requests' && op.tag !== 'membership_requests_action') return false;
  if (!g.isAdmin(me.phone)) {
    conn.sendNode(iqError(node, 401, 'not-authorized'));
    return true;
  }
  if (op.tag === 'membership_approval_requests') {
    const list: BinaryNode[] = [];
    for (const [phone, r] of g.joinRequests) {
      const acc = net.registry.byNumber(phone);
      if (!acc) continue;
      list.push({ tag: 'membership_approval_request', attrs: { ...memberAttrs(acc), request_method: r.method, request_time: String(r.t) } });
    }
    conn.sendNode(iqResult(node, [{ tag: 'membership_approval_requests', attrs: {}, content: list }]));
    return true;
  }
  const actionNode = childNodes(op)[0];
  const action = actionNode?.tag;
  if (action !== 'approve' && action !== 'reject') {
    conn.sendNode(iqError(node, 400, 'bad-request'));
    return true;
  }
  const results: BinaryNode[] = [];
  for (const p of childNodes(actionNode)) {
    const jid = p.attrs.jid ?? '';
    const acc = resolve(net, jid);
    if (!acc || !g.joinRequests.has(acc.phone)) {
      results.push({ tag: 'participant', attrs: { jid, error: '404' } });
      continue;
    }
    applyGroupAction(net, g, me, { action: action === 'approve' ? 'approveRequest' : 'revokeRequest', participants: [acc.phone] });
    results.push({ tag: 'participant', attrs: { jid } });
  }
  conn.sendNode(iqResult(node, [{ tag: 'membership_requests_action', attrs: {}, content: [{ tag: action, attrs: {}, content: results }] }]));
  return true;
}

/** What group(jid) adds about the state these actions change. */
export function groupExtras(g: Group): { description: string; pictureId: string | null; pictureBytes: number | null; joinRequests: string[] } {
  return { description: g.description, pictureId: g.pictureId, pictureBytes: g.picture?.bytes.length ?? null, joinRequests: [...g.joinRequests.keys()] };
}
