// A linked device sets or removes a group's picture (w:profile:picture with a group target), as
// the real server takes it: members only, admins only when the group's info is locked; the bytes
// are served by the media host and every member device hears a type="picture" notification.
import { randomInt } from 'node:crypto';
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, iqError, iqResult } from '../server/stanza.js';
import { lidJid, pnJid } from '../network/jid.js';
import { notifyGroupTo } from './group-notify.js';

/** Handles a set on a group target; false when the iq is not that. */
export function handleGroupPictureSet(net: SimnetContext, conn: ClientConnection, node: BinaryNode): boolean {
  const target = node.attrs.target ?? '';
  if (node.attrs.type !== 'set' || !target.endsWith('@g.us')) return false;
  const me = conn.device?.account;
  const g = net.groups.get(target);
  if (!me || !g) return void conn.sendNode(iqError(node, 404, 'item-not-found')), true;
  const member = g.participants.get(me.phone);
  if (!member) return void conn.sendNode(iqError(node, 403, 'forbidden')), true;
  if (g.locked && !member.role) return void conn.sendNode(iqError(node, 401, 'not-authorized')), true;
  const bytes = bytesOf(child(node, 'picture'));
  if (bytes) {
    g.pictureId = String(randomInt(1_000_000_000, 2_000_000_000));
    const directPath = net.media ? net.media.put(Buffer.from(bytes), 'profile', { uploader: me.phone }) : `/v/t61.24694-24/${g.pictureId}.jpg`;
    g.picture = { bytes: Buffer.from(bytes), directPath };
  } else {
    g.pictureId = null;
    g.picture = null;
  }
  const author = { author: lidJid(me.lid), author_pn: pnJid(me.phone) };
  const change: BinaryNode = g.pictureId ? { tag: 'set', attrs: { jid: g.jid, id: g.pictureId, ...author } } : { tag: 'delete', attrs: { jid: g.jid, ...author } };
  notifyGroupTo(net, g, me, change, g.members().map((m) => net.registry.byNumber(m.phone)), 'picture');
  net.counters.inc('group.picture');
  conn.sendNode(iqResult(node, g.pictureId ? [{ tag: 'picture', attrs: { id: g.pictureId } }] : undefined));
  return true;
}
