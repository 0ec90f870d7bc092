// Channel (newsletter) state: owner, admins, followers with their mute, pending admin invites,
// name/description/picture, reaction setting and the posts; addressed by <digits>@newsletter.
import { randomInt } from 'node:crypto';
import { newInviteCode } from './groups.js';
import type { SimClock } from '../clock.js';

export type NewsletterRole = 'OWNER' | 'ADMIN' | 'SUBSCRIBER' | 'GUEST';
export type ReactionCodes = 'ALL' | 'BASIC' | 'NONE';

/** One post as the network keeps it: its server id (what followers' clients key reactions by) and content. */
export interface NewsletterPost {
  serverId: number;
  /** Message id the author's device gave it. */
  id: string;
  authorPhone: string;
  t: number;
  /** The plaintext Message protobuf, as the author sent it. */
  bytes: Buffer;
}

/** Posts kept per channel (the oldest are dropped beyond it): enough for any test, bounded. */
const MAX_POSTS = 1000;
/** Seconds an admin invite stays valid (WhatsApp shows invites for days; the exact span is not observable). */
export const ADMIN_INVITE_SECONDS = 7 * 24 * 3600;

export class Newsletter {
  readonly jid: string;
  name: string;
  nameTime: number;
  description: string;
  descriptionTime: number;
  readonly creation: number;
  readonly inviteCode = newInviteCode();
  ownerPhone: string;
  readonly admins = new Set<string>();
  /** Follower phone → muted. The owner and admins are not followers (WhatsApp counts them apart). */
  readonly followers = new Map<string, boolean>();
  /** Mute state of the owner and admins, who get no follower entry. */
  readonly staffMuted = new Set<string>();
  /** Invited phone → when the invite expires (seconds). */
  readonly adminInvites = new Map<string, number>();
  reactionCodes: ReactionCodes = 'ALL';
  deleted = false;
  picture: { id: string; bytes: Buffer; directPath: string } | null = null;
  readonly posts: NewsletterPost[] = [];
  private nextServerId = 100;

  /** `creation`: seconds since the epoch on the network's clock. */
  constructor(id: string, name: string, description: string, ownerPhone: string, creation: number) {
    this.jid = `${id}@newsletter`;
    this.name = name;
    this.description = description;
    this.creation = creation;
    this.nameTime = this.creation;
    this.descriptionTime = this.creation;
    this.ownerPhone = ownerPhone;
  }

  roleOf(phone: string): NewsletterRole {
    if (phone === this.ownerPhone) return 'OWNER';
    if (this.admins.has(phone)) return 'ADMIN';
    if (this.followers.has(phone)) return 'SUBSCRIBER';
    return 'GUEST';
  }

  /** Owner or admin: may post and edit the channel. */
  isStaff(phone: string): boolean {
    return phone === this.ownerPhone || this.admins.has(phone);
  }

  muted(phone: string): boolean {
    return this.followers.get(phone) ?? this.staffMuted.has(phone);
  }

  setMuted(phone: string, muted: boolean): void {
    if (this.followers.has(phone)) this.followers.set(phone, muted);
    else if (muted) this.staffMuted.add(phone);
    else this.staffMuted.delete(phone);
  }

  /** Who a post reaches: every follower, the owner and the admins (their other devices show it too). */
  audience(): string[] {
    return [...new Set([this.ownerPhone, ...this.admins, ...this.followers.keys()])];
  }

  /** `t`: seconds since the epoch on the network's clock. */
  addPost(id: string, authorPhone: string, bytes: Buffer, t: number): NewsletterPost {
    const post = { serverId: this.nextServerId++, id, authorPhone, t, bytes };
    this.posts.push(post);
    if (this.posts.length > MAX_POSTS) this.posts.splice(0, this.posts.length - MAX_POSTS);
    return post;
  }
}

export class NewsletterStore {
  private readonly byJid = new Map<string, Newsletter>();

  constructor(private readonly clock: Pick<SimClock, 'now'>) {}

  create(name: string, description: string, ownerPhone: string): Newsletter {
    let id: string;
    do id = `120363${String(randomInt(0, 2 ** 47)).padStart(12, '0')}`;
    while (this.byJid.has(`${id}@newsletter`));
    const n = new Newsletter(id, name, description, ownerPhone, Math.floor(this.clock.now() / 1000));
    this.byJid.set(n.jid, n);
    return n;
  }

  /** A live channel by jid or invite code (deleted channels are gone for everyone). */
  get(key: string): Newsletter | undefined {
    const n = this.byJid.get(key) ?? [...this.byJid.values()].find((c) => c.inviteCode === key);
    return n && !n.deleted ? n : undefined;
  }

  /** Any channel, deleted ones too (the admin API shows what happened to them). */
  any(jid: string): Newsletter | undefined {
    return this.byJid.get(jid);
  }

  live(): Newsletter[] {
    return [...this.byJid.values()].filter((n) => !n.deleted);
  }
}

/** A few calling codes → ISO country, for the directory's country filter (a channel's country is its creator's). */
const COUNTRIES: [string, string][] = [
  ['55', 'BR'],
  ['351', 'PT'],
  ['54', 'AR'],
  ['52', 'MX'],
  ['57', 'CO'],
  ['56', 'CL'],
  ['34', 'ES'],
  ['44', 'GB'],
  ['49', 'DE'],
  ['33', 'FR'],
  ['39', 'IT'],
  ['91', 'IN'],
  ['93', 'AF'],
  ['1', 'US'],
];

export function countryOf(phone: string): string | undefined {
  return COUNTRIES.find(([code]) => phone.startsWith(code))?.[1];
}
