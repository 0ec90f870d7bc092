// Who is who on one link: a person's phone number and LID, from what the stanza says (the sender's
// alternate address), Baileys' LID↔phone mapping (kept in the instance's key store: durable and
// shared by every node, docs/design.md "Identities"), else the group's metadata; and the incoming
// context the message mappers read (own addresses, sender jids, chat names, remembered lists and
// messages).
import type { Person } from '../../domain/person.js';
import type { IncomingContext } from '../inbound/incoming.js';
import { isLid, normalJid, userOf } from '../jids.js';
import type { OwnAddress } from '../live-session.js';
import type { MessageMemory } from './message-memory.js';
import { cachedGroup, rememberGroup, type SharedCaches, type WASocket } from './socket-config.js';

export interface IdentityDeps {
  instanceId: string;
  caches: SharedCaches;
  memory: MessageMemory;
  me(): OwnAddress | null;
  /** The link as it is now: its socket, whether it is open, and whether frames are held. */
  link(): { sock: WASocket | null; open: boolean; holding: boolean };
  /** The gateway's clock (incoming.ts stamps what the network sent without a time). */
  now(): number;
  failed(err: unknown, what: string): void;
}

/** Numbers whose LID one link remembers in memory at most. */
const LIDS_REMEMBERED = 10_000;

export class Identity {
  private readonly lidByPhone = new Map<string, string>();

  constructor(private readonly deps: IdentityDeps) {}

  /**
   * A person's phone number (digits); the LID address only when the network never told us the
   * number. In a group (`group`), members' numbers are in its metadata: the network names the
   * author of a group change by LID only.
   */
  async phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string> {
    return (await this.personOf(jid, alt, group)).phone;
  }

  /**
   * A person as payloads name them (docs/contract.md §5): `phone` the number when known, else the
   * `<digits>@lid` address; `lid` the `<digits>@lid` address when known. `alt` is the stanza's
   * alternate address of `jid` (sender_pn / sender_lid), trusted over the stored mapping.
   */
  async personOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<Person> {
    if (!jid) return { phone: '', lid: null };
    if (!isLid(jid)) {
      const phone = userOf(jid);
      const lid = alt && isLid(alt) ? lidAddress(alt) : await this.lidOfPhone(phone);
      return { phone, lid };
    }
    const lid = lidAddress(jid);
    if (alt && !isLid(alt)) return { phone: userOf(alt), lid };
    const pn = (await this.counterpart(normalJid(jid))) ?? (group ? await this.phoneInGroup(group, normalJid(jid)) : null);
    return { phone: pn ? userOf(pn) : lid, lid };
  }

  /** A 1:1 chat as the API names it (digits or `<digits>@lid`) → the person behind it. */
  async personOfChat(chat: string): Promise<Person> {
    if (/^\d+@lid$/.test(chat)) return this.personOf(chat);
    if (/^\d+$/.test(chat)) return { phone: chat, lid: await this.lidOfPhone(chat) };
    return { phone: chat, lid: null };
  }

  incomingContext(): IncomingContext {
    const me = this.deps.me() ?? { pn: '', lid: null };
    const { caches, instanceId, memory } = this.deps;
    return {
      me,
      phoneOf: (jid, alt, group) => this.phoneOf(jid, alt, group),
      personOf: (jid, alt, group) => this.personOf(jid, alt, group),
      senderJids: async (jid, alt) => {
        const out = new Set<string>();
        for (const j of [jid, alt]) if (j) out.add(normalJid(j));
        for (const j of [...out]) {
          const other = await this.counterpart(j);
          if (other) out.add(other);
        }
        return [...out];
      },
      chatName: async (jid) => cachedGroup(caches, instanceId, jid)?.subject ?? '',
      listById: (id) => memory.listById(id),
      latestList: (chat) => memory.latestList(chat),
      stored: (id) => memory.message(id),
      // Messages the API sent carry no links: the files are the ones the client sent.
      media: async () => new Map(),
      now: () => this.deps.now(),
    };
  }

  /** A member's phone from the group's metadata (cached; read once from the network on a miss). */
  private async phoneInGroup(group: string, lid: string): Promise<string | null> {
    const { sock, open, holding } = this.deps.link();
    const { caches, instanceId } = this.deps;
    let meta = cachedGroup(caches, instanceId, group);
    // Not while frames are held for a received message being recorded: the query would wait behind
    // the hold, and the hold for the recording, until the hold's limit (the link looks dead by
    // then). The LID address is reported instead; the next change by this member asks again.
    if (!meta?.participants.some((p) => p.id === lid) && sock && open && !holding) {
      meta = await sock.groupMetadata(group).catch(() => undefined);
      if (meta) rememberGroup(caches, instanceId, meta);
    }
    const member = meta?.participants.find((p) => p.id === lid || p.lid === lid);
    const pn = member?.phoneNumber ?? (member && !isLid(member.id) ? member.id : undefined);
    if (!pn) return null;
    // Remembered, so the next message or change by this member needs no lookup.
    await this.deps.link().sock?.signalRepository.lidMapping.storeLIDPNMappings([{ lid, pn: normalJid(pn) }]).catch(() => undefined);
    return normalJid(pn);
  }

  /**
   * The LID of a number from the stored mapping only: Baileys' getLIDForPN would ask the network
   * (usync) on a miss, which the receive path must never wait for.
   */
  private async lidOfPhone(digits: string): Promise<string | null> {
    const known = this.lidByPhone.get(digits);
    if (known) return known;
    const keys = this.deps.link().sock?.authState.keys;
    if (!keys || !digits) return null;
    try {
      const lidUser = (await keys.get('lid-mapping', [digits]))[digits];
      if (typeof lidUser !== 'string' || !lidUser) return null;
      // A number's LID does not change: remembered (bounded), so our own sends cost no read.
      if (this.lidByPhone.size >= LIDS_REMEMBERED) this.lidByPhone.clear();
      this.lidByPhone.set(digits, `${lidUser}@lid`);
      return `${lidUser}@lid`;
    } catch (err) {
      this.deps.failed(err, 'read the LID of a number');
      return null;
    }
  }

  private async counterpart(jid: string): Promise<string | null> {
    const mapping = this.deps.link().sock?.signalRepository.lidMapping;
    if (!mapping) return null;
    try {
      return isLid(jid) ? await mapping.getPNForLID(jid) : await mapping.getLIDForPN(jid);
    } catch (err) {
      this.deps.failed(err, 'map LID and phone');
      return null;
    }
  }
}

/** `123:4@lid` → `123@lid`: the address payloads carry. */
function lidAddress(jid: string): string {
  return `${userOf(jid)}@lid`;
}
