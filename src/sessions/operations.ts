// The network operations of one connected session: sending (with the server ack), presence,
// groups and deletions. Baileys' failures become domain errors here: a closed link is "not
// connected", a refusal carries the network's reason, a silent query is a command timeout.
import { createHash } from 'node:crypto';
import { generateWAMessageFromContent, prepareWAMessageMedia, type AnyMediaMessageContent, type BinaryNode, type GroupMetadata, type WAMessage, type proto } from 'baileys';
// Not re-exported by the package root: the parser Baileys' own groupCreate applies to the answer.
import { extractGroupMetadata } from 'baileys/lib/Socket/groups.js';
import { errors } from '../errors.js';
import { STATUS_TARGET } from '../domain/phone.js';
import type { OutboundMessage, CreatedGroup, DeleteMessageRequest, GroupInfo, GroupSettingsChange, ReadMessageRequest } from './port.js';
import { groupIdOf, groupJid, isGroup, targetJid, userOf, phoneJid } from './jids.js';
import { asSendFailure, buildParts, carriesMedia, quotedOption } from './outgoing.js';
import type { ListSettings } from './lists.js';
import type { MediaPipeline } from './media.js';
import type { ImageContent } from './outgoing-kinds.js';
import type { LiveSession } from './live-session.js';
import { openSocket, toDomainError, withTimeout } from './engine-call.js';
import { rememberGroup, type WASocket } from './socket-config.js';

export interface OperationDeps {
  media: MediaPipeline;
  /** Wall-clock ms a command may take before the caller gets "Worker command timeout". */
  commandTimeoutMs: number;
  /** The instance's list mode and numbered-text wording (one store read). */
  listSettings(instanceId: string): Promise<ListSettings>;
  /** Who sees the instance's status posts: the numbers it has talked to (digits), bounded. */
  statusAudience(instanceId: string): Promise<string[]>;
}

/** Kinds rendered by the instance's list settings: lists, buttons and the interactive send-kinds. */
const LIST_RENDERED = new Set(['option-list', 'button-list', 'button-actions', 'button-otp', 'button-pix', 'carousel']);
/** What WhatsApp wants beside a poll creation (Baileys adds it only on its own poll path). */
const POLL_NODES: BinaryNode[] = [{ tag: 'meta', attrs: { polltype: 'creation' } }];

// ---- sending --------------------------------------------------------------------------------

export async function sendOutbound(session: LiveSession, message: OutboundMessage, deps: OperationDeps): Promise<void> {
  // A media send holds one of the pipeline's bounded slots from download to upload.
  if (carriesMedia(message.message.content)) return deps.media.hold(() => sendParts(session, message, deps));
  return sendParts(session, message, deps);
}

async function sendParts(session: LiveSession, message: OutboundMessage, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(message.phone);
  // Only lists and buttons depend on the instance's list settings (a store read, skipped otherwise).
  const { type } = message.message.content;
  const list: ListSettings = LIST_RENDERED.has(type) ? await deps.listSettings(session.id) : { mode: 'poll', replyHint: null };
  const parts = await buildParts(message.message, message.messageId, {
    media: deps.media,
    listMode: list.mode,
    replyHint: list.replyHint,
    quoted: (id) => session.memory.quoted(id),
    jid,
    uploadImage: (image) => uploadImage(sock, image),
    uploadLinkThumbnail: (image) => uploadImage(sock, image, 'thumbnail-link'),
  });
  const quoted = message.message.statusReplyTo
    ? { quoted: await statusPost(session, message.message.statusReplyTo, jid) }
    : await quotedOption(message.message, { media: deps.media, listMode: 'poll', quoted: (id) => session.memory.quoted(id), jid });
  // A status post goes to the contacts listed with it (the network has no list of its own).
  const broadcast = jid === STATUS_TARGET ? { statusJidList: (await deps.statusAudience(session.id)).map(phoneJid), broadcast: true } : {};
  for (const part of parts) {
    const acked = session.tracker.expectAck(part.messageId);
    // What Baileys threw, before withTimeout turns it into a domain error: a failed media upload
    // looks like a closed link there, and must be reported as what it is (asSendFailure).
    let engineError: unknown;
    try {
      await withTimeout(deps.commandTimeoutMs, async () => {
        let sent: WAMessage;
        const isMain = part.messageId === message.messageId;
        if ('raw' in part) {
          const me = session.me?.pn ?? '';
          sent = generateWAMessageFromContent(jid, part.raw, { userJid: me, messageId: part.messageId, ...(isMain ? quoted : {}) });
          await sock.relayMessage(jid, sent.message!, { messageId: part.messageId, ...broadcast, ...(part.poll ? { additionalNodes: POLL_NODES } : {}) });
        } else {
          const result = await sock.sendMessage(jid, part.content, { messageId: part.messageId, ...broadcast, ...(isMain ? quoted : {}) }).catch((e: unknown) => {
            engineError = e;
            throw e;
          });
          if (!result) throw errors.networkRefused('the message could not be built');
          sent = result;
        }
        await session.memory.remember(sent, part.meta);
        await acked;
      });
    } catch (err) {
      session.tracker.forget(part.messageId);
      // The ack promise may still reject later (socket closed): nobody is waiting for it anymore.
      acked.catch(() => {});
      const failure = asSendFailure(engineError);
      throw failure !== engineError ? failure : err;
    }
  }
}

/**
 * The contact's status post a reply quotes: as received when the instance remembers it, else its
 * key alone (the contact's phone shows the reply under the post either way).
 */
async function statusPost(session: LiveSession, id: string, contactJid: string): Promise<WAMessage> {
  const known = await session.memory.quoted(id);
  if (known) return known;
  return { key: { remoteJid: STATUS_TARGET, fromMe: false, id, participant: contactJid }, message: { conversation: '' } } as WAMessage;
}

export async function sendPresence(session: LiveSession, phone: string, state: 'composing' | 'recording' | 'paused', deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  await withTimeout(deps.commandTimeoutMs, () => sock.sendPresenceUpdate(state, targetJid(phone)));
}

// ---- groups ---------------------------------------------------------------------------------

export interface GroupCreation {
  subject: string;
  phones: readonly string[];
  /** Names the request: the same id always sends the same create key. */
  requestId: string;
}

/**
 * The `key` of a group's create query, derived from the request (Baileys' groupCreate draws a
 * random one). WhatsApp makes one group per creator and key, and answers a repeated create with
 * the group it already made: a creation retried after a crash cannot make a second group.
 * Shaped like the ids WhatsApp Web sends: 3EB0 and 18 uppercase hex digits.
 */
export function groupCreateKey(requestId: string): string {
  return `3EB0${createHash('sha256').update(requestId).digest('hex').slice(0, 18).toUpperCase()}`;
}

export async function createGroup(session: LiveSession, creation: GroupCreation, deps: OperationDeps): Promise<CreatedGroup> {
  const { sock } = openSocket(session);
  const { subject, phones } = creation;
  return withTimeout(deps.commandTimeoutMs, async () => {
    // Baileys' groupCreate, with the request's key instead of a random one.
    const answer = await sock.query({
      tag: 'iq',
      attrs: { type: 'set', xmlns: 'w:g2', to: '@g.us' },
      content: [
        {
          tag: 'create',
          attrs: { subject, key: groupCreateKey(creation.requestId) },
          content: phones.map((p) => ({ tag: 'participant', attrs: { jid: phoneJid(p) } })),
        },
      ],
    });
    const created = extractGroupMetadata(answer);
    // The create answer lists refused participants too (with an error attribute Baileys drops):
    // only a fresh read tells who is actually in the group.
    const meta = await sock.groupMetadata(created.id);
    rememberGroup(session.caches, session.id, meta);
    const added = new Set(await Promise.all(meta.participants.map((p) => session.phoneOf(p.id, p.phoneNumber ?? null))));
    const me = session.me ? userOf(session.me.pn) : '';
    const code = await sock.groupInviteCode(meta.id).catch(() => undefined);
    return {
      groupId: groupIdOf(meta.id),
      inviteLink: code ? inviteLink(code) : null,
      phonesNotAdded: phones.filter((p) => p !== me && !added.has(p)),
    };
  });
}

export async function updateGroupSettings(session: LiveSession, groupId: string, change: GroupSettingsChange, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = groupJid(groupId);
  await withTimeout(deps.commandTimeoutMs, async () => {
    if (change.adminOnlyMessage !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlyMessage ? 'announcement' : 'not_announcement');
    if (change.adminOnlySettings !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlySettings ? 'locked' : 'unlocked');
    if (change.requireAdminApproval !== undefined) await sock.groupJoinApprovalMode(jid, change.requireAdminApproval ? 'on' : 'off');
    if (change.adminOnlyAddMember !== undefined) await sock.groupMemberAddMode(jid, change.adminOnlyAddMember ? 'admin_add' : 'all_member_add');
  });
}

export async function groupMetadata(session: LiveSession, groupId: string, deps: OperationDeps): Promise<GroupInfo> {
  const { sock } = openSocket(session);
  const jid = groupJid(groupId);
  return withTimeout(deps.commandTimeoutMs, async () => {
    const meta = await sock.groupMetadata(jid);
    rememberGroup(session.caches, session.id, meta);
    // Only admins may read the invite code; for anyone else the link is simply not known.
    const code = await sock.groupInviteCode(jid).catch(() => undefined);
    return toGroupInfo(session, meta, code ? inviteLink(code) : null);
  });
}

export async function groupInvitationMetadata(session: LiveSession, code: string, deps: OperationDeps): Promise<GroupInfo> {
  const { sock } = openSocket(session);
  return withTimeout(deps.commandTimeoutMs, async () => {
    let meta: GroupMetadata;
    try {
      meta = await sock.groupGetInviteInfo(code);
    } catch (err) {
      const d = toDomainError(err);
      if (d.code === 'network_refused') throw errors.networkRefused(`invitation link revoked or unknown: ${d.detail ?? d.message}`, err);
      throw d;
    }
    return toGroupInfo(session, meta, inviteLink(code));
  });
}

export function inviteLink(code: string): string {
  return `https://chat.whatsapp.com/${code}`;
}

export async function toGroupInfo(session: LiveSession, meta: GroupMetadata, link: string | null): Promise<GroupInfo> {
  const participants = await Promise.all(
    meta.participants.map(async (p) => ({
      phone: await session.phoneOf(p.id, p.phoneNumber ?? null),
      isAdmin: p.admin === 'admin' || p.admin === 'superadmin',
      isSuperAdmin: p.admin === 'superadmin',
    })),
  );
  const owner = meta.owner ? await session.phoneOf(meta.owner, meta.ownerPn ?? null) : '';
  const subjectOwner = meta.subjectOwner ? await session.phoneOf(meta.subjectOwner, meta.subjectOwnerPn ?? null) : owner;
  return {
    phone: groupIdOf(meta.id),
    owner,
    subject: meta.subject,
    description: meta.desc ?? '',
    creation: (meta.creation ?? 0) * 1000,
    invitationLink: link,
    contactsCount: participants.length,
    participantsCount: meta.size ?? participants.length,
    participants,
    adminOnlyMessage: !!meta.announce,
    adminOnlySettings: !!meta.restrict,
    requireAdminApproval: !!meta.joinApprovalMode,
    isGroupAnnouncement: !!meta.isCommunityAnnounce,
    subjectTime: (meta.subjectTime ?? meta.creation ?? 0) * 1000,
    subjectOwner,
    // Z-API's community id: the parent's digits (as GET /communities lists it).
    communityId: meta.linkedParent ? (meta.linkedParent.split('@')[0] ?? null) : null,
  };
}

// ---- deletion -------------------------------------------------------------------------------

/**
 * owner=true revokes our own message for everyone; owner=false revokes another participant's
 * message as group admin, or, in a 1:1 chat, deletes the message for us only (app-state patch).
 */
export async function deleteMessage(session: LiveSession, req: DeleteMessageRequest, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(req.phone);
  const stored = await session.memory.row(req.messageId);
  const remoteJid = stored?.remote_jid ?? jid;
  // A revoke of an id this instance never sent would be accepted by the network and change
  // nothing: say so instead (sent messages are remembered 14 days; WhatsApp allows revokes ~2).
  if (req.owner && !stored) throw errors.notFound('Message not found');
  if (req.owner && stored?.from_me === 0) throw errors.invalidInput('owner=true revokes your own messages: this one was received (owner=false deletes it)');
  await withTimeout(deps.commandTimeoutMs, async () => {
    if (req.owner) {
      await sock.sendMessage(jid, { delete: { remoteJid, fromMe: true, id: req.messageId } });
      return;
    }
    if (isGroup(jid)) {
      if (!stored?.participant) throw errors.networkRefused('unknown message: its sender is needed to revoke it as admin');
      await sock.sendMessage(jid, { delete: { remoteJid, fromMe: false, id: req.messageId, participant: stored.participant } });
      return;
    }
    const fromMe = stored ? stored.from_me === 1 : false;
    const timestamp = Math.floor((stored?.created_at ?? Date.now()) / 1000);
    await sock.chatModify({ deleteForMe: { key: { remoteJid, fromMe, id: req.messageId }, timestamp, deleteMedia: false } }, remoteJid);
  });
}

// ---- send-kinds: image upload for native headers, reading ---------------------------------------

/** Uploads image content to the media host and returns the imageMessage that references it (native headers, large link previews). */
async function uploadImage(sock: WASocket, image: ImageContent, as?: 'thumbnail-link'): Promise<proto.Message.IImageMessage> {
  const m = await prepareWAMessageMedia(image as AnyMediaMessageContent, { upload: sock.waUploadToServer, ...(as ? { mediaTypeOverride: as } : {}) });
  if (!m.imageMessage) throw errors.networkRefused('image: upload failed');
  return m.imageMessage;
}

/**
 * Marks a received message read (a read receipt to its sender), as Z-API's read-message does, at
 * once rather than through the queue. In groups the receipt names the sender, so the message must
 * be one the instance remembers (received in the last 14 days).
 */
export async function readMessage(session: LiveSession, req: ReadMessageRequest, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(req.phone);
  const stored = await session.memory.row(req.messageId);
  if (stored?.from_me === 1) throw errors.networkRefused('messageId: this is a message the instance sent; only received messages can be marked read');
  if (isGroup(jid) && !stored?.participant) {
    throw errors.networkRefused('messageId: unknown message; in a group its sender is needed to mark it read (messages are kept 14 days)');
  }
  const key = { remoteJid: stored?.remote_jid ?? jid, fromMe: false, id: req.messageId, ...(stored?.participant ? { participant: stored.participant } : {}) };
  await withTimeout(deps.commandTimeoutMs, () => sock.readMessages([key]));
}
