// GroupAdminPort over the Baileys engine: each operation runs on the instance's open session (409
// otherwise) within the command timeout; participant changes answer per phone with the network's
// own status; a group picture goes through the outgoing-media pipeline (address guard, size and
// pixel limits), never fetched by Baileys itself.
import type { GroupMetadata } from 'baileys';
import { errors } from '../errors.js';
import type { GroupAdminPort, JoinRequestAction, ParticipantAction, ParticipantOutcome, ParticipatingGroup } from './group-admin-port.js';
import { groupIdOf, groupJid, phoneJid } from './jids.js';
import type { MediaPipeline } from './media.js';
import { mediaError, sessionCommands, type SessionCommands } from './engine-call.js';
import { inviteLink, toGroupInfo } from './operations.js';
import type { GroupInfo } from './port.js';
import type { LiveSession } from './live-session.js';
import { cachedGroup, forgetGroup, rememberGroup, type WASocket } from './socket-config.js';

interface GroupAdminEngineDeps {
  sessionOf(instanceId: string): LiveSession | undefined;
  media: MediaPipeline;
  commandTimeoutMs: number;
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
}

/** The network answers per participant, by jid (phone or LID): matched back to the phones asked for. */
async function outcomes(session: LiveSession, phones: readonly string[], answer: readonly { status: string; jid?: string | undefined }[]): Promise<ParticipantOutcome[]> {
  const byPhone = new Map<string, string>();
  for (const a of answer) if (a.jid) byPhone.set(await session.phoneOf(a.jid, null), a.status);
  // A phone the answer does not name was not acted on.
  return phones.map((phone) => ({ phone, status: byPhone.get(phone) ?? '404' }));
}
