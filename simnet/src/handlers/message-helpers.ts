// What the <message> handlers share: the server's ack, the phone's decryption of its pairwise copy,
// remembering polls, bounded inspection lists and the ban. A leaf of handlers/: messages.ts dispatches to
// the group, status, newsletter, receipt and retry handlers, and they take these from here, not from it.
import { proto, unpadRandomMax16, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { SimnetContext } from '../server/context.js';
import type { Account, LinkedDevice, PollMemory } from '../network/accounts.js';
import { lidJid, pnJid } from '../network/jid.js';

/** The server's ack of a client's <message>, with an error code when it refuses it. */
export function sendAck(net: SimnetContext, conn: ClientConnection, node: BinaryNode, error?: string): void {
  const attrs: Record<string, string> = { class: 'message', id: node.attrs.id ?? '', from: node.attrs.to ?? '', t: net.nowSec() };
  if (error) attrs.error = error;
  if (node.attrs.participant) attrs.participant = node.attrs.participant;
  conn.sendNode({ tag: 'ack', attrs });
}

/** Decrypts a pairwise <enc> addressed to an account's phone (device 0). */
export async function phoneDecrypt(phoneAcc: Account, from: LinkedDevice, enc: BinaryNode): Promise<proto.IMessage> {
  const ct = enc.content;
  if (!(ct instanceof Uint8Array)) throw new Error('enc without content');
  const plain = await phoneAcc.phoneSignal.decrypt(from.account.lid, from.id, enc.attrs.type ?? 'msg', ct);
  return proto.Message.decode(unpadRandomMax16(plain));
}

/**
 * A contact remembers polls and events it got or sent (secret, creator and options) so it can vote
 * through the admin API and read the votes, answers and edits that name them.
 */
export function rememberPoll(contact: Account, id: string, msg: proto.IMessage, creatorJid: string, creatorLid?: string): void {
  const poll = msg.pollCreationMessage ?? msg.pollCreationMessageV2 ?? msg.pollCreationMessageV3;
  const secret = msg.messageContextInfo?.messageSecret;
  if ((!poll && !msg.eventMessage) || !secret) return;
  contact.polls.set(id, { secret: Buffer.from(secret), creatorJid, ...(creatorLid ? { creatorLid } : {}), options: (poll?.options ?? []).map((o) => o.optionName ?? '') });
  if (contact.polls.size > 1000) {
    const first = contact.polls.keys().next().value;
    if (first !== undefined) contact.polls.delete(first);
  }
}

/** What describeMessage needs to read a vote, an event answer or an event edit the contact got from `sender`. */
export function secretsOf(contact: Account, sender: Account): { secretOf: (id: string) => PollMemory | undefined; senderJids: string[] } {
  return { secretOf: (id) => contact.polls.get(id), senderJids: [pnJid(sender.phone), lidJid(sender.lid)] };
}

/** Keeps inspection lists bounded so long runs do not grow without limit. */
export function pushBounded<T>(list: T[], item: T, max = 5000): void {
  list.push(item);
  if (list.length > max) list.splice(0, list.length - max);
}

/** The network bans an account: every live device hears failure 403 and later logins fail the same way. */
export function banAccount(net: SimnetContext, acc: Account): void {
  acc.banned = true;
  for (const d of acc.companions.values()) {
    const link = d.link as ClientConnection | null;
    if (link && link.phase !== 'closed') link.endWith({ tag: 'failure', attrs: { reason: '403', location: 'simnet' } });
  }
}
