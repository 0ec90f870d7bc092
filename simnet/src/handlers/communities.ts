// xmlns=w:g2 for communities: create (a parent group with its announcement group), link and unlink
// groups (<links>, <unlink>), list them (<sub_groups>), who may add groups, deactivation
// (<delete_parent>), and participants of the whole community. Each change notifies members as the
// real server does: link/unlink from both the community and the group, delete reason=delete_parent.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { digitsOf, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import type { Group } from '../network/groups.js';
import { announcementOf, createCommunity, joinCommunity, leaveCommunity, linkGroup, subGroupsOf, unlinkGroup } from '../network/communities.js';
import { groupNode, notifyGroup, notifyGroupTo, type GroupNotified } from './group-notify.js';

/** A refusal with the code the real server answers (the admin API turns it into an HTTP status). */
export class CommunityRefusal extends Error {
  constructor(
    readonly code: number,
    readonly text: string,
    message: string,
  ) {
    super(message);
  }
}

const refuse = (code: number, text: string, message: string): never => {
  throw new CommunityRefusal(code, text, message);
};

const participantNode = (a: Account): BinaryNode => ({ tag: 'participant', attrs: { jid: lidJid(a.lid), phone_number: pnJid(a.phone) } });
const groupRef = (g: Group): BinaryNode => ({ tag: 'group', attrs: { jid: g.jid, subject: g.subject } });

function accounts(net: SimnetContext, phones: readonly string[]): Account[] {
  return phones.map((p) => net.registry.byNumber(p)).filter((a): a is Account => !!a);
}

function requireAdmin(parent: Group, actor: Account): void {
  if (!parent.participants.has(actor.phone)) refuse(403, 'forbidden', `${actor.phone} is not in the community ${parent.jid}`);
  if (!parent.isAdmin(actor.phone)) refuse(401, 'not-authorized', `${actor.phone} is not an admin of the community ${parent.jid}`);
}

/** The community `jid` names, or a refusal (404 unknown, 400 a group that is not a community). */
export function communityOf(net: SimnetContext, jid: string): Group {
  const g = net.groups.get(jid);
  if (!g) return refuse(404, 'item-not-found', `no such community ${jid}`);
  if (!g.community) return refuse(400, 'bad-request', `${jid} is not a community`);
  return g;
}

/** Links `g` to `parent` by `actor`: community admins, or members when the community lets them; the actor must run `g`. */
export function linkToCommunity(net: SimnetContext, parent: Group, actor: Account, g: Group): GroupNotified {
  const mayLink = parent.isAdmin(actor.phone) || (parent.community?.allowNonAdminSubGroupCreation && parent.participants.has(actor.phone));
  if (!mayLink) refuse(401, 'not-authorized', `${actor.phone} may not add groups to ${parent.jid}`);
  if (!g.isAdmin(actor.phone)) refuse(401, 'not-authorized', `${actor.phone} is not an admin of ${g.jid}`);
  if (g.community || g.defaultSubGroup) refuse(400, 'bad-request', `${g.jid} is a community's own group`);
  if (g.linkedParent) refuse(409, 'conflict', `${g.jid} already belongs to the community ${g.linkedParent}`);
  const joined = linkGroup(net.groups, parent, g);
  const announcement = announcementOf(net.groups, parent);
  if (announcement && joined.length) notifyGroup(net, announcement, actor, { tag: 'add', attrs: { reason: 'linked_group_join' }, content: accounts(net, joined).map(participantNode) });
  notifyGroup(net, g, actor, { tag: 'link', attrs: { link_type: 'parent_group' }, content: [groupRef(parent)] });
  net.counters.inc('communities.link');
  return notifyGroup(net, parent, actor, { tag: 'link', attrs: { link_type: 'sub_group' }, content: [groupRef(g)] });
}

/** Unlinks `g` from `parent` (community admins); its members who nothing else keeps leave the community. */
export function unlinkFromCommunity(net: SimnetContext, parent: Group, actor: Account, g: Group, reason = 'unlink_group'): GroupNotified {
  requireAdmin(parent, actor);
  if (g.defaultSubGroup) refuse(400, 'bad-request', `${g.jid} is the community's announcement group`);
  if (g.linkedParent !== parent.jid) refuse(404, 'item-not-found', `${g.jid} is not linked to ${parent.jid}`);
  // Members hear it before those who leave are gone.
  const heard = notifyGroup(net, parent, actor, { tag: 'unlink', attrs: { unlink_type: 'sub_group', unlink_reason: reason }, content: [groupRef(g)] });
  const left = unlinkGroup(net.groups, parent, g);
  const announcement = announcementOf(net.groups, parent);
  if (announcement && left.length) notifyGroup(net, announcement, actor, { tag: 'remove', attrs: {}, content: accounts(net, left).map(participantNode) }, accounts(net, left));
  notifyGroup(net, g, actor, { tag: 'unlink', attrs: { unlink_type: 'parent_group', unlink_reason: reason }, content: [groupRef(parent)] });
  net.counters.inc('communities.unlink');
  return heard;
}

/** Deactivates the community (its creator or a superadmin): groups are unlinked, not deleted; the community and its announcement group are gone. */
export function deactivateCommunity(net: SimnetContext, parent: Group, actor: Account): GroupNotified {
  if (parent.participants.get(actor.phone)?.role !== 'superadmin') refuse(401, 'not-authorized', `only the community's owner deactivates ${parent.jid}`);
  for (const g of subGroupsOf(net.groups, parent)) {
    if (g.defaultSubGroup) continue;
    g.linkedParent = null;
    notifyGroup(net, g, actor, { tag: 'unlink', attrs: { unlink_type: 'parent_group', unlink_reason: 'delete_parent' }, content: [groupRef(parent)] });
  }
  const heard = notifyGroup(net, parent, actor, { tag: 'delete', attrs: { reason: 'delete_parent' } });
  const announcement = announcementOf(net.groups, parent);
  if (announcement) net.groups.remove(announcement);
  net.groups.remove(parent);
  net.counters.inc('communities.deactivated');
  return heard;
}

/** Who may add groups: everyone (true) or admins only. */
export function setNonAdminSubGroupCreation(net: SimnetContext, parent: Group, actor: Account, allow: boolean): GroupNotified {
  requireAdmin(parent, actor);
  parent.community!.allowNonAdminSubGroupCreation = allow;
  return notifyGroup(net, parent, actor, { tag: allow ? 'allow_non_admin_sub_group_creation' : 'not_allow_non_admin_sub_group_creation', attrs: {} });
}

type ParticipantOp = 'add' | 'remove' | 'promote' | 'demote';

/** Participants of the whole community: add joins it and its announcement group; remove takes them out of every linked group too. */
function communityParticipants(net: SimnetContext, parent: Group, actor: Account, op: ParticipantOp, jids: readonly string[]): BinaryNode[] {
  requireAdmin(parent, actor);
  const announcement = announcementOf(net.groups, parent);
  const results: BinaryNode[] = [];
  const changed: Account[] = [];
  for (const jid of jids) {
    const p = parseJid(jid);
    const acc = p ? net.registry.byUser(p.user, p.server) : net.registry.byNumber(digitsOf(jid));
    let error: string | undefined;
    if (!acc) error = '404';
    else if (op === 'add') {
      if (parent.participants.has(acc.phone)) error = '409';
      else if (!acc.groupAddable) error = '403';
      else joinCommunity(net.groups, parent, [acc.phone]);
    } else if (!parent.participants.has(acc.phone)) error = '404';
    else if (op === 'remove') {
      // Heard in every group they leave, before they are gone.
      for (const g of subGroupsOf(net.groups, parent)) {
        if (g.participants.has(acc.phone)) notifyGroup(net, g, actor, { tag: 'remove', attrs: {}, content: [participantNode(acc)] }, [acc]);
      }
      leaveCommunity(net.groups, parent, [acc.phone], true);
    } else {
      for (const g of [parent, announcement]) {
        const m = g?.participants.get(acc.phone);
        if (m && m.role !== 'superadmin') m.role = op === 'promote' ? 'admin' : null;
      }
    }
    if (!error && acc) changed.push(acc);
    results.push({ tag: 'participant', attrs: { jid, ...(error ? { error } : {}) } });
  }
  if (changed.length) {
    const nodes = changed.map(participantNode);
    notifyGroup(net, parent, actor, { tag: op, attrs: {}, content: nodes }, op === 'remove' ? changed : []);
    if (announcement && op !== 'remove') notifyGroup(net, announcement, actor, { tag: op, attrs: {}, content: nodes });
  }
  net.counters.inc(`communities.participants.${op}`);
  return results;
}

function create(net: SimnetContext, conn: ClientConnection, node: BinaryNode, me: Account, op: BinaryNode): void {
  const description = bytesOf(child(child(op, 'description'), 'body'))?.toString('utf8') ?? '';
  const { parent, announcement } = createCommunity(net.groups, op.attrs.subject ?? '', description, me.phone, net.newId());
  if (child(op, 'allow_non_admin_sub_group_creation')) parent.community!.allowNonAdminSubGroupCreation = true;
  net.counters.inc('communities.created');
  conn.sendNode(iqResult(node, [groupNode(net, parent)]));
  for (const g of [parent, announcement]) notifyGroupTo(net, g, me, { tag: 'create', attrs: {}, content: [groupNode(net, g)] }, [me]);
}

/** Handles the community iqs; false when `op` is not one (the group handler goes on). */
export function handleCommunityIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode, me: Account, op: BinaryNode): boolean {
  const to = node.attrs.to ?? '';
  const type = node.attrs.type;
  if (to === '@g.us') {
    if (op.tag !== 'create' || type !== 'set' || !child(op, 'parent')) return false;
    create(net, conn, node, me, op);
    return true;
  }
  const target = net.groups.get(to);
  const communityOp = ['links', 'unlink', 'sub_groups', 'delete_parent', 'allow_non_admin_sub_group_creation', 'not_allow_non_admin_sub_group_creation'].includes(op.tag);
  const participantOp = ['add', 'remove', 'promote', 'demote'].includes(op.tag) && !!target?.community;
  if (!communityOp && !participantOp) return false;
  try {
    const parent = communityOf(net, to);
    switch (op.tag) {
      case 'sub_groups': {
        if (!parent.participants.has(me.phone)) refuse(403, 'forbidden', `${me.phone} is not in ${to}`);
        const groups = subGroupsOf(net.groups, parent).map((g) => ({
          tag: 'group',
          attrs: { id: g.jid.split('@')[0]!, subject: g.subject, s_t: String(g.subjectTime), creation: String(g.creation), creator: lidJid(net.registry.byNumber(g.creatorPhone)?.lid ?? ''), size: String(g.participants.size) },
          content: g.defaultSubGroup ? [{ tag: 'default_sub_group', attrs: {} }] : [],
        }));
        conn.sendNode(iqResult(node, [{ tag: 'sub_groups', attrs: {}, content: groups }]));
        return true;
      }
      case 'links': {
        const done: BinaryNode[] = [];
        for (const link of childNodes(op)) {
          for (const gn of childNodes(link)) {
            const g = net.groups.get(gn.attrs.jid ?? '');
            if (!g) refuse(404, 'item-not-found', `no such group ${gn.attrs.jid ?? ''}`);
            linkToCommunity(net, parent, me, g!);
            done.push({ tag: 'link', attrs: { link_type: link.attrs.link_type ?? 'sub_group' }, content: [{ tag: 'group', attrs: { jid: g!.jid } }] });
          }
        }
        conn.sendNode(iqResult(node, [{ tag: 'links', attrs: {}, content: done }]));
        return true;
      }
      case 'unlink': {
        for (const gn of childNodes(op)) {
          const g = net.groups.get(gn.attrs.jid ?? '');
          if (!g) refuse(404, 'item-not-found', `no such group ${gn.attrs.jid ?? ''}`);
          unlinkFromCommunity(net, parent, me, g!);
        }
        conn.sendNode(iqResult(node, [{ tag: 'unlink', attrs: { unlink_type: op.attrs.unlink_type ?? 'sub_group' }, content: childNodes(op) }]));
        return true;
      }
      case 'delete_parent':
        deactivateCommunity(net, parent, me);
        conn.sendNode(iqResult(node));
        return true;
      case 'allow_non_admin_sub_group_creation':
      case 'not_allow_non_admin_sub_group_creation':
        setNonAdminSubGroupCreation(net, parent, me, op.tag === 'allow_non_admin_sub_group_creation');
        conn.sendNode(iqResult(node));
        return true;
      default: {
        const results = communityParticipants(net, parent, me, op.tag as ParticipantOp, childNodes(op).map((p) => p.attrs.jid ?? ''));
        conn.sendNode(iqResult(node, [{ tag: op.tag, attrs: {}, content: results }]));
        return true;
      }
    }
  } catch (e) {
    if (!(e instanceof CommunityRefusal)) throw e;
    conn.sendNode(iqError(node, e.code, e.text));
    return true;
  }
}

/** What the admin API shows of a community. */
export interface CommunityView {
  jid: string;
  subject: string;
  description: string;
  announcementJid: string;
  allowNonAdminSubGroupCreation: boolean;
  participants: { phone: string; role: string | null }[];
  subGroups: { jid: string; subject: string; defaultSubGroup: boolean; participants: string[] }[];
}

export function communityView(net: SimnetContext, parent: Group): CommunityView {
  return {
    jid: parent.jid,
    subject: parent.subject,
    description: parent.description,
    announcementJid: parent.community!.announcementJid,
    allowNonAdminSubGroupCreation: parent.community!.allowNonAdminSubGroupCreation,
    participants: parent.members().map((m) => ({ phone: m.phone, role: m.role })),
    subGroups: subGroupsOf(net.groups, parent).map((g) => ({ jid: g.jid, subject: g.subject, defaultSubGroup: g.defaultSubGroup, participants: g.members().map((m) => m.phone) })),
  };
}
