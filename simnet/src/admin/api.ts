// Admin operations on a running simnet (the HTTP layer and in-process callers share these).
import type { AdminContext } from '../server/context.js';
import { HttpError } from '../http-error.js';
import { removeDevice } from '../handlers/devices.js';
import { contactReceipt, type ReceiptKind } from '../handlers/receipts.js';
import { composeContactMessage, contactStanzaAttrs } from '../contacts/compose.js';
import { defaultBroadcastListId, phoneSendBroadcastList } from '../contacts/broadcast.js';
import type { MediaFault } from '../media/host.js';
import { phoneSendViewOnceUnavailable } from '../contacts/unavailable.js';
import { phoneSendDirect, phoneSendGroup } from '../contacts/outbound.js';
import { digitsOf, isGroupJid, lidJid, pnJid } from '../network/jid.js';
import type { Account } from '../network/accounts.js';
import { groupNode, notifyGroup } from '../handlers/group-notify.js';
import type { AddressingInfo, FaultRequest, GroupInfo, ProfileInfo, SendAsContactRequest, SimnetStats, UserInfo } from './types.js';
import { hasBlocked, profileOf } from '../network/profiles.js';
import type { ReceiptPolicy } from '../config.js';
import { applyGroupAction, groupExtras } from '../handlers/group-actions.js';
import { callStore, placeCall } from '../handlers/calls.js';
import { contactPresence } from '../handlers/presence.js';
import { ownerRead } from '../handlers/owner-read.js';
import { rememberPoll } from '../handlers/message-helpers.js';
import { chatSettings, phoneChangesChat, type ChatSettings, type PhoneChatChange } from '../handlers/chat-state.js';
import { addressBook, type AddressBookEntry } from '../handlers/address-book.js';
import { chatNotes, type ChatNote } from '../handlers/chat-notes.js';
import { phoneEditsLabel, phoneLabels, phoneLabelsChat, seedPredefinedLabels, type PhoneLabelEdit, type PhoneLabels } from '../handlers/labels.js';
import { businessProfileOf, categoryById, MAX_CATEGORIES, MAX_WEBSITES, type BusinessProfile } from '../network/business.js';
import type { Group } from '../network/groups.js';
import type { HistorySeedRequest, HistorySummary } from '../network/phone-history.js';
import { applyAckLoss, applyFault, applyMediaFault } from './faults.js';
import { historyOf, seedPhoneHistory } from './history.js';
import { simnetStats } from './stats.js';
import type {
  CallOutcome,
  CallRecord,
  CallRequest,
  GroupActionRequest,
  GroupActionResult,
  OwnerReadRequest,
  OwnerReadResult,
  PresenceInfo,
  PresenceRequest,
  PresenceState,
  RetryRecord,
} from './types.js';

export class AdminApi {
  constructor(private readonly net: AdminContext) {}

  account(phone: string): Account {
    const acc = this.net.registry.byNumber(digitsOf(phone));
    if (!acc) throw new HttpError(404, `no such user ${phone}`);
    return acc;
  }

  /** `business`: the account is a WhatsApp Business account (set once; a later call without it keeps it). */
  createUser(phone: string, pushName?: string, business = false): { phone: string; lid: string } {
    const digits = digitsOf(phone);
    if (!digits) throw new HttpError(400, 'phone required');
    const acc = this.net.registry.create(digits, pushName);
    if (business) acc.business = true;
    return { phone: acc.phone, lid: acc.lid };
  }

  /** A new business's phone sets up WhatsApp Business's five predefined labels (once). */
  async setUpBusiness(phone: string): Promise<void> {
    await seedPredefinedLabels(this.net, this.business(phone));
  }

  user(phone: string): UserInfo {
    const acc = this.account(phone);
    return {
      phone: acc.phone,
      lid: acc.lid,
      pushName: acc.pushName,
      banned: acc.banned,
      business: acc.business,
      devices: [...acc.companions.values()]
        .filter((d) => !d.removed)
        .map((d) => ({
          id: d.id,
          online: d.online,
          platform: d.platform,
          held: d.offline.length,
          heldMessages: d.offline.filter((n) => n.tag === 'message').map((n) => n.attrs.id ?? ''),
          preKeys: d.preKeys.size,
          maxSockets: d.maxSockets,
          replacedSockets: d.replacedSockets,
        })),
    };
  }

  /** The account's profile, privacy, lists and blocklist as linked devices set them. */
  profile(phone: string): ProfileInfo {
    const acc = this.account(phone);
    const p = profileOf(acc);
    return {
      phone: acc.phone,
      pushName: acc.pushName,
      about: p.about,
      picture: p.picture ? { id: p.picture.id, bytes: p.picture.bytes.length, url: `https://${this.net.media?.hostname ?? 'mmg.whatsapp.net'}${p.picture.directPath}` } : null,
      privacy: Object.fromEntries(p.privacy),
      disallowed: Object.fromEntries([...p.disallowed].map(([k, v]) => [k, [...v]])),
      blocked: [...p.blocked],
      disappearingSeconds: p.disappearingSeconds,
    };
  }

  /** A chat as the account's phone holds it (archived, pinned, muted, read), after linked devices' patches. */
  chatState(phone: string, chat: string): ChatSettings {
    return chatSettings(this.account(phone), chat);
  }

  /** The phone changes a chat (archive, pin, mute, read): linked devices get the app-state patch. */
  async changeChat(phone: string, chat: string, change: PhoneChatChange): Promise<{ patches: number; devices: number }> {
    return phoneChangesChat(this.net, this.account(phone), chat, change);
  }

  /** The phone's address book: contacts its linked devices saved (app-state `contact` mutations). */
  addressBook(phone: string): AddressBookEntry[] {
    return addressBook(this.account(phone));
  }

  /** A business account's profile as the network keeps it (categories with their names). */
  businessProfile(phone: string): BusinessProfile & { categoryNames: string[] } {
    const p = businessProfileOf(this.business(phone));
    return { ...p, websites: [...p.websites], categories: [...p.categories], categoryNames: p.categories.map((id) => categoryById(id)?.displayName ?? id) };
  }

  /** The business edits its profile on its phone (only the fields given). */
  setBusinessProfile(phone: string, change: Partial<BusinessProfile>): BusinessProfile & { categoryNames: string[] } {
    const p = businessProfileOf(this.business(phone));
    if (change.websites && change.websites.length > MAX_WEBSITES) throw new HttpError(400, `at most ${MAX_WEBSITES} websites`);
    if (change.categories && (change.categories.length < 1 || change.categories.length > MAX_CATEGORIES || change.categories.some((id) => !categoryById(id)))) {
      throw new HttpError(400, `categories: 1 to ${MAX_CATEGORIES} known ids`);
    }
    for (const key of ['description', 'address', 'email'] as const) if (typeof change[key] === 'string') p[key] = change[key];
    if (change.websites) p.websites = [...change.websites];
    if (change.categories) p.categories = [...change.categories];
    if (change.hours !== undefined) p.hours = change.hours;
    return this.businessProfile(phone);
  }

  /** The business phone's labels and the chats they are on (after its linked devices' patches). */
  labels(phone: string): PhoneLabels {
    return phoneLabels(this.business(phone));
  }

  /** The phone creates, edits or deletes a label: its linked devices get the app-state patch. */
  async editLabel(phone: string, edit: PhoneLabelEdit): Promise<{ devices: number }> {
    const acc = this.business(phone);
    if (typeof edit.id !== 'string' || !/^\d{1,10}$/.test(edit.id)) throw new HttpError(400, 'id: a label id (digits) required');
    if (!edit.deleted && (typeof edit.name !== 'string' || !edit.name.trim())) throw new HttpError(400, 'name required');
    if (edit.deleted && !phoneLabels(acc).labels.some((l) => l.id === edit.id)) throw new HttpError(404, `no label ${edit.id}`);
    return phoneEditsLabel(this.net, acc, edit);
  }

  /** The phone puts a label on a chat, or takes it off: its linked devices get the app-state patch. */
  async labelChat(phone: string, labelId: string, chat: string, labeled: boolean): Promise<{ devices: number }> {
    const acc = this.business(phone);
    if (!phoneLabels(acc).labels.some((l) => l.id === labelId)) throw new HttpError(404, `no label ${labelId}`);
    if (!chat) throw new HttpError(400, 'chat required');
    return phoneLabelsChat(this.net, acc, labelId, chat, labeled);
  }

  /** The business phone's chat notes, as its linked devices wrote them (app-state `note_edit` mutations). */
  chatNotes(phone: string): ChatNote[] {
    return chatNotes(this.business(phone));
  }

  private business(phone: string): Account {
    const acc = this.account(phone);
    if (!acc.business) throw new HttpError(409, `${acc.phone} is not a business account`);
    return acc;
  }

  /** The profile picture's bytes (base64), as the device uploaded it. */
  profilePicture(phone: string): { base64: string } {
    const picture = profileOf(this.account(phone)).picture;
    if (!picture) throw new HttpError(404, `${phone} has no profile picture`);
    return { base64: picture.bytes.toString('base64') };
  }

  unlinkDevice(phone: string, deviceId?: number): { removed: number[] } {
    const acc = this.account(phone);
    const removed: number[] = [];
    for (const d of acc.activeCompanions()) {
      if (deviceId !== undefined && d.id !== deviceId) continue;
      removeDevice(this.net, d, true);
      removed.push(d.id);
    }
    return { removed };
  }

  async sendAsContact(req: SendAsContactRequest): Promise<{ messageId: string; dropped?: true }> {
    const from = this.account(req.from);
    // The id is fixed before composing: media is remembered under it for media retry.
    const id = req.id ?? this.net.newId();
    const opts = (msg: Parameters<typeof contactStanzaAttrs>[1]) => ({ id, attrs: contactStanzaAttrs(req, msg) });
    if (isGroupJid(req.to)) {
      const group = this.net.groups.get(req.to);
      if (!group) throw new HttpError(404, `no such group ${req.to}`);
      if (!group.participants.has(from.phone)) throw new HttpError(403, `${from.phone} is not in ${req.to}`);
      if (req.viaBroadcastList) throw new HttpError(400, 'viaBroadcastList is for 1:1 targets');
      const msg = await composeContactMessage(this.net, from, group.jid, from.phone, req, { id });
      // Every member's phone holds the poll or event (with its secret), the sender's included.
      for (const m of group.members()) {
        const acc = this.net.registry.byNumber(m.phone);
        if (acc) rememberPoll(acc, id, msg, pnJid(from.phone), lidJid(from.lid));
      }
      return { messageId: await phoneSendGroup(this.net, from, group, msg, opts(msg)) };
    }
    const to = this.account(req.to);
    // As WhatsApp does: the server takes the message from the blocked sender and never delivers it.
    if (hasBlocked(to, from)) {
      this.net.counters.inc('blocked.dropped');
      return { messageId: id, dropped: true };
    }
    const msg = await composeContactMessage(this.net, from, pnJid(to.phone), to.phone, req, { id });
    // The sender keeps its own poll's secret too: the votes it gets are encrypted with it.
    rememberPoll(from, id, msg, pnJid(from.phone), lidJid(from.lid));
    if ((req.type === 'image' || req.type === 'video') && req.viewOnce && req.viewOnceUnavailable) {
      return { messageId: phoneSendViewOnceUnavailable(this.net, from, to, id) };
    }
    if (req.viaBroadcastList) {
      const listId = req.broadcastListId ?? defaultBroadcastListId(from);
      return { messageId: await phoneSendBroadcastList(this.net, from, to, msg, listId, opts(msg)) };
    }
    return { messageId: await phoneSendDirect(this.net, from, to, msg, opts(msg)) };
  }

  /** Downloads of media `contactPhone` uploaded get `fault` (null clears it). */
  setMediaFault(contactPhone: string, fault: MediaFault | null): { phone: string; fault: MediaFault | null } {
    return applyMediaFault(this.net, this.account(contactPhone), fault);
  }

  receipt(contactPhone: string, messageIds: string[], kind: ReceiptKind, device = 0): { sent: string[]; unknown: string[] } {
    const acc = this.account(contactPhone);
    const sent: string[] = [];
    const unknown: string[] = [];
    for (const id of messageIds) (contactReceipt(this.net, acc, id, kind, device) ? sent : unknown).push(id);
    return { sent, unknown };
  }

  setPolicy(phone: string, policy: Partial<ReceiptPolicy>): ReceiptPolicy {
    const acc = this.account(phone);
    acc.policy = { ...acc.policy, ...policy };
    return acc.policy;
  }

  injectFault(phone: string, fault: FaultRequest): { affected: number } {
    return applyFault(this.net, this.account(phone), fault);
  }

  setGroupAddable(phone: string, addable: boolean): { phone: string; groupAddable: boolean } {
    const acc = this.account(phone);
    acc.groupAddable = addable;
    return { phone: acc.phone, groupAddable: addable };
  }

  /** How the account's phone is addressed to others from now on (network/addressing.ts). */
  setAddressing(phone: string, change: Partial<AddressingInfo>): AddressingInfo & { phone: string; lid: string } {
    const acc = this.account(phone);
    if (typeof change.lidAddressing === 'boolean') acc.addressing.lid = change.lidAddressing;
    if (typeof change.hideNumber === 'boolean') acc.addressing.hideNumber = change.hideNumber;
    return { phone: acc.phone, lid: acc.lid, lidAddressing: acc.addressing.lid, hideNumber: acc.addressing.hideNumber };
  }

  /** A contact's phone creates a group (its linked members hear the w:gp2 create notification). */
  createGroup(creator: string, subject: string, participants: string[]): GroupInfo {
    const owner = this.account(creator);
    const g = this.net.groups.create(subject, owner.phone);
    g.participants.set(owner.phone, { phone: owner.phone, role: 'superadmin' });
    for (const p of participants) {
      const acc = this.net.registry.byNumber(digitsOf(p));
      if (acc && acc.groupAddable) g.participants.set(acc.phone, { phone: acc.phone, role: null });
    }
    notifyGroup(this.net, g, owner, { tag: 'create', attrs: {}, content: [groupNode(this.net, g)] });
    return this.group(g.jid);
  }

  /** Process memory and population, for the density bench. */
  stats(): SimnetStats {
    return simnetStats(this.net);
  }

  /** Groups the account is a member of, oldest first (what its phone's chat list shows). */
  groupsOf(phone: string): GroupInfo[] {
    const acc = this.account(phone);
    return [...this.net.groups.all()].filter((g) => g.participants.has(acc.phone)).map((g) => this.group(g.jid));
  }

  group(jid: string): GroupInfo {
    const g = this.net.groups.get(jid);
    if (!g) throw new HttpError(404, `no such group ${jid}`);
    return {
      jid: g.jid,
      subject: g.subject,
      creator: g.creatorPhone,
      participants: g.members().map((m) => ({ phone: m.phone, lid: lidJid(this.net.registry.byNumber(m.phone)?.lid ?? ''), role: m.role })),
      announce: g.announce,
      locked: g.locked,
      memberAddMode: g.memberAddMode,
      joinApproval: g.joinApproval,
      inviteCode: g.inviteCode,
      ...groupExtras(g),
    };
  }

  // Network and contact events towards linked devices: group changes by others, calls, presence, read-self, retries.

  /** Someone other than the linked device changes a group: state changes, member devices hear the notification. */
  groupAction(req: GroupActionRequest): GroupActionResult {
    const g = this.net.groups.get(req.group);
    if (!g) throw new HttpError(404, `no such group ${req.group}`);
    const actor = this.account(req.actor);
    const out = applyGroupAction(this.net, g, actor, { action: req.action, participants: req.participants, value: req.value, method: req.method });
    return { ...out, group: this.group(g.jid) };
  }

  /** A contact calls an account: offer to its linked devices, then the outcome. */
  call(req: CallRequest): CallRecord {
    const valid: CallOutcome[] = ['missed', 'cancelled', 'rejected', 'accepted', 'ringing'];
    if (!valid.includes(req.outcome)) throw new HttpError(400, `outcome must be one of ${valid.join(', ')}`);
    const rec = placeCall(this.net, this.account(req.from), this.account(req.to), req);
    return { ...rec };
  }

  /** Calls placed to or by this phone, oldest first (status, rejectedByDevice). */
  calls(phone: string): CallRecord[] {
    return callStore(this.net).involving(this.account(phone).phone);
  }

  /** A contact's chat state or online presence, as the linked devices of `to` (or all subscribers) see it. */
  presence(req: PresenceRequest): { delivered: number } {
    const states: PresenceState[] = ['composing', 'recording', 'paused', 'available', 'unavailable'];
    if (!states.includes(req.state)) throw new HttpError(400, `state must be one of ${states.join(', ')}`);
    const from = this.account(req.from);
    let to: Account | Group | undefined;
    if (req.to && isGroupJid(req.to)) {
      to = this.net.groups.get(req.to);
      if (!to) throw new HttpError(404, `no such group ${req.to}`);
      if (req.state === 'available' || req.state === 'unavailable') throw new HttpError(400, 'groups get chat states only');
    } else if (req.to) to = this.account(req.to);
    else if (req.state !== 'available' && req.state !== 'unavailable') throw new HttpError(400, 'to required for chat states');
    return { delivered: contactPresence(this.net, from, { state: req.state, to, lastSeen: req.lastSeen, viaLid: req.viaLid }) };
  }

  /** Presence as simnet sees it for an account: its own presence, its devices' subscriptions, chat states it received. */
  presenceInfo(phone: string): PresenceInfo {
    const acc = this.account(phone);
    return {
      phone: acc.phone,
      presence: { ...acc.presence },
      devices: acc.activeCompanions().map((d) => ({ id: d.id, subscriptions: [...d.presenceSubs.keys()], lastPresence: d.lastPresence })),
      chatstates: acc.chatstatesReceived,
    };
  }

  /** The account's own phone reads messages it received: read-self receipts to its linked devices (READ_BY_ME). */
  ownerRead(req: OwnerReadRequest): OwnerReadResult {
    if (!Array.isArray(req.ids) || !req.ids.length) throw new HttpError(400, 'ids required');
    return ownerRead(this.net, this.account(req.phone), req.ids, req.chat);
  }

  /** Retry receipts this phone got for messages it sent, and what it did (resent, relayed, unknown, exhausted, failed). */
  retries(phone: string): RetryRecord[] {
    return this.account(phone).retryLog;
  }

  /**
   * Seeds what the account's phone holds (chats, messages, push names); a device linked afterwards
   * receives it as history sync. Replaces any history seeded before.
   */
  seedHistory(phone: string, req: HistorySeedRequest): HistorySummary {
    return seedPhoneHistory(this.account(phone), req, this.net.now());
  }

  /** The history the account's phone holds (what a newly linked device gets). */
  history(phone: string): HistorySummary {
    return historyOf(this.account(phone), phone);
  }

  /** Fault: the server loses the acks and receipts of the account's linked devices (everything sent stays held). */
  setAckLoss(phone: string, enabled: boolean): { phone: string; devices: number } {
    return applyAckLoss(this.account(phone), enabled);
  }
}
