// ChatsPort over the Baileys engine: chat changes go out as app-state patches (Baileys' chatModify,
// which the phone and the other devices apply), contacts are looked up by usync and profile IQs.
// Failures become domain errors through withTimeout, as every other operation.
import type { ChatModification, MinimalMessage } from 'baileys';
import type { AddressBookName, ChatAction, ChatsPort, LastMessageRef, NetworkContact } from './chats-port.js';
import { errors } from '../../../errors.js';
import { openSocket, withTimeout, type CommandLimit } from '../../engine-call.js';
import { profilePictureUrl } from '../account/account-ops.js';
import { phoneJid } from '../../jids.js';
import type { PhoneCheck } from '../../port.js';
import type { LiveSession } from '../../live-session.js';

interface ChatsEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  checkPhones(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]>;
}

/** WhatsApp's "mute for ever". */
const MUTE_FOREVER = -1;

export class ChatsEngine implements ChatsPort {
  constructor(private readonly deps: ChatsEngineDeps) {}

  async modifyChat(instanceId: string, jid: string, action: ChatAction, last: LastMessageRef | null): Promise<void> {
    const { sock } = openSocket(this.deps.sessionOf(instanceId));
    const mod = modificationOf(jid, action, last);
    await withTimeout(this.deps, () => sock.chatModify(mod, jid));
  }

  async contact(instanceId: string, phone: string): Promise<NetworkContact> {
    const { session, sock } = openSocket(this.deps.sessionOf(instanceId));
    const [check] = await this.deps.checkPhones(instanceId, [phone]);
    if (!check?.exists) return { exists: false, phone, lid: null, imgUrl: null, about: null };
    const digits = check.outputPhone;
    const [imgUrl, about] = await Promise.all([
      profilePictureUrl(session, digits, this.deps),
      withTimeout(this.deps, async () => {
        const list = await sock.fetchStatus(phoneJid(digits));
        return (list?.[0] as { status?: { status?: string | null } } | undefined)?.status?.status ?? null;
      }),
    ]);
    return { exists: true, phone: digits, lid: check.lid, imgUrl, about };
  }

  async saveContact(instanceId: string, phone: string, name: AddressBookName | null): Promise<string> {
    const { session, sock } = openSocket(this.deps.sessionOf(instanceId));
    if (!name) {
      session.chats.expectOwnContactChange(phone);
      await withTimeout(this.deps, () => sock.removeContact(phoneJid(phone)));
      return phone;
    }
    // Only WhatsApp users can be saved (the entry names their jid); the network's form of the number
    // (e.g. Brazil's ninth digit) is the one saved.
    const [check] = await this.deps.checkPhones(instanceId, [phone]);
    if (!check?.exists) throw errors.networkRefused(`${phone} is not on WhatsApp`);
    const jid = phoneJid(check.outputPhone);
    session.chats.expectOwnContactChange(check.outputPhone);
    const fullName = name.lastName ? `${name.firstName} ${name.lastName}` : name.firstName;
    // saveOnPrimaryAddressbook: the phone writes it to its own contacts too (Z-API's "save to the phone").
    await withTimeout(this.deps, () => sock.addOrEditContact(jid, { fullName, firstName: name.firstName, saveOnPrimaryAddressbook: true }));
    return check.outputPhone;
  }
}

function modificationOf(jid: string, action: ChatAction, last: LastMessageRef | null): ChatModification {
  // The message range: the newest message the change covers (none known: an empty range).
  const lastMessages: MinimalMessage[] | { messages: never[] } = last
    ? [{ key: { remoteJid: jid, id: last.id, fromMe: last.fromMe }, messageTimestamp: Math.floor(last.at / 1000) }]
    : { messages: [] };
  switch (action) {
    case 'archive':
    case 'unarchive':
      return { archive: action === 'archive', lastMessages };
    case 'read':
    case 'unread':
      return { markRead: action === 'read', lastMessages };
    case 'pin':
    case 'unpin':
      return { pin: action === 'pin' };
    case 'mute':
      return { mute: MUTE_FOREVER };
    case 'unmute':
      return { mute: null };
    case 'clear':
      return { clear: true, lastMessages };
    case 'delete':
      return { delete: true, lastMessages };
  }
}
