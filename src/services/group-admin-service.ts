// Groups as their admins run them (Z-API's group tag beyond creation and settings): the groups the
// account is in, links, joining and leaving, subject/description/picture, participants, admins and
// join requests. Input is checked before anything is sent; the network's answer per phone is
// reported, never hidden behind a bare `true`.
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { JoinRequestAction, ParticipantAction, ParticipantOutcome } from '../domain/groups.js';
import type { GroupAdminPort } from '../sessions/families/group-admin/group-admin-port.js';
import { inviteText } from './auto-invite.js';
import type { GroupInfo, SessionsPort } from '../sessions/port.js';
import type { ChatReader } from '../store/chats-repo.js';
import type { Instance } from '../domain/instance.js';
import type { GroupsService } from './groups-service.js';
import type { MessagesService } from './messages-service.js';

/** Phones one participant call may name (Z-API sends them in one request to the network). */
export const MAX_PHONES_PER_CHANGE = 256;
const INVITE = /^https:\/\/chat\.whatsapp\.com\/(?:invite\/)?([A-Za-z0-9]{10,40})\/?$/;

/** Z-API's group row in GET /groups (the chat fields as strings, as Z-API sends them). */
interface GroupListView {
  isGroup: true;
  name: string;
  phone: string;
  unread: string;
  messagesUnread: string;
  lastMessageTime: string;
  isMuted: '0' | '1';
  muteEndTime: number | null;
  isMarkedSpam: 'false';
  archived: 'true' | 'false';
  pinned: 'true' | 'false';
}

/** Answer of the participant changes: Z-API's `value`, and which phones the network refused. */
export interface ParticipantsChange {
  value: boolean;
  errors: { phone: string; error: string }[];
}

export class GroupAdminService {
  constructor(
    private readonly port: GroupAdminPort,
    private readonly sessions: Pick<SessionsPort, 'isConnected'>,
    private readonly groups: Pick<GroupsService, 'resolveGroupId'>,
    private readonly chats: Pick<ChatReader, 'findChat'>,
    private readonly messages: Pick<MessagesService, 'send'>,
    private readonly now: () => number,
  ) {}

  /** The groups the account is in, most recent conversation first, then by name; paged. */
  async list(instanceId: string, page: number, pageSize: number): Promise<GroupListView[]> {
    this.connected(instanceId);
    const groups = await this.port.participating(instanceId);
    const rows = await Promise.all(groups.map(async (g) => ({ g, chat: await this.chats.findChat(instanceId, g.groupId) })));
    rows.sort((a, b) => (b.chat?.last_message_at ?? 0) - (a.chat?.last_message_at ?? 0) || a.g.subject.localeCompare(b.g.subject) || a.g.groupId.localeCompare(b.g.groupId));
    const now = this.now();
    return rows.slice((page - 1) * pageSize, page * pageSize).map(({ g, chat }) => {
      const muted = chat?.muted_until != null && (chat.muted_until === -1 || chat.muted_until > now);
      const unread = Math.max(0, chat?.unread ?? 0);
      return {
        isGroup: true,
        name: g.subject,
        phone: g.groupId,
        unread: String(unread),
        messagesUnread: String(unread),
        lastMessageTime: String(chat?.last_message_at ?? 0),
        isMuted: muted ? '1' : '0',
        muteEndTime: muted ? (chat?.muted_until ?? null) : null,
        isMarkedSpam: 'false',
        archived: chat?.archived === 1 ? 'true' : 'false',
        pinned: (chat?.pinned_at ?? 0) > 0 ? 'true' : 'false',
      };
    });
  }

  async lightMetadata(instanceId: string, rawGroupId: string): Promise<GroupInfo> {
    return this.port.lightMetadata(instanceId, await this.group(instanceId, rawGroupId, 'phone'));
  }

  async invitationLink(instanceId: string, rawGroupId: string): Promise<{ phone: string; invitationLink: string }> {
    const groupId = await this.group(instanceId, rawGroupId, 'groupId');
    return { phone: groupId, invitationLink: await this.port.inviteLink(instanceId, groupId) };
  }

  async redefineInvitationLink(instanceId: string, rawGroupId: string): Promise<{ invitationLink: string }> {
    const groupId = await this.group(instanceId, rawGroupId, 'groupId');
    return { invitationLink: await this.port.revokeInviteLink(instanceId, groupId) };
  }

  async acceptInvite(instanceId: string, url: string): Promise<{ success: true; phone: string }> {
    const code = INVITE.exec(url.trim())?.[1];
    if (!code) throw errors.invalidInput('url: must be an invitation link https://chat.whatsapp.com/<code>');
    this.connected(instanceId);
    return { success: true, phone: await this.port.acceptInvite(instanceId, code) };
  }

  async leave(instanceId: string, rawGroupId: string): Promise<void> {
    await this.port.leave(instanceId, await this.group(instanceId, rawGroupId, 'groupId'));
  }

  async setName(instanceId: string, rawGroupId: string, name: string): Promise<void> {
    const subject = name.trim();
    if (!subject) throw errors.invalidInput('groupName: must not be blank');
    await this.port.setSubject(instanceId, await this.group(instanceId, rawGroupId, 'groupId'), subject);
  }

  async setDescription(instanceId: string, rawGroupId: string, description: string): Promise<void> {
    await this.port.setDescription(instanceId, await this.group(instanceId, rawGroupId, 'groupId'), description.trim());
  }

  async setPhoto(instanceId: string, rawGroupId: string, ref: string): Promise<void> {
    const value = ref.trim();
    if (!/^(https?:\/\/|data:)/i.test(value)) throw errors.invalidInput('groupPhoto: must be an https URL or a data URI of an image');
    await this.port.setPicture(instanceId, await this.group(instanceId, rawGroupId, 'groupId'), value);
  }

  /**
   * add / remove / promote / demote. With `autoInvite`, phones the network would not add (their
   * privacy settings) get the group's invitation link as a private message, through the queue.
   */
  async participants(instance: Instance, rawGroupId: string, rawPhones: readonly string[], action: ParticipantAction, autoInvite = false): Promise<ParticipantsChange & { phonesNotAdded?: string[] }> {
    const phones = this.phones(rawPhones);
    const groupId = await this.group(instance.id, rawGroupId, 'groupId');
    const outcome = await this.port.participants(instance.id, groupId, phones, action);
    const change = answer(outcome);
    if (action !== 'add') return change;
    const notAdded = change.errors.map((e) => e.phone);
    if (autoInvite && notAdded.length > 0) await this.invite(instance, groupId, notAdded);
    return { ...change, phonesNotAdded: notAdded };
  }

  async joinRequests(instanceId: string, rawGroupId: string, rawPhones: readonly string[], action: JoinRequestAction): Promise<ParticipantsChange> {
    const phones = this.phones(rawPhones);
    const groupId = await this.group(instanceId, rawGroupId, 'groupId');
    return answer(await this.port.joinRequests(instanceId, groupId, phones, action));
  }

  private async invite(instance: Instance, groupId: string, phones: readonly string[]): Promise<void> {
    const [link, meta] = await Promise.all([this.port.inviteLink(instance.id, groupId), this.port.lightMetadata(instance.id, groupId)]);
    // Through the queue like any other message: paced, durable, reported by DeliveryCallback.
    for (const phone of phones) await this.messages.send(instance, { phone }, { type: 'text', message: inviteText(meta.subject, link) });
  }

  private phones(raw: readonly string[]): string[] {
    if (raw.length > MAX_PHONES_PER_CHANGE) throw errors.invalidInput(`phones: at most ${MAX_PHONES_PER_CHANGE} per call`);
    const phones = raw.map((p, i) => parsePhone(p, `phones[${i}]`));
    if (new Set(phones).size !== phones.length) throw errors.invalidInput('phones: every phone must be unique');
    return phones;
  }

  /** The `<digits>-group` id (a finished pending id too); the instance must be connected. */
  private async group(instanceId: string, raw: string, field: string): Promise<string> {
    const groupId = await this.groups.resolveGroupId(instanceId, raw, field);
    this.connected(instanceId);
    return groupId;
  }

  private connected(instanceId: string): void {
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
  }
}

/** The network's per-phone statuses as Z-API's `value` plus the refused phones with their reason. */
export function answer(outcome: readonly ParticipantOutcome[]): ParticipantsChange {
  const failed = outcome.filter((o) => o.status !== '200').map((o) => ({ phone: o.phone, error: reasonOf(o.status) }));
  return { value: failed.length === 0, errors: failed };
}

function reasonOf(status: string): string {
  switch (status) {
    case '403':
      return 'not allowed: the person\'s privacy settings, or you are not an admin (403)';
    case '404':
      return 'not a participant, or not on WhatsApp (404)';
    case '408':
      return 'left the group recently and cannot be added back yet (408)';
    case '409':
      return 'already a participant (409)';
    default:
      return `refused by the network (${status})`;
  }
}
