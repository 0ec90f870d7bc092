// xmlns=usync: contact (exists?), devices (phone + linked devices with key-index) and LID of each queried user.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqResult } from '../server/stanza.js';
import { digitsOf, lidJid, parseJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import { aboutFor } from './profile.js';

export function handleUsync(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const usync = child(node, 'usync');
  const protocols = new Set(childNodes(child(usync, 'query')).map((q) => q.tag));
  const out: BinaryNode[] = [];
  for (const u of childNodes(child(usync, 'list'))) {
    let acc: Account | undefined;
    let jid = u.attrs.jid;
    const contact = child(u, 'contact');
    if (jid) {
      const p = parseJid(jid);
      acc = p ? net.registry.byUser(p.user, p.server) : undefined;
    } else if (contact) {
      const digits = digitsOf(bytesOf(contact)?.toString('utf8') ?? '');
      acc = net.registry.byNumber(digits);
      jid = pnJid(digits);
    }
    if (!jid) continue;
    const content: BinaryNode[] = [];
    if (protocols.has('contact')) content.push({ tag: 'contact', attrs: { type: acc ? 'in' : 'out' } });
    if (protocols.has('devices')) {
      const devices: BinaryNode[] = acc
        ? [{ tag: 'device', attrs: { id: '0' } }, ...acc.activeCompanions().map((d) => ({ tag: 'device', attrs: { id: String(d.id), 'key-index': String(d.keyIndex) } }))]
        : [];
      content.push({ tag: 'devices', attrs: {}, content: [{ tag: 'device-list', attrs: {}, content: devices }] });
    }
    if (protocols.has('lid') && acc && !jid.endsWith('@lid')) content.push({ tag: 'lid', attrs: { val: lidJid(acc.lid) } });
    if (protocols.has('status')) {
      // The about text as the asker may see it (privacy `status`); hidden, the node is empty.
      const about = acc ? aboutFor(acc, conn.device?.account) : null;
      content.push({ tag: 'status', attrs: { t: String(about?.t ?? 0) }, content: Buffer.from(about?.text ?? '') });
    }
    if (protocols.has('disappearing_mode')) content.push({ tag: 'disappearing_mode', attrs: { duration: '0', t: '0' } });
    out.push({ tag: 'user', attrs: { jid }, content });
  }
  net.counters.inc('usync');
  conn.sendNode(
    iqResult(node, [
      {
        tag: 'usync',
        attrs: { sid: usync?.attrs.sid ?? '', mode: usync?.attrs.mode ?? 'query', context: usync?.attrs.context ?? 'interactive', index: '0', last: 'true' },
        content: [{ tag: 'result', attrs: {} }, { tag: 'list', attrs: {}, content: out }],
      },
    ]),
  );
}
