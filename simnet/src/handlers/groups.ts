// xmlns=w:g2: create (some participants addable, some not; deduplicated by creator and key), metadata, invite code/info/accept, settings with their w:gp2 notifications.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { memberAttrs } from '../network/addressing.js';
import { isGroupJid, lidJid, parseJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import { handleJoinRequestIq } from './group-actions.js';
import { handleCommunityIq } from './communities.js';
import { groupNode, notifyGroup } from './group-notify.js';

function resolveParticipant(net: SimnetContext, jid: string | undefined): Account | undefined {
  const p = parseJid(jid);
  return p ? net.registry.byUser(p.user, p.server) : undefined;
}

export function handleGroupIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const me = conn.device?.account;
  if (!me) return void conn.sendNode(iqError(node, 401, 'not-authorized'));
  const to = node.attrs.to ?? '';
  const op = childNodes(node)[0];
  if (!op) return void conn.sendNode(iqError(node, 400, 'bad-request'));
  if (handleCommunityIq(net, conn, node, me, op)) return;
  if (to === '@g.us' || !isGroupJid(to)) return topLevel(net, conn, node, me, op);
  const g = net.groups.get(to);
  if (!g) return void conn.sendNode(iqError(node, 404, 'item-not-found'));
  const member = g.participants.get(me.phone);
  if (!member) return void conn.sendNode(iqError(node, 403, 'forbidden'));
  const isAdmin = !!member.role;
  const type = node.attrs.type;
  if (type === 'get' && op.tag === 'query') {
    net.counters.inc('group.query');
    return void conn.sendNode(iqResult(node, [groupNode(net, g)]));
  }
  if (handleJoinRequestIq(net, conn, node, g, me, op)) return;
  if (op.tag === 'invite') {
    if (!isAdmin) return void conn.sendNode(iqError(node, 401, 'not-authorized'));
    if (type === 'set') {
      net.groups.revokeInvite(g);
      notifyGroup(net, g, me, { tag: 'invite', attrs: { code: g.inviteCode } });
    }
    return void conn.sendNode(iqResult(node, [{ tag: 'invite', attrs: { code: g.inviteCode } }]));
  }
  if (type !== 'set') return void conn.sendNode(iqResult(node));
  const adminOnly = !['leave'].includes(op.tag) && !(op.tag === 'add' && g.memberAddMode === 'all_member_add') && !((op.tag === 'subject' || op.tag === 'description') && !g.locked);
  if (adminOnly && !isAdmin) return void conn.sendNode(iqError(node, 401, 'not-authorized'));
  switch (op.tag) {
    case 'announcement':
    case 'not_announcement':
      g.announce = op.tag === 'announcement';
      notifyGroup(net, g, me, { tag: op.tag, attrs: {} });
      break;
    case 'locked':
    case 'unlocked':
      g.locked = op.tag === 'locked';
      notifyGroup(net, g, me, { tag: op.tag, attrs: {} });
      break;
    case 'member_add_mode': {
      const mode = bytesOf(op)?.toString('utf8');
      if (mode !== 'admin_add' && mode !== 'all_member_add') return void conn.sendNode(iqError(node, 400, 'bad-request'));
      g.memberAddMode = mode;
      notifyGroup(net, g, me, { tag: 'member_add_mode', attrs: {}, content: Buffer.from(mode) });
      break;
    }
    case 'membership_approval_mode': {
      const state = child(op, 'group_join')?.attrs.state;
      g.joinApproval = state === 'on';
      notifyGroup(net, g, me, { tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: g.joinApproval ? 'on' : 'off' } }] });
      break;
    }
    case 'subject':
      g.subject = bytesOf(op)?.toString('utf8') ?? g.subject;
      g.subjectTime = Math.floor(net.now() / 1000);
      notifyGroup(net, g, me, { tag: 'subject', attrs: { subject: g.subject, s_o: lidJid(me.lid), s_t: String(g.subjectTime) } });
      break;
    case 'description': {
      g.description = op.attrs.delete === 'true' ? '' : (bytesOf(child(op, 'body'))?.toString('utf8') ?? '');
      notifyGroup(net, g, me, { tag: 'description', attrs: { id: op.attrs.id ?? 'simnet' }, content: g.description ? [{ tag: 'body', attrs: {}, content: Buffer.from(g.description) }] : [] });
      break;
    }
    case 'add':
    case 'remove':
    case 'promote':
    case 'demote': {
      const results: BinaryNode[] = [];
      const changed: Account[] = [];
      for (const p of childNodes(op)) {
        const acc = resolveParticipant(net, p.attrs.jid);
        let error: string | undefined;
        if (!acc) error = '404';
        else if (op.tag === 'add') {
          if (g.participants.has(acc.phone)) error = '409';
          else if (!acc.groupAddable) error = '403';
          else g.participants.set(acc.phone, { phone: acc.phone, role: null });
        } else if (!g.participants.has(acc.phone)) error = '404';
        else if (op.tag === 'remove') g.participants.delete(acc.phone);
        else g.participants.get(acc.phone)!.role = op.tag === 'promote' ? 'admin' : null;
        if (!error && acc) changed.push(acc);
        results.push({ tag: 'participant', attrs: { jid: p.attrs.jid ?? '', ...(error ? { error } : {}) } });
      }
      if (changed.length) {
        notifyGroup(
          net,
          g,
          me,
          { tag: op.tag, attrs: {}, content: changed.map((a) => ({ tag: 'participant', attrs: { ...memberAttrs(a) } })) },
          op.tag === 'remove' ? changed : [],
        );
      }
      return void conn.sendNode(iqResult(node, [{ tag: op.tag, attrs: {}, content: results }]));
    }
    case 'ephemeral':
    case 'not_ephemeral':
      notifyGroup(net, g, me, op);
      break;
    default:
      break;
  }
  conn.sendNode(iqResult(node));
}

function topLevel(net: SimnetContext, conn: ClientConnection, node: BinaryNode, me: Account, op: BinaryNode): void {
  if (op.tag === 'create' && node.attrs.type === 'set') {
    const key = op.attrs.key;
    const made = key ? net.groups.createdWithKey(me.phone, key) : undefined;
    if (made) {
      // A repeated create (same creator, same key) is answered with the group the first one made,
      // as it is now: nothing is created, nobody is added or notified again.
      net.counters.inc('groups.create_repeated');
      return void conn.sendNode(iqResult(node, [groupNode(net, made)]));
    }
    const g = net.groups.create(op.attrs.subject ?? '', me.phone, key);
    g.participants.set(me.phone, { phone: me.phone, role: 'superadmin' });
    const failed: BinaryNode[] = [];
    for (const p of childNodes(op)) {
      const acc = resolveParticipant(net, p.attrs.jid);
      if (!acc) failed.push({ tag: 'participant', attrs: { jid: p.attrs.jid ?? '', error: '404' } });
      else if (!acc.groupAddable) failed.push({ tag: 'participant', attrs: { jid: p.attrs.jid ?? '', error: '403' }, content: [{ tag: 'add_request', attrs: { code: 'simnet', expiration: String(Math.floor(net.now() / 1000) + 3 * 86400) } }] });
      else if (acc !== me) g.participants.set(acc.phone, { phone: acc.phone, role: null });
    }
    net.counters.inc('groups.created');
    const gn = groupNode(net, g);
    // Participants that could not be added are listed with their error, as the real server does.
    conn.sendNode(iqResult(node, [{ ...gn, content: [...(gn.content as BinaryNode[]), ...failed] }]));
    notifyGroup(net, g, me, { tag: 'create', attrs: {}, content: [groupNode(net, g)] });
    return;
  }
  if (op.tag === 'invite' && op.attrs.code) {
    const code = op.attrs.code;
    const g = net.groups.byInviteCode(code);
    if (!g) {
      const revoked = net.groups.wasRevoked(code);
      return void conn.sendNode(iqError(node, revoked ? 410 : 406, revoked ? 'gone' : 'not-acceptable'));
    }
    if (node.attrs.type === 'get') return void conn.sendNode(iqResult(node, [groupNode(net, g)]));
    if (!g.participants.has(me.phone)) {
      g.participants.set(me.phone, { phone: me.phone, role: null });
      notifyGroup(net, g, me, { tag: 'add', attrs: { reason: 'invite' }, content: [{ tag: 'participant', attrs: { ...memberAttrs(me) } }] });
    }
    return void conn.sendNode(iqResult(node, [{ tag: 'group', attrs: { jid: g.jid } }]));
  }
  if (op.tag === 'participating') {
    const groups = [...net.groups.all()].filter((g) => g.participants.has(me.phone)).map((g) => groupNode(net, g));
    return void conn.sendNode(iqResult(node, [{ tag: 'groups', attrs: {}, content: groups }]));
  }
  if (op.tag === 'leave') {
    for (const gn of childNodes(op)) {
      const g = net.groups.get(gn.attrs.id ?? '');
      if (g?.participants.delete(me.phone)) {
        notifyGroup(net, g, me, { tag: 'leave', attrs: {}, content: [{ tag: 'participant', attrs: { ...memberAttrs(me) } }] }, [me]);
      }
    }
    return void conn.sendNode(iqResult(node));
  }
  conn.sendNode(iqResult(node));
}
