// System events a linked device receives → Z-API's notification ReceivedCallbacks: group changes
// (Baileys turns the network's w:gp2 notifications into stub messages), missed calls (stubs too),
// call offers and answers, and deletions. Participants are reported as phones (docs/contract.md §5).
import { proto, type WAMessage } from 'baileys';
import { notificationEvent, type ReceivedCallback } from '../../events/types.js';
import type { IncomingContext } from './incoming.js';
import { groupIdOf, isGroup } from '../jids.js';

const Stub = proto.WebMessageInfo.StubType;

/** Stub types reported, by the name Z-API uses (Baileys' own name where Z-API uses the same). */
const REPORTED = new Map<number, string>([
  [Stub.GROUP_CREATE, 'GROUP_CREATE'],
  [Stub.GROUP_CHANGE_SUBJECT, 'GROUP_CHANGE_SUBJECT'],
  [Stub.GROUP_CHANGE_DESCRIPTION, 'GROUP_CHANGE_DESCRIPTION'],
  [Stub.GROUP_CHANGE_ICON, 'GROUP_CHANGE_ICON'],
  [Stub.GROUP_CHANGE_ANNOUNCE, 'GROUP_CHANGE_ANNOUNCE'],
  [Stub.GROUP_CHANGE_RESTRICT, 'GROUP_CHANGE_RESTRICT'],
  [Stub.GROUP_CHANGE_INVITE_LINK, 'GROUP_CHANGE_INVITE_LINK'],
  [Stub.GROUP_MEMBER_ADD_MODE, 'GROUP_MEMBER_ADD_MODE'],
  [Stub.GROUP_MEMBERSHIP_JOIN_APPROVAL_MODE, 'GROUP_MEMBERSHIP_JOIN_APPROVAL_MODE'],
  [Stub.GROUP_PARTICIPANT_ADD, 'GROUP_PARTICIPANT_ADD'],
  [Stub.GROUP_PARTICIPANT_REMOVE, 'GROUP_PARTICIPANT_REMOVE'],
  [Stub.GROUP_PARTICIPANT_LEAVE, 'GROUP_PARTICIPANT_LEAVE'],
  [Stub.GROUP_PARTICIPANT_PROMOTE, 'GROUP_PARTICIPANT_PROMOTE'],
  [Stub.GROUP_PARTICIPANT_DEMOTE, 'GROUP_PARTICIPANT_DEMOTE'],
  [Stub.GROUP_PARTICIPANT_INVITE, 'GROUP_PARTICIPANT_INVITE'],
  [Stub.GROUP_PARTICIPANT_CHANGE_NUMBER, 'GROUP_PARTICIPANT_CHANGE_NUMBER'],
  [Stub.GROUP_MEMBERSHIP_JOIN_APPROVAL_REQUEST_NON_ADMIN_ADD, 'MEMBERSHIP_APPROVAL_REQUEST'],
  // Communities (community-notifications.ts makes these stubs; parameters: [id, subject] or [on|off]).
  [Stub.COMMUNITY_LINK_SUB_GROUP, 'COMMUNITY_LINK_SUB_GROUP'],
  [Stub.COMMUNITY_UNLINK_SUB_GROUP, 'COMMUNITY_UNLINK_SUB_GROUP'],
  [Stub.COMMUNITY_LINK_PARENT_GROUP, 'COMMUNITY_LINK_PARENT_GROUP'],
  [Stub.COMMUNITY_UNLINK_PARENT_GROUP, 'COMMUNITY_UNLINK_PARENT_GROUP'],
  [Stub.COMMUNITY_PARENT_GROUP_DELETED, 'COMMUNITY_PARENT_GROUP_DELETED'],
  [Stub.COMMUNITY_ALLOW_MEMBER_ADDED_GROUPS, 'COMMUNITY_ALLOW_MEMBER_ADDED_GROUPS'],
  [Stub.CALL_MISSED_VOICE, 'CALL_MISSED_VOICE'],
  [Stub.CALL_MISSED_VIDEO, 'CALL_MISSED_VIDEO'],
  [Stub.CALL_MISSED_GROUP_VOICE, 'CALL_MISSED_VOICE'],
  [Stub.CALL_MISSED_GROUP_VIDEO, 'CALL_MISSED_VIDEO'],
]);

const PARTICIPANT_STUBS = new Set<number>([
  Stub.GROUP_PARTICIPANT_ADD,
  Stub.GROUP_PARTICIPANT_REMOVE,
  Stub.GROUP_PARTICIPANT_LEAVE,
  Stub.GROUP_PARTICIPANT_PROMOTE,
  Stub.GROUP_PARTICIPANT_DEMOTE,
  Stub.GROUP_PARTICIPANT_INVITE,
]);

interface StubParticipant {
  id?: string;
  phoneNumber?: string;
  lid?: string;
}

function parse<T>(s: string): T | null {
  try {
    return JSON.parse(s) as T;
  } catch {
    return null;
  }
}

/** A stub message (group change, missed call) as Z-API's notification, or null when not reported. */
export async function notificationOf(msg: WAMessage, ctx: IncomingContext): Promise<ReceivedCallback | null> {
  const type = msg.messageStubType;
  const chat = msg.key.remoteJid;
  if (!type || !chat || !msg.key.id) return null;
  let notification = REPORTED.get(type);
  if (!notification) return null;
  const group = isGroup(chat);
  const raw = msg.messageStubParameters ?? [];
  let parameters: string[] = raw;
  const extra: Record<string, unknown> = {};
  if (PARTICIPANT_STUBS.has(type)) {
    parameters = await Promise.all(
      raw.map(async (p: string) => {
        const who = parse<StubParticipant>(p);
        if (!who) return ctx.phoneOf(p, null, chat);
        return ctx.phoneOf(who.id, who.phoneNumber ?? null, chat);
      }),
    );
  } else if (type === Stub.GROUP_MEMBERSHIP_JOIN_APPROVAL_REQUEST_NON_ADMIN_ADD) {
    // [{lid, pn}, created | revoked | rejected, request method]
    const who = parse<{ lid?: string; pn?: string }>(raw[0] ?? '');
    const phone = who ? await ctx.phoneOf(who.lid ?? who.pn, who.pn ?? null, chat) : '';
    if (raw[1] !== 'created') notification = 'REVOKED_MEMBERSHIP_REQUESTS';
    parameters = phone ? [phone] : [];
    if (raw[2]) extra.requestMethod = raw[2];
  } else if (type === Stub.CALL_MISSED_VOICE || type === Stub.CALL_MISSED_VIDEO || type === Stub.CALL_MISSED_GROUP_VOICE || type === Stub.CALL_MISSED_GROUP_VIDEO) {
    extra.callId = msg.key.id;
    extra.isVideo = type === Stub.CALL_MISSED_VIDEO || type === Stub.CALL_MISSED_GROUP_VIDEO;
    parameters = [];
  }
  const keyAlt = msg.key as { participantAlt?: string; remoteJidAlt?: string };
  const actor = msg.key.participant ?? null;
  const ts = Number(msg.messageTimestamp ?? 0);
  // The network names the actor of a group change by LID: a change made by this account is "from me".
  const mine = [ctx.me.pn, ctx.me.lid].filter((j): j is string => !!j).map((j) => j.split('@')[0]!.split(':')[0]);
  const fromMe = !!msg.key.fromMe || (!!actor && mine.includes(actor.split('@')[0]!.split(':')[0]!));
  const person = group ? { phone: groupIdOf(chat), lid: null } : await ctx.personOf(chat, msg.key.fromMe ? null : (keyAlt.remoteJidAlt ?? null));
  const participant = group && actor ? await ctx.personOf(actor, keyAlt.participantAlt ?? null, chat) : null;
  return notificationEvent({
    messageId: msg.key.id,
    phone: person.phone,
    chatLid: person.lid,
    fromMe,
    momment: ts > 0 ? ts * 1000 : ctx.now(),
    status: fromMe ? 'SENT' : 'RECEIVED',
    chatName: group ? await ctx.chatName(chat) : '',
    senderName: msg.pushName ?? '',
    participantPhone: participant?.phone ?? null,
    participantLid: participant?.lid ?? null,
    isGroup: group,
    notification,
    notificationParameters: parameters,
    ...extra,
  });
}

/** Baileys' call event (an offer, an answer on the phone, the end) as Z-API's call notification. */
export interface CallInfo {
  id: string;
  chatId: string;
  from: string;
  callerPn?: string | undefined;
  status: string;
  isVideo?: boolean | undefined;
  isGroup?: boolean | undefined;
  date: Date;
}

/**
 * CALL_RECEIVED on an offer, CALL_ACCEPTED when answered (on the phone), CALL_ENDED when an
 * answered call ends. A call that ends unanswered arrives as the missed-call stub instead.
 */
export async function callNotificationOf(call: CallInfo, answered: boolean, ctx: IncomingContext): Promise<ReceivedCallback | null> {
  let notification: string;
  if (call.status === 'offer') notification = 'CALL_RECEIVED';
  else if (call.status === 'accept') notification = 'CALL_ACCEPTED';
  else if (call.status === 'terminate' && answered) notification = 'CALL_ENDED';
  else return null;
  const caller = await ctx.personOf(call.from, call.callerPn ?? null);
  return notificationEvent({
    messageId: call.id,
    phone: caller.phone,
    fromMe: false,
    momment: call.date.getTime(),
    isGroup: !!call.isGroup,
    chatLid: caller.lid,
    senderLid: caller.lid,
    notification,
    notificationParameters: [],
    callId: call.id,
    callDirection: 'incoming',
    isVideo: !!call.isVideo,
  });
}
