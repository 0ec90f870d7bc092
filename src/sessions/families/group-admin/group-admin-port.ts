// What services may ask of the engine to run a group as WhatsApp's clients do: list the groups the
// account is in, read a group without its invite link, manage the link, join and leave, edit the
// subject, description and picture, and change participants, admins and join requests. The Baileys
// engine implements it in group-admin-engine.ts.
import { errors } from '../../../errors.js';
import type { JoinRequestAction, ParticipantAction, ParticipantOutcome, ParticipatingGroup } from '../../../domain/groups.js';
import type { GroupInfo } from '../../port.js';

export interface GroupAdminPort {
  participating(instanceId: string): Promise<ParticipatingGroup[]>;
  /** The group's metadata without asking for its invite link (Z-API's light-group-metadata). */
  lightMetadata(instanceId: string, groupId: string): Promise<GroupInfo>;
  /** The group's invitation link (admins only). */
  inviteLink(instanceId: string, groupId: string): Promise<string>;
  /** Revokes the link and answers the new one (admins only). */
  revokeInviteLink(instanceId: string, groupId: string): Promise<string>;
  /** Joins by an invitation code; answers the group's `<digits>-group` id. */
  acceptInvite(instanceId: string, code: string): Promise<string>;
  leave(instanceId: string, groupId: string): Promise<void>;
  setSubject(instanceId: string, groupId: string, subject: string): Promise<void>;
  setDescription(instanceId: string, groupId: string, description: string): Promise<void>;
  /** `ref`: an https URL or a data URI, through the outgoing-media pipeline. */
  setPicture(instanceId: string, groupId: string, ref: string): Promise<void>;
  participants(instanceId: string, groupId: string, phones: readonly string[], action: ParticipantAction): Promise<ParticipantOutcome[]>;
  joinRequests(instanceId: string, groupId: string, phones: readonly string[], action: JoinRequestAction): Promise<ParticipantOutcome[]>;
}

/** No engine: nothing is connected. */
export function offlineGroupAdmin(): GroupAdminPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    participating: refuse,
    lightMetadata: refuse,
    inviteLink: refuse,
    revokeInviteLink: refuse,
    acceptInvite: refuse,
    leave: refuse,
    setSubject: refuse,
    setDescription: refuse,
    setPicture: refuse,
    participants: refuse,
    joinRequests: refuse,
  };
}
