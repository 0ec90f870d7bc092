// xmlns=w:g2 — placeholder until the groups family lands.
import type { BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import { iqResult, type Simnet } from '../server/simnet.js';

export function handleGroupIq(_net: Simnet, conn: ClientConnection, node: BinaryNode): void {
  conn.sendNode(iqResult(node));
}
