// What services may ask of the engine to run communities as WhatsApp's clients do: create one (a
// parent group and its announcement group), list and read them, link and unlink groups, who may
// add groups, deactivate, the description, and the community's members and admins. Communities
// are addressed by their digits (Z-API's communityId); groups by `<digits>-group`. The Baileys
// engine implements it in community-engine.ts.
import { errors } from '../../../errors.js';
import type { ParticipantAction, ParticipantOutcome } from '../../../domain/groups.js';

/** A group of a community, as Z-API shows it. */
export interface CommunitySubGroup {
  name: string;
  /** `<digits>-group` */
  phone: string;
  /** The community's announcement group (every member is in it; admins post). */
  isGroupAnnouncement: boolean;
}

export interface CommunitySummary {
  /** digits */
  id: string;
  name: string;
}

export interface CommunityMetadata extends CommunitySummary {
  description: string;
  subGroups: CommunitySubGroup[];
}

/** What the network answered for one group of a link/unlink: '200' done, else its error code. */
export interface GroupLinkOutcome {
  groupId: string;
  status: string;
}

export type WhoCanAddGroups = 'admins' | 'all';

export interface CommunityPort {
  create(instanceId: string, name: string, description: string): Promise<{ id: string; subGroups: CommunitySubGroup[] }>;
  list(instanceId: string): Promise<CommunitySummary[]>;
  /** 422 (network_refused) when the id is not a community the account is in. */
  metadata(instanceId: string, communityId: string): Promise<CommunityMetadata>;
  link(instanceId: string, communityId: string, groupIds: readonly string[]): Promise<GroupLinkOutcome[]>;
  unlink(instanceId: string, communityId: string, groupIds: readonly string[]): Promise<GroupLinkOutcome[]>;
  setWhoCanAddGroups(instanceId: string, communityId: string, who: WhoCanAddGroups): Promise<void>;
  deactivate(instanceId: string, communityId: string): Promise<void>;
  setDescription(instanceId: string, communityId: string, description: string): Promise<void>;
  /** add / remove (from every group of the community) / promote / demote. */
  participants(instanceId: string, communityId: string, phones: readonly string[], action: ParticipantAction): Promise<ParticipantOutcome[]>;
}

/** No engine: nothing is connected. */
export function offlineCommunities(): CommunityPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    create: refuse,
    list: refuse,
    metadata: refuse,
    link: refuse,
    unlink: refuse,
    setWhoCanAddGroups: refuse,
    deactivate: refuse,
    setDescription: refuse,
    participants: refuse,
  };
}
