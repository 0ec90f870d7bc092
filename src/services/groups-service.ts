// Groups: asynchronous creation behind a durable pending id, settings and metadata.
import type { Clock } from '../clock.js';
import { errors } from '../errors.js';
import { newUuid } from '../ids.js';
import { parseGroupId, parsePhone } from '../domain/phone.js';
import type { GroupInfo, GroupSettingsChange, SessionsPort } from '../sessions/port.js';
import type { Store } from '../store/index.js';
import type { PendingGroupRow, PendingGroupStatus } from '../store/schema.js';
import type { Logger } from '../logger.js';

interface PendingGroupView {
  groupId: string;
  status: PendingGroupStatus;
  phone: string | null;
  inviteLink: string | null;
  phonesNotAdded: string[];
  error?: string;
}

/** create-group's answer: the pending id always; the group's own fields when it exists in time. */
interface CreatedGroupAnswer {
  groupId: string;
  inviteLink: null;
  phone?: string;
  invitationLink?: string | null;
  phonesNotAdded?: string[];
}

interface CreateGroupRequest {
  groupName: string;
  phones: string[];
  autoInvite: boolean;
}

/** Hooks other parts of the gateway attach to (events, invite messages). */
interface GroupCreatedListener {
  (instanceId: string, pending: PendingGroupView, request: CreateGroupRequest): Promise<void> | void;
}

const INVITE_PREFIX = /^https:\/\/chat\.whatsapp\.com\/(?:invite\/)?([A-Za-z0-9]{10,40})\/?$/;

export class GroupsService {
  private readonly listeners: GroupCreatedListener[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly store: Pick<Store, 'groups'>,
    private readonly sessions: SessionsPort,
    private readonly clock: Clock,
    private readonly log: Logger,
    /** How long create-group's answer waits for the group to exist (0: answer the pending id at once). */
    private readonly createWaitMs = 0,
  ) {}

  onCreated(listener: GroupCreatedListener): void {
    this.listeners.push(listener);
  }

  /**
   * The spec's answer (a durable pending id, no link yet), plus Z-API's `phone`, `invitationLink`
   * and `phonesNotAdded` when the network makes the group within `createWaitMs`: Z-API clients read
   * `phone`. The creation goes on either way; GET /groups/{pendingId} and GROUP_CREATE report it.
   */
  async create(instanceId: string, request: CreateGroupRequest): Promise<CreatedGroupAnswer> {
    const phones = request.phones.map((p, i) => parsePhone(p, `phones[${i}]`));
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    const now = this.clock.now();
    const row: PendingGroupRow = {
      id: `pending-${newUuid()}`,
      instance_id: instanceId,
      status: 'pending',
      group_id: null,
      invite_link: null,
      phones_not_added: null,
      error: null,
      request: JSON.stringify({ ...request, phones }),
      created_at: now,
      updated_at: now,
    };
    await this.store.groups.create(row);
    const completing = this.complete(row);
    this.track(completing);
    const answer: CreatedGroupAnswer = { groupId: row.id, inviteLink: null };
    if (this.createWaitMs <= 0) return answer;
    // A guard: the network's pace, not protocol time.
    const late = new Error('the group is not made yet');
    const waited = await this.clock.withTimeout(completing.then(() => true), this.createWaitMs, () => late).catch((err: unknown) => {
      if (err === late) return false;
      throw err;
    });
    if (!waited) return answer;
    const view = await this.pending(instanceId, row.id);
    if (view.status !== 'created' || !view.phone) return answer;
    return { ...answer, phone: view.phone, invitationLink: view.inviteLink, phonesNotAdded: view.phonesNotAdded };
  }

  /**
   * Re-runs creations that were pending when the gateway stopped (or, in cluster mode, when the
   * instance's previous owner died): those of connected instances, each once at a time.
   */
  async resumePending(): Promise<void> {
    for (const row of await this.store.groups.listByStatus('pending')) {
      if (this.sessions.isConnected(row.instance_id) && !this.completing.has(row.id)) this.track(this.complete(row));
    }
  }

  /** Pending creations being completed now (a resume must not start a second one). */
  private readonly completing = new Set<string>();

  private track(p: Promise<void>): void {
    this.running.add(p);
    void p.finally(() => this.running.delete(p));
  }

  async idle(): Promise<void> {
    await Promise.all([...this.running]);
  }

  private async complete(row: PendingGroupRow): Promise<void> {
    this.completing.add(row.id);
    try {
      await this.completeOnce(row);
    } finally {
      this.completing.delete(row.id);
    }
  }

  private async completeOnce(row: PendingGroupRow): Promise<void> {
    const request = JSON.parse(row.request) as CreateGroupRequest;
    try {
      // The pending id names the request on the network too: a creation resumed after a crash
      // that already reached the network gets the group it made, not a second one.
      const created = await this.sessions.createGroup(row.instance_id, request.groupName, request.phones, row.id);
      await this.store.groups.update(row.id, {
        status: 'created',
        group_id: created.groupId,
        invite_link: created.inviteLink,
        phones_not_added: JSON.stringify(created.phonesNotAdded),
        updated_at: this.clock.now(),
      });
    } catch (err) {
      const reason = err instanceof Error ? (('detail' in err && typeof err.detail === 'string' && err.detail) || err.message) : String(err);
      await this.store.groups.update(row.id, { status: 'failed', error: reason, updated_at: this.clock.now() });
      this.log.warn({ instanceId: row.instance_id, pendingId: row.id, err }, 'group creation failed');
    }
    const view = await this.pending(row.instance_id, row.id);
    for (const l of this.listeners) {
      try {
        await l(row.instance_id, view, request);
      } catch (err) {
        this.log.error({ err, pendingId: row.id }, 'group-created listener failed');
      }
    }
  }

  async pending(instanceId: string, pendingId: string): Promise<PendingGroupView> {
    const row = await this.store.groups.find(instanceId, pendingId);
    if (!row) throw errors.notFound('Group not found');
    return {
      groupId: row.id,
      status: row.status,
      phone: row.group_id,
      inviteLink: row.invite_link,
      phonesNotAdded: row.phones_not_added ? (JSON.parse(row.phones_not_added) as string[]) : [],
      ...(row.error ? { error: row.error } : {}),
    };
  }

  /** Accepts `<digits>-group` or a pending id whose creation finished; returns the `<digits>-group` id. */
  async resolveGroupId(instanceId: string, raw: string, field = 'phone'): Promise<string> {
    if (raw.startsWith('pending-')) {
      const p = await this.pending(instanceId, raw);
      if (p.status === 'pending') throw errors.conflict('Group creation still pending');
      if (p.status === 'failed' || !p.phone) throw errors.networkRefused(p.error ?? 'group creation failed');
      return p.phone;
    }
    return `${parseGroupId(raw, field)}-group`;
  }

  async updateSettings(instanceId: string, rawGroupId: string, change: GroupSettingsChange): Promise<void> {
    if (Object.values(change).every((v) => v === undefined)) {
      throw errors.invalidInput('body: at least one of adminOnlyMessage, adminOnlySettings, requireAdminApproval, adminOnlyAddMember is required');
    }
    const groupId = await this.resolveGroupId(instanceId, rawGroupId);
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    await this.sessions.updateGroupSettings(instanceId, groupId, change);
  }

  async invitationMetadata(instanceId: string, url: string): Promise<GroupInfo> {
    const m = INVITE_PREFIX.exec(url.trim());
    if (!m?.[1]) throw errors.invalidInput('url: must be an invitation link https://chat.whatsapp.com/<code>');
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    return this.sessions.groupInvitationMetadata(instanceId, m[1]);
  }

  async metadata(instanceId: string, rawGroupId: string): Promise<GroupInfo> {
    const groupId = await this.resolveGroupId(instanceId, rawGroupId, 'groupId');
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    return this.sessions.groupMetadata(instanceId, groupId);
  }
}
