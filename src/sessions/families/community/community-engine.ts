// CommunityPort over the Baileys engine. Communities are groups with a <parent> (their metadata comes
// from the group query); the stanzas Baileys' community calls send are used where their answers are
// read correctly, and built here where they are not: Baileys' communityCreate logs whole nodes at
// info level, its sub-group list drops which group is the announcement group, and it has no call
// for "who may add groups" or deactivation. Each operation runs on the open session within the
// command timeout (409 when not connected).
import { getBinaryNodeChild, getBinaryNodeChildren, type BinaryNode } from 'baileys';
import { randomBytes } from 'node:crypto';
import { DomainError, errors } from '../../../errors.js';
import type { CommunityMetadata, CommunityPort, CommunitySubGroup, CommunitySummary, GroupLinkOutcome, WhoCanAddGroups } from './community-port.js';
import type { ParticipantAction, ParticipantOutcome } from '../../../domain/groups.js';
import { groupIdOf, groupJid, phoneJid } from '../../jids.js';
import { sessionCommands, toDomainError, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import type { LiveSession } from '../../live-session.js';
import { cachedGroup, forgetGroup, rememberGroup, type WASocket } from '../../link/socket-config.js';

interface CommunityEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
}

const communityJid = (communityId: string): string => `${communityId}@g.us`;
const digitsOf = (jid: string): string => jid.split('@')[0] ?? '';

export class CommunityEngine implements CommunityPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: CommunityEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  /** A change to the community: its cached metadata (and its groups') is dropped once accepted. */
  private change<T>(instanceId: string, jids: readonly string[], fn: (sock: WASocket) => Promise<T>): Promise<T> {
    return this.commands.run(instanceId, async (sock, session) => {
      const result = await fn(sock);
      for (const jid of jids) forgetGroup(session.caches, session.id, jid);
      return result;
    });
  }

  create(instanceId: string, name: string, description: string): Promise<{ id: string; subGroups: CommunitySubGroup[] }> {
    return this.commands.run(instanceId, async (sock) => {
      const created = await g2(sock, '@g.us', 'set', {
        tag: 'create',
        attrs: { subject: name },
        content: [
          { tag: 'description', attrs: { id: randomBytes(6).toString('hex').toUpperCase() }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(description, 'utf8') }] },
          // Joining needs an admin's approval, as WhatsApp's own apps create communities.
          { tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } },
        ],
      });
      const id = getBinaryNodeChild(created, 'group')?.attrs.id;
      if (!id) throw errors.networkRefused('the network did not say which community it created');
      const parent = digitsOf(id);
      return { id: parent, subGroups: await subGroups(sock, communityJid(parent)) };
    });
  }

  list(instanceId: string): Promise<CommunitySummary[]> {
    return this.commands.run(instanceId, async (sock, session) => {
      const all = Object.values(await sock.groupFetchAllParticipating());
      for (const meta of all) rememberGroup(session.caches, session.id, meta);
      return all.filter((m) => m.isCommunity).map((m) => ({ id: digitsOf(m.id), name: m.subject }));
    });
  }

  metadata(instanceId: string, communityId: string): Promise<CommunityMetadata> {
    return this.commands.run(instanceId, async (sock, session) => {
      // The community's own metadata from the groups' cache (dropped on every change the network
      // reports); its list of groups is asked each time (link and unlink change it).
      let meta = cachedGroup(session.caches, session.id, communityJid(communityId));
      if (!meta) {
        meta = await sock.groupMetadata(communityJid(communityId));
        rememberGroup(session.caches, session.id, meta);
      }
      if (!meta.isCommunity) throw errors.networkRefused(`${communityId} is a group, not a community`);
      return { id: communityId, name: meta.subject, description: meta.desc ?? '', subGroups: await subGroups(sock, meta.id) };
    });
  }

  link(instanceId: string, communityId: string, groupIds: readonly string[]): Promise<GroupLinkOutcome[]> {
    const jid = communityJid(communityId);
    return this.change(instanceId, [jid, ...groupIds.map((g) => groupJid(g))], (sock) =>
      // One group per query, as WhatsApp's apps link them: one refused group does not stop the others.
      eachGroup(groupIds, (g) => sock.communityLinkGroup(groupJid(g), jid)),
    );
  }

  unlink(instanceId: string, communityId: string, groupIds: readonly string[]): Promise<GroupLinkOutcome[]> {
    const jid = communityJid(communityId);
    return this.change(instanceId, [jid, ...groupIds.map((g) => groupJid(g))], (sock) => eachGroup(groupIds, (g) => sock.communityUnlinkGroup(groupJid(g), jid)));
  }

  setWhoCanAddGroups(instanceId: string, communityId: string, who: WhoCanAddGroups): Promise<void> {
    const jid = communityJid(communityId);
    const tag = who === 'all' ? 'allow_non_admin_sub_group_creation' : 'not_allow_non_admin_sub_group_creation';
    return this.change(instanceId, [jid], async (sock) => {
      await g2(sock, jid, 'set', { tag, attrs: {} });
    });
  }

  deactivate(instanceId: string, communityId: string): Promise<void> {
    const jid = communityJid(communityId);
    return this.change(instanceId, [jid], async (sock) => {
      // The owner deletes the parent: its groups stay, unlinked; the network tells every member.
      await g2(sock, jid, 'set', { tag: 'delete_parent', attrs: {} });
    });
  }

  setDescription(instanceId: string, communityId: string, description: string): Promise<void> {
    const jid = communityJid(communityId);
    // The group stanza (<description prev=…>): Baileys' community variant reads the metadata in a
    // shape the network does not answer. An empty description deletes it.
    return this.change(instanceId, [jid], (sock) => sock.groupUpdateDescription(jid, description || undefined));
  }

  participants(instanceId: string, communityId: string, phones: readonly string[], action: ParticipantAction): Promise<ParticipantOutcome[]> {
    const jid = communityJid(communityId);
    return this.commands.run(instanceId, async (sock, session) => {
      // remove carries linked_groups="true": the person leaves every group of the community.
      const answer = await sock.communityParticipantsUpdate(jid, phones.map((p) => phoneJid(p)), action);
      forgetGroup(session.caches, session.id, jid);
      const byPhone = new Map<string, string>();
      for (const a of answer) if (a.jid) byPhone.set(await session.phoneOf(a.jid, null), a.status);
      return phones.map((phone) => ({ phone, status: byPhone.get(phone) ?? '404' }));
    });
  }
}

/** An iq in the groups namespace; an <error> answer throws (network_refused with its code). */
function g2(sock: WASocket, to: string, type: 'get' | 'set', content: BinaryNode): Promise<BinaryNode> {
  return sock.query({ tag: 'iq', attrs: { type, xmlns: 'w:g2', to }, content: [content] });
}

/** The community's groups, the announcement group (<default_sub_group>) marked. */
async function subGroups(sock: WASocket, jid: string): Promise<CommunitySubGroup[]> {
  const answer = await g2(sock, jid, 'get', { tag: 'sub_groups', attrs: {} });
  return getBinaryNodeChildren(getBinaryNodeChild(answer, 'sub_groups'), 'group').map((g) => ({
    name: g.attrs.subject ?? '',
    phone: groupIdOf(g.attrs.id ?? ''),
    isGroupAnnouncement: !!getBinaryNodeChild(g, 'default_sub_group'),
  }));
}

/** Runs `fn` per group, in order; a refusal is that group's outcome (its code), other failures end the call. */
async function eachGroup(groupIds: readonly string[], fn: (groupId: string) => Promise<void>): Promise<GroupLinkOutcome[]> {
  const out: GroupLinkOutcome[] = [];
  for (const groupId of groupIds) {
    try {
      await fn(groupId);
      out.push({ groupId, status: '200' });
    } catch (err) {
      const d = toDomainError(err);
      if (!(d instanceof DomainError) || d.code !== 'network_refused') throw d;
      out.push({ groupId, status: codeOf(err) });
    }
  }
  return out;
}

/** The <error code> of a refused query (Baileys keeps it in the Boom's data). */
function codeOf(err: unknown): string {
  const data = (err as { data?: unknown }).data;
  return typeof data === 'number' ? String(data) : '500';
}
