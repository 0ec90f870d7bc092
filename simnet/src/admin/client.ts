// Typed client of the simnet admin API, for tests (in-process or against a simnet child process).
import type {
  CountersSnapshot,
  ProfileInfo,
  FaultRequest,
  GroupInfo,
  ReceiptPolicy,
  ReceiptRecord,
  ReceivedMessage,
  MediaFault,
  SendAsContactRequest,
  SimnetInfo,
  SimnetStats,
  UserInfo,
} from './types.js';
import type { AddressingInfo, HistorySeedRequest, HistorySummary } from './types.js';
import type { CommunityActionRequest, CommunityActionResult, CommunityView } from './types.js';
import type { NewsletterActionRequest, NewsletterActionResult, NewsletterInfo } from './types.js';
import type { CallRecord, CallRequest, GroupActionRequest, GroupActionResult, OwnerReadRequest, OwnerReadResult, PresenceInfo, PresenceRequest, RetryRecord } from './types.js';

export type * from './types.js';
import type { ChatSettings, PhoneChatChange } from '../handlers/chat-state.js';
import type { AddressBookEntry } from '../handlers/address-book.js';
import type { PhoneLabelEdit, PhoneLabels } from '../handlers/labels.js';
import type { ChatNote } from '../handlers/chat-notes.js';
export type { ChatNote } from '../handlers/chat-notes.js';
import type { BusinessProfile } from '../network/business.js';
export type { PhoneLabel, PhoneLabelEdit, PhoneLabels } from '../handlers/labels.js';
export type { BusinessProfile } from '../network/business.js';
import type { CatalogInfo, CatalogProductInfo, SeedCollectionRequest, SeedProductRequest } from './catalog.js';
import { realDelay, wallNow } from '../clock.js';
export type { CatalogInfo, CatalogProductInfo, SeedCollectionRequest, SeedProductRequest } from './catalog.js';
export type { ChatSettings, PhoneChatChange } from '../handlers/chat-state.js';

export class SimnetError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class SimnetClient {
  private readonly base: string;

  constructor(adminUrl: string) {
    this.base = adminUrl.replace(/\/$/, '');
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await res.json()) as T & { error?: string };
    if (!res.ok) throw new SimnetError(res.status, json.error ?? `HTTP ${res.status}`);
    return json;
  }

  private u(phone: string): string {
    return `/users/${encodeURIComponent(phone)}`;
  }

  info(): Promise<SimnetInfo> {
    return this.call('GET', '/info');
  }

  createUser(req: { phone: string; pushName?: string; business?: boolean }): Promise<{ phone: string; lid: string }> {
    return this.call('POST', '/users', req);
  }

  user(phone: string): Promise<UserInfo> {
    return this.call('GET', this.u(phone));
  }

  /** The phone scans the QR string a companion shows (connection.update.qr). */
  scanQr(phone: string, qr: string): Promise<{ jid: string; lid: string; deviceId: number }> {
    return this.call('POST', `${this.u(phone)}/scan`, { qr });
  }

  /** The phone enters the code a companion got from requestPairingCode; resolves when pairing completed. */
  enterPairingCode(phone: string, code: string): Promise<{ jid: string; lid: string; deviceId: number }> {
    return this.call('POST', `${this.u(phone)}/pairing-code`, { code });
  }

  /** The phone removes its linked device(s): a live one gets stream error 401 device_removed. */
  unlinkDevice(phone: string, deviceId?: number): Promise<{ removed: number[] }> {
    return this.call('POST', `${this.u(phone)}/unlink`, deviceId === undefined ? {} : { deviceId });
  }

  /** `dropped` when the recipient blocked the sender: taken by the server, never delivered. */
  sendAsContact(req: SendAsContactRequest): Promise<{ messageId: string; dropped?: true }> {
    return this.call('POST', '/send', req);
  }

  // Media faults.

  /**
   * Downloads of media the contact uploaded get `fault`: {kind:'delay', ms} (held, other downloads are not),
   * {kind:'status', code}, or {kind:'expired'} (404; media re-uploaded on a media-retry request is exempt). null clears.
   */
  setMediaFault(contactPhone: string, fault: MediaFault | null): Promise<{ phone: string; fault: MediaFault | null }> {
    return this.call('PUT', `${this.u(contactPhone)}/media-fault`, { fault });
  }

  /** The account's profile (push name, about, picture), privacy settings and lists, blocklist, default timer. */
  profile(phone: string): Promise<ProfileInfo> {
    return this.call('GET', `${this.u(phone)}/profile`);
  }

  /** A chat as `phone`'s own phone holds it, after its linked devices' app-state patches (`chat`: number or jid). */
  chatState(phone: string, chat: string): Promise<ChatSettings> {
    return this.call('GET', `${this.u(phone)}/chats/${encodeURIComponent(chat)}`);
  }

  /** `phone`'s own phone changes a chat; its linked devices receive the app-state patch (server_sync). */
  changeChat(phone: string, chat: string, change: PhoneChatChange): Promise<{ patches: number; devices: number }> {
    return this.call('POST', `${this.u(phone)}/chats/${encodeURIComponent(chat)}`, change);
  }

  /** Archives (or unarchives) a chat on `phone`'s phone, as WhatsApp's app-state sync tells the linked devices. */
  archiveChat(phone: string, chat: string, archived: boolean): Promise<{ patches: number; devices: number }> {
    return this.changeChat(phone, chat, { archived });
  }

  /**
   * "This account's phone has N chats with M messages each, timestamps spread over D days" (plus
   * push names): a device linked afterwards receives it as history sync. Returns every chat and
   * message with its timestamp, so a test knows which fall within a window.
   */
  seedHistory(phone: string, req: HistorySeedRequest): Promise<HistorySummary> {
    return this.call('PUT', `${this.u(phone)}/history`, req);
  }

  /** The history `phone`'s phone holds. */
  phoneHistory(phone: string): Promise<HistorySummary> {
    return this.call('GET', `${this.u(phone)}/history`);
  }

  /** Contacts saved in `phone`'s own phone's address book by its linked devices (app-state `contact` mutations). */
  addressBook(phone: string): Promise<AddressBookEntry[]> {
    return this.call('GET', `${this.u(phone)}/address-book`);
  }

  /** A business account's profile as the network keeps it (409 for a personal account). */
  businessProfile(phone: string): Promise<BusinessProfile & { categoryNames: string[] }> {
    return this.call('GET', `${this.u(phone)}/business-profile`);
  }

  /** The business changes its profile on its phone (only the fields given). */
  setBusinessProfile(phone: string, change: Partial<BusinessProfile>): Promise<BusinessProfile & { categoryNames: string[] }> {
    return this.call('PUT', `${this.u(phone)}/business-profile`, change);
  }

  /** The business phone's labels and the chats they are on, after its linked devices' app-state patches. */
  labels(phone: string): Promise<PhoneLabels> {
    return this.call('GET', `${this.u(phone)}/labels`);
  }

  /** The business phone's chat notes, as its linked devices wrote them. */
  chatNotes(phone: string): Promise<ChatNote[]> {
    return this.call('GET', `${this.u(phone)}/notes`);
  }

  /** The phone creates, edits (same id) or deletes (`deleted: true`) a label; linked devices sync it. */
  editLabel(phone: string, edit: PhoneLabelEdit): Promise<{ devices: number }> {
    return this.call('POST', `${this.u(phone)}/labels`, edit);
  }

  /** The phone puts label `labelId` on `chat` (a number or a jid), or takes it off; linked devices sync it. */
  labelChat(phone: string, labelId: string, chat: string, labeled = true): Promise<{ devices: number }> {
    return this.call('POST', `${this.u(phone)}/labels/${encodeURIComponent(labelId)}/chats`, { chat, labeled });
  }

  /** The profile picture's bytes as the device uploaded them (404 when none). */
  async profilePicture(phone: string): Promise<Buffer> {
    const { base64 } = await this.call<{ base64: string }>('GET', `${this.u(phone)}/profile-picture`);
    return Buffer.from(base64, 'base64');
  }

  /** Messages the contact's phone decrypted, oldest first (optionally from an index on). */
  received(phone: string, since = 0): Promise<ReceivedMessage[]> {
    return this.call('GET', `${this.u(phone)}/received?since=${since}`);
  }

  /** Device-sent copies: what the account's linked devices sent, as its own phone got them. */
  sentCopies(phone: string): Promise<ReceivedMessage[]> {
    return this.call('GET', `${this.u(phone)}/sent-copies`);
  }

  receipts(phone: string): Promise<{ sent: ReceiptRecord[]; received: ReceiptRecord[] }> {
    return this.call('GET', `${this.u(phone)}/receipts`);
  }

  markRead(contactPhone: string, messageIds: string[]): Promise<{ sent: string[]; unknown: string[] }> {
    return this.call('POST', `${this.u(contactPhone)}/receipts`, { messageIds, type: 'read' });
  }

  /** `device`: the contact's device that sends it (default 0, the phone; n, its linked device n). */
  sendReceipt(contactPhone: string, messageIds: string[], type: 'delivered' | 'read' | 'played', device?: number): Promise<{ sent: string[]; unknown: string[] }> {
    return this.call('POST', `${this.u(contactPhone)}/receipts`, { messageIds, type, ...(device ? { device } : {}) });
  }

  setReceiptPolicy(phone: string, policy: Partial<ReceiptPolicy>): Promise<ReceiptPolicy> {
    return this.call('PUT', `${this.u(phone)}/policy`, policy);
  }

  injectFault(phone: string, fault: FaultRequest): Promise<{ affected: number }> {
    return this.call('POST', `${this.u(phone)}/fault`, fault);
  }

  stats(): Promise<SimnetStats> {
    return this.call('GET', '/stats');
  }

  counters(): Promise<CountersSnapshot> {
    return this.call('GET', '/counters');
  }

  /** Privacy "who can add me to groups": false → adds fail with 403. */
  setGroupAddable(phone: string, groupAddable: boolean): Promise<{ phone: string; groupAddable: boolean }> {
    return this.call('PUT', `${this.u(phone)}/privacy`, { groupAddable });
  }

  /** How the account's phone is addressed to others from now on: LID mode, a hidden number. */
  setAddressing(phone: string, change: Partial<AddressingInfo>): Promise<AddressingInfo & { phone: string; lid: string }> {
    return this.call('PUT', `${this.u(phone)}/addressing`, change);
  }

  /** A contact creates a group with the given members (phones). */
  createGroup(req: { creator: string; subject: string; participants: string[] }): Promise<GroupInfo> {
    return this.call('POST', '/groups', req);
  }

  /** Groups the account is a member of, oldest first. */
  groups(phone: string): Promise<GroupInfo[]> {
    return this.call('GET', `${this.u(phone)}/groups`);
  }

  group(jid: string): Promise<GroupInfo> {
    return this.call('GET', `/groups/${encodeURIComponent(jid)}`);
  }

  /** A channel as the network keeps it (owner, admins, followers and their mute, invites, posts). */
  newsletter(jid: string): Promise<NewsletterInfo> {
    return this.call('GET', `/newsletters/${encodeURIComponent(jid)}`);
  }

  /** Channels the account owns, runs or follows. */
  newsletters(phone: string): Promise<NewsletterInfo[]> {
    return this.call('GET', `${this.u(phone)}/newsletters`);
  }

  /** A contact creates a channel. */
  createNewsletter(req: { owner: string; name: string; description?: string }): Promise<NewsletterInfo> {
    return this.call('POST', '/newsletters', req);
  }

  /** Someone other than the linked device acts on a channel (post, follow, invite, accept, demote, rename). */
  newsletterAction(req: NewsletterActionRequest): Promise<NewsletterActionResult> {
    return this.call('POST', '/newsletter-actions', req);
  }

  // Network and contact events towards linked devices.

  /** Someone other than the linked device changes a group (w:gp2 / picture notification to every member device). */
  groupAction(req: GroupActionRequest): Promise<GroupActionResult> {
    return this.call('POST', '/group-actions', req);
  }

  /** A community as the network holds it: members, announcement group, linked groups (404 once deactivated). */
  community(jid: string): Promise<CommunityView> {
    return this.call('GET', `/communities/${encodeURIComponent(jid)}`);
  }

  /** Another admin changes a community (link/unlink a group, who may add groups, deactivate): member devices hear it. */
  communityAction(req: CommunityActionRequest): Promise<CommunityActionResult> {
    return this.call('POST', '/community-actions', req);
  }

  /** A contact calls an account: <call><offer> to its linked devices, then the outcome. */
  placeCall(req: CallRequest): Promise<CallRecord> {
    return this.call('POST', '/calls', req);
  }

  /** Calls to or from this phone, oldest first (status; rejectedByDevice when a linked device rejected it). */
  calls(phone: string): Promise<CallRecord[]> {
    return this.call('GET', `${this.u(phone)}/calls`);
  }

  /** A contact's chat state (composing/recording/paused) or presence (available/unavailable, to subscribed devices). */
  presence(req: PresenceRequest): Promise<{ delivered: number }> {
    return this.call('POST', '/presence', req);
  }

  /** An account's presence, its devices' subscriptions and the chat states its phone received from linked devices. */
  presenceInfo(phone: string): Promise<PresenceInfo> {
    return this.call('GET', `${this.u(phone)}/presence`);
  }

  /** The account's own phone reads received messages: read-self receipts to its linked devices (READ_BY_ME). */
  ownerRead(req: OwnerReadRequest): Promise<OwnerReadResult> {
    return this.call('POST', '/owner-read', req);
  }

  /** Retry receipts a phone got for messages it sent, and what it did with each. */
  retries(phone: string): Promise<RetryRecord[]> {
    return this.call('GET', `${this.u(phone)}/retries`);
  }

  /** Fault: the server loses the acks/receipts of the account's linked devices, so what they were sent stays held. */
  setAckLoss(phone: string, enabled: boolean): Promise<{ phone: string; devices: number }> {
    return this.call('PUT', `${this.u(phone)}/ack-loss`, { enabled });
  }

  /** A business's catalog as the network holds it: products (hidden ones too), collections, cart setting. */
  catalog(phone: string): Promise<CatalogInfo> {
    return this.call('GET', `${this.u(phone)}/catalog`);
  }

  /** The business's phone adds a product to its catalog (images as base64 bytes). */
  seedProduct(phone: string, req: SeedProductRequest): Promise<CatalogProductInfo> {
    return this.call('POST', `${this.u(phone)}/catalog/products`, req);
  }

  /** The business's phone makes a collection of its products. */
  seedCollection(phone: string, req: SeedCollectionRequest): Promise<{ id: string; name: string; productIds: string[] }> {
    return this.call('POST', `${this.u(phone)}/catalog/collections`, req);
  }

  /** Polls `received(phone)` until a message matches or the timeout passes. */
  async waitForReceived(phone: string, match: (m: ReceivedMessage) => boolean, timeoutMs = 10_000): Promise<ReceivedMessage> {
    // A guard in real time (the client runs beside the network, not on its clock); 50 ms between
    // polls keeps loopback traffic light.
    const deadline = wallNow() + timeoutMs;
    while (wallNow() < deadline) {
      const found = (await this.received(phone)).find(match);
      if (found) return found;
      await realDelay(50);
    }
    throw new Error(`timed out waiting for a message received by ${phone}`);
  }
}
