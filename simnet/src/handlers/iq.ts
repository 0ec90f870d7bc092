// Routes client <iq> stanzas by xmlns to their families; anything simnet does not model gets an empty result (never silence).
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, childNodes, iqResult } from '../server/stanza.js';
import { handleEncryptIq } from './keys.js';
import { handleUsync } from './usync.js';
import { onActive } from './login.js';
import { handleAppStateIq } from './app-state.js';
import { handleGroupIq } from './groups.js';
import { handleMdIq } from './devices.js';
import { handleGroupPictureSet } from './group-picture.js';
import { handleMexIq, handleNewsletterIq } from './newsletters.js';
import { handleBusinessIq } from './business-profile.js';
import { handleCatalogIq } from './catalog.js';
import { handleBlocklistIq, handleDisappearingIq, handlePrivacyIq, handleProfilePictureIq, handleStatusIq } from './profile.js';

const PRIVACY = { readreceipts: 'all', last: 'all', online: 'all', profile: 'all', status: 'all', groupadd: 'all', calladd: 'all', messages: 'all' };

export function handleIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const type = node.attrs.type;
  if (type === 'result' || type === 'error') {
    // Answers to our own iqs: only pair-device-sign matters.
    if (child(node, 'pair-device-sign')) net.pairing.handlePairDeviceSign(conn);
    return;
  }
  switch (node.attrs.xmlns) {
    case 'md':
      return handleMdIq(net, conn, node);
    case 'encrypt':
      return handleEncryptIq(net, conn, node);
    case 'usync':
      return handleUsync(net, conn, node);
    case 'passive':
      conn.sendNode(iqResult(node));
      if (child(node, 'active')) onActive(net, conn);
      return;
    case 'w:p':
      conn.sendNode(iqResult(node));
      return;
    case 'abt':
      conn.sendNode(iqResult(node, [{ tag: 'props', attrs: { protocol: '1', hash: 'simnet' }, content: [] }]));
      return;
    case 'blocklist':
      return handleBlocklistIq(net, conn, node);
    case 'status':
      return handleStatusIq(net, conn, node);
    case 'disappearing_mode':
      return handleDisappearingIq(net, conn, node);
    case 'privacy':
      if (!child(node, 'tokens') && handlePrivacyIq(net, conn, node)) return;
      if (type === 'get' && child(node, 'privacy')) {
        conn.sendNode(
          iqResult(node, [{ tag: 'privacy', attrs: {}, content: Object.entries(PRIVACY).map(([name, value]) => ({ tag: 'category', attrs: { name, value } })) }]),
        );
        return;
      }
      if (child(node, 'tokens')) {
        const tokens = childNodes(child(node, 'tokens')).map((t) => ({ tag: 'token', attrs: { jid: t.attrs.jid ?? '', t: t.attrs.t ?? net.nowSec(), type: 'trusted_contact' } }));
        conn.sendNode(iqResult(node, [{ tag: 'tokens', attrs: {}, content: tokens }]));
        return;
      }
      conn.sendNode(iqResult(node));
      return;
    case 'w:m':
      if (!net.media) return void conn.sendNode(iqResult(node));
      conn.sendNode(
        iqResult(node, [
          {
            tag: 'media_conn',
            attrs: { auth: net.media.auth, ttl: '3600', auth_ttl: '21600', max_buckets: '12' },
            content: [{ tag: 'host', attrs: { hostname: net.media.hostname, maxContentLengthBytes: String(100 * 1024 * 1024) } }],
          },
        ]),
      );
      return;
    case 'w:sync:app:state':
      return handleAppStateIq(net, conn, node);
    case 'w:g2':
      return handleGroupIq(net, conn, node);
    case 'w:mex':
      return handleMexIq(net, conn, node);
    case 'newsletter':
      return handleNewsletterIq(net, conn, node);
    case 'w:biz':
      if (!handleBusinessIq(net, conn, node)) conn.sendNode(iqResult(node));
      return;
    case 'w:biz:catalog':
      return handleCatalogIq(net, conn, node);
    case 'w:profile:picture': {
      if (handleProfilePictureIq(net, conn, node)) return;
      if (handleGroupPictureSet(net, conn, node)) return;
      // A group picture set by an admin (groupAction picture) has a URL; anything else answers without one, as before.
      const g = net.groups.get(node.attrs.target ?? '');
      if (type === 'get' && g?.pictureId && g.participants.has(conn.device?.account.phone ?? '')) {
        const directPath = g.picture?.directPath ?? `/v/t61.24694-24/${g.pictureId}.jpg`;
        const url = `https://${net.media?.hostname ?? 'mmg.whatsapp.net'}${directPath}`;
        conn.sendNode(iqResult(node, [{ tag: 'picture', attrs: { id: g.pictureId, type: child(node, 'picture')?.attrs.type ?? 'preview', url, direct_path: directPath } }]));
        return;
      }
      conn.sendNode(iqResult(node));
      return;
    }
    default:
      conn.sendNode(iqResult(node));
  }
}
