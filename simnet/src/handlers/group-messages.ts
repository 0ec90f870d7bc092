// Group sends from a linked device — placeholder until the groups family lands.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { Simnet } from '../server/simnet.js';
import type { LinkedDevice } from '../network/accounts.js';
import { sendAck } from './messages.js';

export async function handleGroupMessage(net: Simnet, conn: ClientConnection, _dev: LinkedDevice, node: BinaryNode): Promise<void> {
  sendAck(net, conn, node, '404');
}
