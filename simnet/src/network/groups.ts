// Group state: participants and roles, settings, invite codes; addressed by <digits>@g.us.
import { randomBytes, randomInt } from 'node:crypto';
import type { SimClock } from '../clock.js';

/** What makes a group a community. */
export interface CommunityState {
  /** Jid of its announcement group. */
  announcementJid: string;
  /** Members (not only admins) may add groups: <allow_non_admin_sub_group_creation>. */
  allowNonAdminSubGroupCreation: boolean;
}

export type Role = 'superadmin' | 'admin' | null;

export interface Member {
  phone: string;
  role: Role;
}

export class Group {
  readonly jid: string;
  subject: string;
  subjectTime: number;
  readonly creation: number;
  readonly creatorPhone: string;
  readonly participants = new Map<string, Member>();
  announce = false;
  locked = false;
  memberAddMode: 'admin_add' | 'all_member_add' = 'admin_add';
  joinApproval = false;
  description = '';
  inviteCode: string;
  /** "sender>member.device" pairs that already got the sender's SKDM from a simulated phone. */
  readonly skdmSent = new Set<string>();
  /** Id of the group picture (null: none), changed by admins. */
  pictureId: string | null = null;
  /** The picture a linked device uploaded (its bytes and where the media host serves them); null for ids set by the admin API. */
  picture: { bytes: Buffer; directPath: string } | null = null;
  /** Id of the current description (a new one per change, as the real server assigns). */
  descriptionId = '';
  /** Pending join requests of non-members (join approval on): phone → when and how they asked. */
  readonly joinRequests = new Map<string, { t: number; method: string }>();
  /** Set when this group is a community (its <parent>): see network/communities.ts. */
  community: CommunityState | null = null;
  /** The community this group is linked to (<linked_parent>), or null. */
  linkedParent: string | null = null;
  /** This is its community's announcement group (<default_sub_group>). */
  defaultSubGroup = false;

  /** `creation`: seconds since the epoch on the network's clock. */
  constructor(id: string, subject: string, creatorPhone: string, creation: number) {
    this.jid = `${id}@g.us`;
    this.subject = subject;
    this.creation = creation;
    this.subjectTime = this.creation;
    this.creatorPhone = creatorPhone;
    this.inviteCode = newInviteCode();
  }

  members(): Member[] {
    return [...this.participants.values()];
  }

  isAdmin(phone: string): boolean {
    return !!this.participants.get(phone)?.role;
  }
}

const INVITE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 22 alphanumeric characters, the shape of WhatsApp's invite codes (clients validate it). */
export function newInviteCode(): string {
  // 248 is the largest multiple of 62 below 256: rejecting bytes above it keeps the draw uniform.
  let code = '';
  while (code.length < 22) {
    for (const byte of randomBytes(32)) {
      if (byte < 248 && code.length < 22) code += INVITE_ALPHABET[byte % 62];
    }
  }
  return code;
}

export class GroupStore {
  constructor(private readonly clock: Pick<SimClock, 'now'>) {}

  private readonly byJid = new Map<string, Group>();
  private readonly byCode = new Map<string, Group>();
  /** Codes that were valid once: answering them says "revoked" (410) rather than "unknown" (406). */
  private readonly revoked = new Set<string>();
  /** "creator phone/create key" → the group that create made (WhatsApp dedupes creations by key). */
  private readonly byCreateKey = new Map<string, Group>();

  /** The group `creatorPhone` already made with this create key, if any. */
  createdWithKey(creatorPhone: string, key: string): Group | undefined {
    return this.byCreateKey.get(`${creatorPhone}/${key}`);
  }

  /** A new group; with a create key, a later create by the same creator with that key finds it. */
  create(subject: string, creatorPhone: string, key?: string): Group {
    let id: string;
    do id = `120363${String(randomInt(0, 2 ** 47)).padStart(12, '0')}`;
    while (this.byJid.has(`${id}@g.us`));
    const g = new Group(id, subject, creatorPhone, Math.floor(this.clock.now() / 1000));
    this.byJid.set(g.jid, g);
    this.byCode.set(g.inviteCode, g);
    if (key) this.byCreateKey.set(`${creatorPhone}/${key}`, g);
    return g;
  }

  get(jid: string): Group | undefined {
    return this.byJid.get(jid);
  }

  byInviteCode(code: string): Group | undefined {
    return this.byCode.get(code);
  }

  wasRevoked(code: string): boolean {
    return this.revoked.has(code);
  }

  revokeInvite(g: Group): string {
    this.byCode.delete(g.inviteCode);
    this.revoked.add(g.inviteCode);
    g.inviteCode = newInviteCode();
    this.byCode.set(g.inviteCode, g);
    return g.inviteCode;
  }

  /** The group is gone (a deactivated community's parent and announcement group); its code stops working. */
  remove(g: Group): void {
    this.byJid.delete(g.jid);
    if (this.byCode.get(g.inviteCode) === g) {
      this.byCode.delete(g.inviteCode);
      this.revoked.add(g.inviteCode);
    }
  }

  all(): IterableIterator<Group> {
    return this.byJid.values();
  }
}
