// xmlns=md: code-pairing stages and companion removal (client logout); plus the phone unlinking a device (admin).
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { child, iqResult } from '../server/stanza.js';
import type { LinkedDevice } from '../network/accounts.js';

export function handleMdIq(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  const reg = child(node, 'link_code_companion_reg');
  if (reg) return net.pairing.handleLinkCode(conn, node, reg);
  if (child(node, 'remove-companion-device') && conn.device) {
    // The companion logs itself out: forget it, as the phone would.
    removeDevice(net, conn.device, false);
    conn.sendNode(iqResult(node));
    return;
  }
  conn.sendNode(iqResult(node));
}

/** The phone removes a linked device: it is gone for good; a live connection hears 401 device_removed. */
export function removeDevice(net: SimnetContext, dev: LinkedDevice, notify: boolean): void {
  dev.removed = true;
  dev.offline = [];
  dev.preKeys.clear();
  net.counters.inc('devices.removed');
  const link = dev.link as ClientConnection | null;
  if (notify && link && link.phase !== 'closed') {
    link.endWith({ tag: 'stream:error', attrs: { code: '401' }, content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }] });
  }
}
