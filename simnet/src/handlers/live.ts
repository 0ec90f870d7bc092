// Client stanzas about live events: <call> (reject), <presence> (own availability, subscriptions), <chatstate> (typing).
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import { handleClientCall } from './calls.js';
import { handleClientChatstate, handleClientPresence } from './presence.js';

export function handleClientLiveStanza(net: SimnetContext, conn: ClientConnection, node: BinaryNode): void {
  if (node.tag === 'call') return handleClientCall(net, conn, node);
  if (node.tag === 'presence') return handleClientPresence(net, conn, node);
  if (node.tag === 'chatstate') return handleClientChatstate(net, conn, node);
}
