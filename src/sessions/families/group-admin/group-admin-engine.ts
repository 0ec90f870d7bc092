// GroupAdminPort over the Baileys engine: each operation runs on the instance's open session (409
// otherwise) within the command timeout; participant changes answer per phone with the network's
// own status; a group picture goes through the outgoing-media pipeline (address guard, size and
// pixel limits), never fetched by Baileys itself.
import type { GroupMetadata } from 'baileys';
import { errors } from '../../../errors.js';
import type { JoinRequestAction, ParticipantAction, ParticipantOutcome, ParticipatingGroup } from '../../../domain/groups.js';
import type { GroupAdminPort } from './group-admin-port.js';
import { groupIdOf, groupJid, phoneJid, userOf } from '../../jids.js';
import type { MediaPipeline } from '../../outbound/media.js';
import { mediaError, sessionCommands, toDomainError, type SessionCommands, type CommandLimit } from '../../engine-call.js';
import { groupCreateKey, inviteLink, toGroupInfo } from './group-info.js';
// Not re-exported by the package root: the parser Baileys' own groupCreate applies to the answer.
import { extractGroupMetadata } from 'baileys/lib/Socket/groups.js';
import type { CreatedGroup, GroupInfo, GroupSettingsChange } from '../../port.js';
import type { LiveSession } from '../../live-session.js';
import { cachedGroup, forgetGroup, rememberGroup, type WASocket } from '../../link/socket-config.js';

interface GroupAdminEngineDeps extends CommandLimit {
  sessionOf(instanceId: string): LiveSession | undefined;
  media: MediaPipeline;
}

export class GroupAdminEngine implements GroupAdminPort {
  private readonly commands: SessionCommands;

  constructor(private readonly deps: GroupAdminEngineDeps) {
    this.commands = sessionCommands(deps);
  }

  /** A change to the group: its cached metadata is dropped once the network accepted it. */
  private change<T>(instanceId: string, groupId: string, fn: (sock: WASocket, session: LiveSession) => Promise<T>): Promise<T> {
    return this.commands.run(instanceId, async (sock, session) => {
      const result = await fn(sock, session);
      forgetGroup(session.caches, session.id, groupJid(groupId));
      return result;
    });
  }

  participating(instanceId: string): Promise<ParticipatingGroup[]> {
    return this.commands.run(instanceId, async (sock, session) => {
      const all = Object.values(await sock.groupFetchAllParticipating());
      for (const meta of all) rememberGroup(session.caches, session.id, meta);
      // A community (its parent group) is no chat: GET /communities lists it.
      return all.filter((m) => !m.isCommunity).map((m: GroupMetadata) => ({ groupId: groupIdOf(m.id), subject: m.subject, creation: (m.creation ?? 0) * 1000 }));
    });
  }

  lightMetadata(instanceId: string, groupId: string): Promise<GroupInfo> {
    return this.commands.run(instanceId, async (sock, session) => {
      // Served from the cache the sends use: it is dropped on every change the network reports
      // (group notifications) and made by this API, and lives 5 minutes; reads then cost no query.
      let meta = cachedGroup(session.caches, session.id, groupJid(groupId));
      if (!meta) {
        meta = await sock.groupMetadata(groupJid(groupId));
        rememberGroup(session.caches, session.id, meta);
      }
      return toGroupInfo(session, meta, null);
    });
  }

  inviteLink(instanceId: string, groupId: string): Promise<string> {
    return this.commands.run(instanceId, async (sock) => {
      const code = await sock.groupInviteCode(groupJid(groupId));
      if (!code) throw errors.networkRefused('the network gave no invitation code');
      return inviteLink(code);
    });
  }

  revokeInviteLink(instanceId: string, groupId: string): Promise<string> {
    return this.commands.run(instanceId, async (sock) => {
      const code = await sock.groupRevokeInvite(groupJid(groupId));
      if (!code) throw errors.networkRefused('the network gave no new invitation code');
      return inviteLink(code);
    });
  }

  acceptInvite(instanceId: string, code: string): Promise<string> {
    return this.commands.run(instanceId, async (sock) => {
      const jid = await sock.groupAcceptInvite(code);
      if (!jid) throw errors.networkRefused('the network did not say which group was joined');
      return groupIdOf(jid);
    });
  }

  leave(instanceId: string, groupId: string): Promise<void> {
    return this.change(instanceId, groupId, (sock) => sock.groupLeave(groupJid(groupId)));
  }

  setSubject(instanceId: string, groupId: string, subject: string): Promise<void> {
    return this.change(instanceId, groupId, (sock) => sock.groupUpdateSubject(groupJid(groupId), subject));
  }

  setDescription(instanceId: string, groupId: string, description: string): Promise<void> {
    // An empty description deletes it (Baileys sends <description delete="true">).
    return this.change(instanceId, groupId, (sock) => sock.groupUpdateDescription(groupJid(groupId), description || undefined));
  }

  async setPicture(instanceId: string, groupId: string, ref: string): Promise<void> {
    this.commands.open(instanceId);
    const image = await this.deps.media.hold(async () => {
      try {
        return (await this.deps.media.image(ref, 'groupPhoto')).data;
      } catch (err) {
        throw mediaError(err);
      }
    });
    await this.commands.run(instanceId, (sock) => sock.updateProfilePicture(groupJid(groupId), image));
  }

  participants(instanceId: string, groupId: string, phones: readonly string[], action: ParticipantAction): Promise<ParticipantOutcome[]> {
    return this.change(instanceId, groupId, async (sock, session) => {
      const answer = await sock.groupParticipantsUpdate(groupJid(groupId), phones.map((p) => phoneJid(p)), action);
      return outcomes(session, phones, answer);
    });
  }

  joinRequests(instanceId: string, groupId: string, phones: readonly string[], action: JoinRequestAction): Promise<ParticipantOutcome[]> {
    return this.change(instanceId, groupId, async (sock, session) => {
      const answer = await sock.groupRequestParticipantsUpdate(groupJid(groupId), phones.map((p) => phoneJid(p)), action);
      return outcomes(session, phones, answer);
    });
  }

  // ---- creation, settings and metadata (the SessionsPort's group operations) ----------------

  /**
   * Creates a group. `requestId` names the request: asked again with the same id (a retry after a
   * crash), the network answers with the group it already made instead of making another.
   */
  createGroup(instanceId: string, subject: string, phones: readonly string[], requestId: string): Promise<CreatedGroup> {
    return this.commands.run(instanceId, async (sock, session) => {
      // Baileys' groupCreate, with the request's key instead of a random one.
      const answer = await sock.query({
        tag: 'iq',
        attrs: { type: 'set', xmlns: 'w:g2', to: '@g.us' },
        content: [
          {
            tag: 'create',
            attrs: { subject, key: groupCreateKey(requestId) },
            content: phones.map((p) => ({ tag: 'participant', attrs: { jid: phoneJid(p) } })),
          },
        ],
      });
      const created = extractGroupMetadata(answer);
      // The create answer lists refused participants too (with an error attribute Baileys drops):
      // only a fresh read tells who is actually in the group.
      const meta = await sock.groupMetadata(created.id);
      rememberGroup(session.caches, session.id, meta);
      const added = new Set(await Promise.all(meta.participants.map((p) => session.phoneOf(p.id, p.phoneNumber ?? null))));
      const me = session.me ? userOf(session.me.pn) : '';
      const code = await sock.groupInviteCode(meta.id).catch(() => undefined);
      return {
        groupId: groupIdOf(meta.id),
        inviteLink: code ? inviteLink(code) : null,
        phonesNotAdded: phones.filter((p) => p !== me && !added.has(p)),
      };
    });
  }

  updateGroupSettings(instanceId: string, groupId: string, change: GroupSettingsChange): Promise<void> {
    const jid = groupJid(groupId);
    return this.commands.run(instanceId, async (sock) => {
      if (change.adminOnlyMessage !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlyMessage ? 'announcement' : 'not_announcement');
      if (change.adminOnlySettings !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlySettings ? 'locked' : 'unlocked');
      if (change.requireAdminApproval !== undefined) await sock.groupJoinApprovalMode(jid, change.requireAdminApproval ? 'on' : 'off');
      if (change.adminOnlyAddMember !== undefined) await sock.groupMemberAddMode(jid, change.adminOnlyAddMember ? 'admin_add' : 'all_member_add');
    });
  }

  groupMetadata(instanceId: string, groupId: string): Promise<GroupInfo> {
    const jid = groupJid(groupId);
    return this.commands.run(instanceId, async (sock, session) => {
      const meta = await sock.groupMetadata(jid);
      rememberGroup(session.caches, session.id, meta);
      // Only admins may read the invite code; for anyone else the link is simply not known.
      const code = await sock.groupInviteCode(jid).catch(() => undefined);
      return toGroupInfo(session, meta, code ? inviteLink(code) : null);
    });
  }

  groupInvitationMetadata(instanceId: string, code: string): Promise<GroupInfo> {
    return this.commands.run(instanceId, async (sock, session) => {
      let meta: GroupMetadata;
      try {
        meta = await sock.groupGetInviteInfo(code);
      } catch (err) {
        const d = toDomainError(err);
        if (d.code === 'network_refused') throw errors.networkRefused(`invitation link revoked or unknown: ${d.detail ?? d.message}`, err);
        throw d;
      }
      return toGroupInfo(session, meta, inviteLink(code));
    });
  }
}

/** The network answers per participant, by jid (phone or LID): matched back to the phones asked for. */
async function outcomes(session: LiveSession, phones: readonly string[], answer: readonly { status: string; jid?: string | undefined }[]): Promise<ParticipantOutcome[]> {
  const byPhone = new Map<string, string>();
  for (const a of answer) if (a.jid) byPhone.set(await session.phoneOf(a.jid, null), a.status);
  // A phone the answer does not name was not acted on.
  return phones.map((phone) => ({ phone, status: byPhone.get(phone) ?? '404' }));
}
