// xmlns=encrypt: pre-key count, pre-key upload, digest, signed pre-key rotation and pre-key bundle fetches.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { bytesOf, child, childNodes, iqError, iqResult } from '../server/stanza.js';
import { parseJid } from '../network/jid.js';

const be = (n: number, bytes: number): Buffer => {
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(n, 0, bytes);
  return b;
};

/** A device is asked to top up when fewer pre-keys than this remain on the server. */
const LOW_PREKEYS = 5;

export function handleEncryptIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const dev = conn.device;
  const first = childNodes(node)[0];
  if (node.attrs.type === 'get' && first?.tag === 'count') {
    conn.sendNode(iqResult(node, [{ tag: 'count', attrs: { value: String(dev?.preKeys.size ?? 0) } }]));
    return;
  }
  if (node.attrs.type === 'get' && first?.tag === 'digest') {
    conn.sendNode(iqResult(node, [{ tag: 'digest', attrs: {} }]));
    return;
  }
  if (node.attrs.type === 'set' && child(node, 'list')) {
    if (!dev) return void conn.sendNode(iqError(node, 401, 'not-authorized'));
    const reg = bytesOf(child(node, 'registration'));
    if (reg) dev.registrationId = reg.readUIntBE(0, reg.length);
    for (const k of childNodes(child(node, 'list'))) {
      const id = bytesOf(child(k, 'id'));
      const value = bytesOf(child(k, 'value'));
      if (id && value) dev.preKeys.add(id.readUIntBE(0, id.length), value);
    }
    const skey = child(node, 'skey');
    if (skey) dev.signedPreKey = parseSkey(skey) ?? dev.signedPreKey;
    net.counters.inc('prekeys.uploaded');
    conn.sendNode(iqResult(node));
    return;
  }
  if (node.attrs.type === 'set' && first?.tag === 'rotate') {
    const skey = child(first, 'skey');
    if (dev && skey) dev.signedPreKey = parseSkey(skey) ?? dev.signedPreKey;
    conn.sendNode(iqResult(node));
    return;
  }
  if (node.attrs.type === 'get' && first?.tag === 'key') {
    const users: BinaryNode[] = [];
    for (const u of childNodes(first)) {
      const jid = u.attrs.jid ?? '';
      users.push(bundleFor(net, jid));
    }
    conn.sendNode(iqResult(node, [{ tag: 'list', attrs: {}, content: users }]));
    return;
  }
  conn.sendNode(iqResult(node));
}

function parseSkey(skey: BinaryNode): { id: number; pub: Buffer; sig: Buffer } | null {
  const id = bytesOf(child(skey, 'id'));
  const pub = bytesOf(child(skey, 'value'));
  const sig = bytesOf(child(skey, 'signature'));
  if (!id || !pub || !sig) return null;
  return { id: id.readUIntBE(0, id.length), pub, sig };
}

/** One <user> of a key fetch: the phone's bundle (device 0) or a linked device's uploaded bundle with a never-reused pre-key. */
function bundleFor(net: SimnetContext, jid: string): BinaryNode {
  const p = parseJid(jid);
  const acc = p ? net.registry.byUser(p.user, p.server) : undefined;
  const notFound: BinaryNode = { tag: 'user', attrs: { jid }, content: [{ tag: 'error', attrs: { code: '404', text: 'item-not-found' } }] };
  if (!p || !acc) return notFound;
  const content = (reg: number, identity: Buffer, skey: { id: number; pub: Buffer; sig: Buffer }, key: { id: number; pub: Buffer } | null): BinaryNode[] => {
    const out: BinaryNode[] = [
      { tag: 'registration', attrs: {}, content: be(reg, 4) },
      { tag: 'type', attrs: {}, content: Buffer.from([5]) },
      { tag: 'identity', attrs: {}, content: identity },
      {
        tag: 'skey',
        attrs: {},
        content: [
          { tag: 'id', attrs: {}, content: be(skey.id, 3) },
          { tag: 'value', attrs: {}, content: skey.pub },
          { tag: 'signature', attrs: {}, content: skey.sig },
        ],
      },
    ];
    if (key) out.push({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: be(key.id, 3) }, { tag: 'value', attrs: {}, content: key.pub }] });
    return out;
  };
  if (p.device === 0) {
    const b = acc.phoneSignal.issueBundle();
    return { tag: 'user', attrs: { jid }, content: content(b.registrationId, b.identity, b.signedPreKey, b.preKey) };
  }
  const dev = acc.companions.get(p.device);
  if (!dev || dev.removed || !dev.signedPreKey) return notFound;
  const key = dev.preKeys.take() ?? null;
  if (dev.preKeys.size < LOW_PREKEYS && dev.link?.isOnline) {
    dev.link.sendNode({ tag: 'notification', attrs: { from: 's.whatsapp.net', type: 'encrypt', id: net.newId(), t: net.nowSec() }, content: [{ tag: 'count', attrs: { value: String(dev.preKeys.size) } }] });
  }
  return { tag: 'user', attrs: { jid }, content: content(dev.registrationId, dev.identityKey, dev.signedPreKey, key) };
}
