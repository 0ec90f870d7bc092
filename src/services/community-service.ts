// Communities (Z-API's communities tag): create, list, read, link and unlink groups, who may add
// groups, deactivate, the description, and the community's members and admins. Input is checked
// before anything is sent; a change the network refuses for some groups or phones says which.
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import { inviteText } from './auto-invite.js';
import type { CommunityMetadata, CommunityPort, CommunitySubGroup, CommunitySummary, GroupLinkOutcome, WhoCanAddGroups } from '../sessions/families/community/community-port.js';
import type { ParticipantAction } from '../domain/groups.js';
import type { GroupAdminPort } from '../sessions/families/group-admin/group-admin-port.js';
import type { SessionsPort } from '../sessions/port.js';
import type { Instance } from '../domain/instance.js';
import { answer, MAX_PHONES_PER_CHANGE, type ParticipantsChange } from './group-admin-service.js';
import type { GroupsService } from './groups-service.js';
import type { MessagesService } from './messages-service.js';

/** Groups a community holds besides its announcement group (WhatsApp's limit): one link call names at most these. */
export const MAX_COMMUNITY_GROUPS = 50;

/** Z-API's community id is the parent group's digits; `<digits>-group` and `<digits>@g.us` are taken too. */
function parseCommunityId(raw: string, field = 'communityId'): string {
  const m = /^(\d{5,40})(?:-group|@g\.us)?$/.exec(raw.trim());
  if (!m?.[1]) throw errors.invalidInput(`${field}: must be a community id (its digits, as GET /communities lists them)`);
  return m[1];
}

/** Link/unlink answer: Z-API's `success`, and the groups the network refused with its reason. */
interface GroupLinkChange {
  success: boolean;
  errors: { phone: string; error: string }[];
}

export class CommunityService {
  constructor(
    private readonly port: CommunityPort,
    private readonly groupAdmin: Pick<GroupAdminPort, 'inviteLink'>,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly groups: Pick<GroupsService, 'resolveGroupId'>,
    private readonly messages: Pick<MessagesService, 'send'>,
  ) {}

  async create(instanceId: string, name: string, description = ''): Promise<{ id: string; subGroups: CommunitySubGroup[] }> {
    const subject = name.trim();
    if (!subject) throw errors.invalidInput('name: must not be blank');
    this.connected(instanceId);
    return this.port.create(instanceId, subject, description.trim());
  }

  /** The communities the account is in, by name; paged. */
  async list(instanceId: string, page: number, pageSize: number): Promise<CommunitySummary[]> {
    this.connected(instanceId);
    const all = await this.port.list(instanceId);
    all.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    return all.slice((page - 1) * pageSize, page * pageSize);
  }

  async metadata(instanceId: string, rawId: string): Promise<CommunityMetadata> {
    return this.port.metadata(instanceId, this.community(instanceId, rawId));
  }

  async link(instanceId: string, rawId: string, groupsPhones: readonly string[]): Promise<GroupLinkChange> {
    const id = parseCommunityId(rawId);
    const groups = await this.groupIds(instanceId, groupsPhones);
    this.connected(instanceId);
    return linkAnswer(await this.port.link(instanceId, id, groups));
  }

  async unlink(instanceId: string, rawId: string, groupsPhones: readonly string[]): Promise<GroupLinkChange> {
    const id = parseCommunityId(rawId);
    const groups = await this.groupIds(instanceId, groupsPhones);
    this.connected(instanceId);
    return linkAnswer(await this.port.unlink(instanceId, id, groups));
  }

  async settings(instanceId: string, rawId: string, who: WhoCanAddGroups): Promise<void> {
    await this.port.setWhoCanAddGroups(instanceId, this.community(instanceId, rawId), who);
  }

  async deactivate(instanceId: string, rawId: string): Promise<void> {
    await this.port.deactivate(instanceId, this.community(instanceId, rawId));
  }

  async setDescription(instanceId: string, rawId: string, description: string): Promise<void> {
    await this.port.setDescription(instanceId, this.community(instanceId, rawId), description.trim());
  }

  /**
   * Members and admins of the whole community: add puts them in it and its announcement group;
   * remove takes them out of every group of the community. With `autoInvite`, phones the network
   * would not add get the community's invitation link as a private message, through the queue.
   */
  async participants(instance: Instance, rawId: string, rawPhones: readonly string[], action: ParticipantAction, autoInvite = false): Promise<ParticipantsChange & { phonesNotAdded?: string[] }> {
    if (rawPhones.length > MAX_PHONES_PER_CHANGE) throw errors.invalidInput(`phones: at most ${MAX_PHONES_PER_CHANGE} per call`);
    const phones = rawPhones.map((p, i) => parsePhone(p, `phones[${i}]`));
    if (new Set(phones).size !== phones.length) throw errors.invalidInput('phones: every phone must be unique');
    const id = this.community(instance.id, rawId);
    const change = answer(await this.port.participants(instance.id, id, phones, action));
    if (action !== 'add') return change;
    const notAdded = change.errors.map((e) => e.phone);
    if (autoInvite && notAdded.length > 0) {
      const [link, meta] = await Promise.all([this.groupAdmin.inviteLink(instance.id, `${id}-group`), this.port.metadata(instance.id, id)]);
      for (const phone of notAdded) await this.messages.send(instance, { phone }, { type: 'text', message: inviteText(meta.name, link) });
    }
    return { ...change, phonesNotAdded: notAdded };
  }

  /** `<digits>-group` ids (finished pending ids too), unique, at most a community's worth. */
  private async groupIds(instanceId: string, raw: readonly string[]): Promise<string[]> {
    if (raw.length > MAX_COMMUNITY_GROUPS) throw errors.invalidInput(`groupsPhones: at most ${MAX_COMMUNITY_GROUPS} per call`);
    const ids: string[] = [];
    for (const [i, g] of raw.entries()) ids.push(await this.groups.resolveGroupId(instanceId, g, `groupsPhones[${i}]`));
    if (new Set(ids).size !== ids.length) throw errors.invalidInput('groupsPhones: every group must be unique');
    return ids;
  }

  /** The community's digits; the instance must be connected. */
  private community(instanceId: string, raw: string): string {
    const id = parseCommunityId(raw);
    this.connected(instanceId);
    return id;
  }

  private connected(instanceId: string): void {
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
  }
}

function linkAnswer(outcome: readonly GroupLinkOutcome[]): GroupLinkChange {
  const failed = outcome.filter((o) => o.status !== '200').map((o) => ({ phone: o.groupId, error: linkReason(o.status) }));
  return { success: failed.length === 0, errors: failed };
}

function linkReason(status: string): string {
  switch (status) {
    case '400':
      return 'a community\'s own group (its announcement group, or a community) cannot be linked (400)';
    case '401':
    case '403':
      return `not allowed: you must be an admin of the community and of the group (${status})`;
    case '404':
      return 'no such group, or it is not linked to this community (404)';
    case '409':
      return 'the group already belongs to a community (409)';
    default:
      return `refused by the network (${status})`;
  }
}
