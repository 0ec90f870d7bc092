// Who is who on one link: a person's phone number behind a LID address (from Baileys' LID↔phone
// mapping, else from the group's metadata), and the incoming context the message mappers read
// (own addresses, sender jids, chat names, remembered lists and messages).
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
  failed(err: unknown, what: string): void;
}

export class Identity {
  constructor(private readonly deps: IdentityDeps) {}

  /**
   * A person's phone number (digits); the LID address only when the network never told us the
   * number. In a group (`group`), members' numbers are in its metadata: the network names the
   * author of a group change by LID only.
   */
  async phoneOf(jid: string | null | undefined, alt?: string | null, group?: string): Promise<string> {
    if (!jid) return '';
    if (!isLid(jid)) return userOf(jid);
    if (alt && !isLid(alt)) return userOf(alt);
    const lid = normalJid(jid);
    const pn = (await this.counterpart(lid)) ?? (group ? await this.phoneInGroup(group, lid) : null);
    return pn ? userOf(pn) : `${userOf(jid)}@lid`;
  }

  incomingContext(): IncomingContext {
    const me = this.deps.me() ?? { pn: '', lid: null };
    const { caches, instanceId, memory } = this.deps;
    return {
      me,
      phoneOf: (jid, alt, group) => this.phoneOf(jid, alt, group),
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
