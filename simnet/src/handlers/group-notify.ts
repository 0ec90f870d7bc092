// What groups show linked devices: the <group> node (its community children included) and the w:gp2
// notifications of a change. A leaf of handlers/: groups.ts routes w:g2 iqs to group-actions.ts and
// communities.ts, and those (and the admin API) build nodes and notify through here, not through it.
import type { BinaryNode } from 'baileys';
import type { SimnetContext } from '../server/context.js';
import { memberAttrs } from '../network/addressing.js';
import { lidJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import type { Group } from '../network/groups.js';

/** The <group> node as the real server shows it (LID addressing, phone_number per participant). */
export function groupNode(net: SimnetContext, g: Group, tag = 'group'): BinaryNode {
  const creator = net.registry.byNumber(g.creatorPhone);
  const content: BinaryNode[] = g.members().map((m) => {
    const acc = net.registry.byNumber(m.phone);
    const attrs: Record<string, string> = acc ? memberAttrs(acc) : { jid: lidJid(m.phone), phone_number: pnJid(m.phone) };
    if (m.role) attrs.type = m.role;
    return { tag: 'participant', attrs };
  });
  if (g.announce) content.push({ tag: 'announcement', attrs: {} });
  if (g.locked) content.push({ tag: 'locked', attrs: {} });
  content.push({ tag: 'member_add_mode', attrs: {}, content: Buffer.from(g.memberAddMode) });
  if (g.joinApproval) content.push({ tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: 'on' } }] });
  if (g.description) {
    content.push({ tag: 'description', attrs: { id: g.descriptionId || 'simnet', t: String(g.subjectTime) }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(g.description) }] });
  }
  content.push(...communityNodes(g));
  return {
    tag,
    attrs: {
      id: g.jid.split('@')[0]!,
      subject: g.subject,
      s_t: String(g.subjectTime),
      s_o: lidJid(creator?.lid ?? ''),
      s_o_pn: pnJid(g.creatorPhone),
      creation: String(g.creation),
      creator: lidJid(creator?.lid ?? ''),
      creator_pn: pnJid(g.creatorPhone),
      addressing_mode: 'lid',
      size: String(g.participants.size),
    },
    content,
  };
}

/** Sends a w:gp2 notification about `change` by `actor` to every member's linked devices. */
export function notifyGroup(net: SimnetContext, g: Group, actor: Account, change: BinaryNode, extraRecipients: Account[] = []): GroupNotified {
  const members = g.members().map((m) => net.registry.byNumber(m.phone));
  return notifyGroupTo(net, g, actor, change, [...members, ...extraRecipients]);
}

export interface GroupNotified {
  /** Stanza id of the notification (the device's stub message key id). */
  id: string;
  /** Linked devices it was delivered (or held) for. */
  devices: number;
}

/** A group notification (w:gp2 unless `type` says otherwise) to the linked devices of exactly these accounts. */
export function notifyGroupTo(net: SimnetContext, g: Group, actor: Account, change: BinaryNode, recipients: (Account | undefined)[], type = 'w:gp2'): GroupNotified {
  const attrs = { from: g.jid, type, id: net.newId(), t: net.nowSec(), participant: lidJid(actor.lid), ...(actor.addressing.hideNumber ? {} : { participant_pn: pnJid(actor.phone) }), notify: actor.pushName };
  const seen = new Set<Account>();
  let devices = 0;
  for (const acc of recipients) {
    if (!acc || seen.has(acc)) continue;
    seen.add(acc);
    for (const d of acc.activeCompanions()) {
      net.deliver(d, { tag: 'notification', attrs, content: [change] });
      devices++;
    }
  }
  net.counters.inc(`groups.notify.${change.tag}`);
  return { id: attrs.id, devices };
}

/** The community children of a <group> node (<parent>, <linked_parent>, <default_sub_group>, …). */
export function communityNodes(g: Group): BinaryNode[] {
  const out: BinaryNode[] = [];
  if (g.community) {
    out.push({ tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } });
    if (g.community.allowNonAdminSubGroupCreation) out.push({ tag: 'allow_non_admin_sub_group_creation', attrs: {} });
  }
  if (g.linkedParent) out.push({ tag: 'linked_parent', attrs: { jid: g.linkedParent } });
  if (g.defaultSubGroup) out.push({ tag: 'default_sub_group', attrs: {} });
  return out;
}
