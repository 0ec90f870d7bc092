// Wire types of the admin API, shared by the HTTP server and the typed client.
import type { ReceivedMessage } from '../contacts/content.js';
import type { ReceiptRecord } from '../network/accounts.js';
import type { ContactSend } from '../contacts/compose.js';
import type { ReceiptPolicy } from '../config.js';
import type { MediaFault } from '../media/host.js';

export type { ReceivedMessage, ReceiptRecord, ContactSend, ReceiptPolicy };
// What downloads of a contact's media get (setMediaFault); the parts of ContactSend.
export type { MediaFault };
export type { ContactSendCommon, ContactSendKind, VcardContact } from '../contacts/compose.js';

export interface SimnetInfo {
  wsUrl: string;
  adminUrl: string;
  /** Base64 of the 32-byte root public key: assign to Baileys' WA_CERT_DETAILS.PUBLIC_KEY. */
  rootPublicKey: string;
  /** PEM of the CA that signed the media host certificate. */
  mediaCaPem: string;
  /** host:port of the HTTPS media host. */
  mediaHost: string;
}

export interface UserInfo {
  phone: string;
  lid: string;
  pushName: string;
  banned: boolean;
  /** A WhatsApp Business account (its linked devices see the `smba` platform). */
  business: boolean;
  /** held: stanzas waiting for the device (offline, or delivered but not acked); heldMessages: ids of the held <message>s. */
  /** maxSockets: the most connections logged in as the device at once over the run; replacedSockets: logins that replaced one still open. */
  devices: { id: number; online: boolean; platform: string; held: number; heldMessages: string[]; preKeys: number; maxSockets: number; replacedSockets: number }[];
}

/** How an account's phone is addressed to others (network/addressing.ts). */
export interface AddressingInfo {
  /** 1:1 messages arrive from its LID (with the number beside it unless hidden). */
  lidAddressing: boolean;
  /** Its number is withheld everywhere: linked devices know it by LID only. */
  hideNumber: boolean;
}

export type SendAsContactRequest = ContactSend & { from: string; to: string };

export type FaultRequest =
  | { kind: 'stream-error'; code: 515 | 503 | 440 | 401 }
  | { kind: 'silence' }
  | { kind: 'close' }
  | { kind: 'nack'; code: number; count?: number }
  | { kind: 'ban' };

export interface GroupInfo {
  jid: string;
  subject: string;
  creator: string;
  participants: { phone: string; lid: string; role: string | null }[];
  announce: boolean;
  locked: boolean;
  memberAddMode: string;
  joinApproval: boolean;
  inviteCode: string;
  /** Current description ('' none), picture id (null none), pending join requests (phones). */
  description?: string;
  pictureId?: string | null;
  /** Size of the picture a linked device uploaded (null: none, or set by the admin API). */
  pictureBytes?: number | null;
  joinRequests?: string[];
}

export interface CountersSnapshot {
  counters: Record<string, number>;
  /** `${recipientPhone}:${messageId}` → deliveries, only where > 1. */
  duplicates: Record<string, number>;
  deliveries: Record<string, number>;
}

export interface SimnetStats {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  accounts: number;
  devices: number;
  online: number;
  connections: number;
  /** Event-loop delay since the previous stats() call (ms), and the process's CPU time so far (ms). */
  eventLoopDelayMs: { mean: number; p99: number; max: number };
  cpuMs: { user: number; system: number };
}

// Network and contact events towards linked devices: group changes by others, calls, presence, read-self, retry
// receipts, ack loss.
import type { GroupActionKind } from '../handlers/group-actions.js';
import type { CallOutcome, CallRecord, CallStatus } from '../network/calls.js';
import type { PresenceState } from '../handlers/presence.js';
import type { OwnerReadOutcome } from '../handlers/owner-read.js';
import type { RetryRecord } from '../network/recent-sent.js';
import type { ChatstateRecord } from '../network/accounts.js';

export type { GroupActionKind, CallOutcome, CallRecord, CallStatus, PresenceState, RetryRecord, ChatstateRecord };

export interface GroupActionRequest {
  /** Group jid. */
  group: string;
  /** Phone of who does it (an admin for most actions; the leaver for leave; a non-member for requestJoin). */
  actor: string;
  action: GroupActionKind;
  /** Phones (or jids) for add/remove/promote/demote/approveRequest, and revokeRequest by an admin (= reject). */
  participants?: string[];
  /** subject/description text ('' deletes the description); picture id ('' or false removes); announce/locked/joinApproval on|off|true|false;
   *  memberAddMode 'all_member_add'|'admin_add'. */
  value?: string | boolean;
  /** requestJoin: the request method Baileys reports (default 'invite_link'). */
  method?: string;
}

export interface GroupActionResult {
  /** Stanza id of the notification: the key id of the stub message the devices upsert ('' when nothing was sent). */
  notificationId: string;
  /** Linked devices the notification was delivered (or held) for. */
  devices: number;
  applied: string[];
  failed: { phone: string; error: string }[];
  group: GroupInfo;
}

export interface CallRequest {
  /** Caller: a simnet contact's phone. */
  from: string;
  /** Callee: the account whose linked devices ring. */
  to: string;
  /** missed: rings out (terminate reason=timeout); cancelled: the caller hangs up (terminate); rejected: the callee's own phone
   *  declines (reject from the account's jid); accepted: the callee's phone answers (accept), the caller hangs up later;
   *  ringing: only the offer (a device may reject it with rejectCall). */
  outcome: CallOutcome;
  video?: boolean;
  /** Protocol ms before the outcome happens (default 30000). */
  ringMs?: number;
  /** accepted: protocol ms the call lasts (default 10000). */
  durationMs?: number;
  /** Address the caller by LID (offer carries caller_pn) instead of by phone number. */
  viaLid?: boolean;
}

export interface PresenceRequest {
  /** The contact whose presence it is. */
  from: string;
  /** Account whose linked devices see it, or a group jid (chat states only). Optional for available/unavailable: every subscriber. */
  to?: string;
  state: PresenceState;
  /** unavailable: last seen, unix seconds (default now). */
  lastSeen?: number;
  /** 1:1 chat states from the contact's LID instead of its phone jid. */
  viaLid?: boolean;
}

export interface OwnerReadRequest {
  /** The account whose primary phone reads. */
  phone: string;
  /** The chat: contact phone/jid or group jid; default: each id's chat as the network routed it. */
  chat?: string;
  ids: string[];
}

export type OwnerReadResult = OwnerReadOutcome;

export interface PresenceInfo {
  phone: string;
  /** The contact's own presence as subscribers see it. */
  presence: { available: boolean; lastSeen: number | null };
  /** Per linked device: whose presence it subscribed to this session (phones) and what it last announced about itself. */
  devices: { id: number; subscriptions: string[]; lastPresence: 'available' | 'unavailable' | null }[];
  /** Chat states linked devices sent this account's phone. */
  chatstates: ChatstateRecord[];
}

/** An account's own profile and privacy as the server keeps them (GET /admin/users/:phone/profile). */
export interface ProfileInfo {
  phone: string;
  pushName: string;
  about: string;
  /** The picture the device uploaded (bytes: its size), null when none. */
  picture: { id: string; bytes: number; url: string } | null;
  /** category → value (last, online, profile, status, readreceipts, groupadd, calladd, messages). */
  privacy: Record<string, string>;
  /** category → phones on its "all contacts except…" list. */
  disallowed: Record<string, string[]>;
  /** Phones this account blocked. */
  blocked: string[];
  /** Default disappearing timer of new chats, seconds (0 = off). */
  disappearingSeconds: number;
}

export type { HistorySeedRequest, HistorySummary, HistorySummaryChat } from '../network/phone-history.js';

// ---- Communities (handlers/communities.ts) ----
export type { CommunityView } from '../handlers/communities.js';

export type CommunityActionKind = 'link' | 'unlink' | 'deactivate' | 'allowNonAdminSubGroupCreation';

export interface CommunityActionRequest {
  /** The community's (parent group's) jid. */
  community: string;
  /** Phone of who does it: a community admin (link also when members may add groups; deactivate: its owner). */
  actor: string;
  action: CommunityActionKind;
  /** link / unlink: the group's jid (link: the actor must be an admin of it). */
  group?: string;
  /** allowNonAdminSubGroupCreation: true lets every member add groups, false admins only. */
  value?: boolean;
}

export interface CommunityActionResult {
  /** Stanza id of the notification the community's members got. */
  notificationId: string;
  devices: number;
  /** The community afterwards (null once deactivated). */
  community: import('../handlers/communities.js').CommunityView | null;
}

/** A channel as simnet keeps it (GET /newsletters/{jid}). */
export interface NewsletterInfo {
  jid: string;
  name: string;
  description: string;
  owner: string;
  admins: string[];
  followers: { phone: string; muted: boolean }[];
  /** Owner and admins who muted the channel (they are not followers). */
  staffMuted: string[];
  /** Phones with a pending admin invite, and when it expires (seconds). */
  adminInvites: { phone: string; expires: number }[];
  reactionCodes: string;
  inviteCode: string;
  creation: number;
  deleted: boolean;
  /** Size of the picture (null: none). */
  pictureBytes: number | null;
  posts: { serverId: number; id: string; author: string; t: number; type: string; text?: string; caption?: string; mediaBytes?: number }[];
}

export type NewsletterActionKind = 'post' | 'follow' | 'unfollow' | 'invite' | 'accept' | 'demote' | 'name' | 'description';

export interface NewsletterActionRequest {
  /** Channel jid (`<id>@newsletter`). */
  newsletter: string;
  /** Phone of who does it: the owner or an admin to post, invite, demote, rename; anyone to follow; the invitee to accept. */
  actor: string;
  action: NewsletterActionKind;
  /** post: the text; name/description: the new value. */
  text?: string;
  /** invite/demote: who (a phone or jid). */
  participant?: string;
}

export interface NewsletterActionResult {
  /** post: the post's server id, the linked devices it went to and the accounts that received it. */
  serverId?: number;
  devices?: number;
  reached?: string[];
  newsletter: NewsletterInfo;
}
