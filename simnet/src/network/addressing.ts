// How the network names a person to the linked devices it delivers to: by phone number with the
// LID beside it, or by LID with the number beside it, or — when the person hides their number —
// by LID alone. The attribute names are the server's (`sender_pn`, `sender_lid`, `participant_pn`,
// `phone_number`), the ones Baileys reads (its decode-wa-message extractAddressingContext).
import type { Account } from './accounts.js';
import { lidJid, pnJid } from './jid.js';

/** The sender attributes of a 1:1 stanza from `sender`'s phone (device 0 unless given). */
export function directSender(sender: Account, device = 0): Record<string, string> {
  if (!sender.addressing.lid && !sender.addressing.hideNumber) return { from: pnJid(sender.phone, device), sender_lid: lidJid(sender.lid, device) };
  return { from: lidJid(sender.lid, device), ...(sender.addressing.hideNumber ? {} : { sender_pn: pnJid(sender.phone, device) }) };
}

/** The sender attributes of a group stanza (groups are LID-addressed). */
export function groupSender(sender: Account, device = 0): Record<string, string> {
  return { participant: lidJid(sender.lid, device), ...(sender.addressing.hideNumber ? {} : { participant_pn: pnJid(sender.phone, device) }), addressing_mode: 'lid' };
}

/** A member as group metadata and w:gp2 notifications list it: the number only when it is shown. */
export function memberAttrs(acc: Pick<Account, 'lid' | 'phone' | 'addressing'>): Record<string, string> {
  return { jid: lidJid(acc.lid), ...(acc.addressing.hideNumber ? {} : { phone_number: pnJid(acc.phone) }) };
}

/** How the contact's own address appears in chat-level stanzas (receipts, presence) of 1:1 chats. */
export function directAddress(acc: Account): string {
  return acc.addressing.lid || acc.addressing.hideNumber ? lidJid(acc.lid) : pnJid(acc.phone);
}
