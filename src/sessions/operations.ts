// The network operations of one connected session: sending (with the server ack), presence,
// groups and deletions. Baileys' failures become domain errors here: a closed link is "not
// connected", a refusal carries the network's reason, a silent query is a command timeout.
import { generateWAMessageFromContent, type GroupMetadata, type WAMessage } from 'baileys';
import { DomainError, errors } from '../errors.js';
import type { OutboundMessage, CreatedGroup, DeleteMessageRequest, GroupInfo, GroupSettingsChange } from './port.js';
import { groupIdOf, groupJid, isGroup, targetJid, userOf, phoneJid } from './jids.js';
import { buildParts, quotedOption } from './outgoing.js';
import type { ListMode } from './lists.js';
import type { MediaLoader } from './media.js';
import type { Session } from './session.js';
import { rememberGroup, type WASocket } from './socket-config.js';

export interface OperationDeps {
  media: MediaLoader;
  /** Wall-clock ms a command may take before the caller gets "Worker command timeout". */
  commandTimeoutMs: number;
  listMode(instanceId: string): Promise<ListMode>;
}

/** Status codes with which the network refuses a request, as opposed to a link that failed. */
const LINK_CODES = new Set([408, 428, 440, 500, 503, 515]);

/** The shape of Baileys' errors (@hapi/boom), read without depending on that package. */
export interface BoomLike extends Error {
  isBoom: true;
  output?: { statusCode?: number };
  data?: unknown;
}

export function isBoom(err: unknown): err is BoomLike {
  return err instanceof Error && (err as Partial<BoomLike>).isBoom === true;
}

/** Converts whatever Baileys threw into the domain's vocabulary. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  if (isBoom(err)) {
    // An <error code=…/> answer to a query: the network refused (Boom keeps the code in `data`).
    if (typeof err.data === 'number') return errors.networkRefused(`${err.message} (${err.data})`, err);
    const code = err.output?.statusCode;
    if (code === 408 && /timed? ?out/i.test(err.message)) return errors.commandTimeout();
    if ((code !== undefined && LINK_CODES.has(code)) || /connection (closed|lost|terminated)/i.test(err.message)) return errors.notConnected();
    return errors.networkRefused(`${err.message}${code ? ` (${code})` : ''}`, err);
  }
  return errors.networkRefused(err instanceof Error ? err.message : String(err), err);
}

/** Runs `fn`, failing with "Worker command timeout" after `ms` of wall-clock time. */
export async function withTimeout<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(errors.commandTimeout()), ms);
  });
  try {
    return await Promise.race([fn(), timeout]);
  } catch (err) {
    throw toDomainError(err);
  } finally {
    clearTimeout(timer);
  }
}

export function openSocket(session: Session | undefined): { session: Session; sock: WASocket } {
  if (!session?.sock || !session.open) throw errors.notConnected();
  return { session, sock: session.sock };
}

// ---- sending --------------------------------------------------------------------------------

export async function sendOutbound(session: Session, message: OutboundMessage, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(message.phone);
  // Only lists and buttons depend on the instance's list mode (a store read, skipped otherwise).
  const { type } = message.message.content;
  const parts = await buildParts(message.message, message.messageId, {
    media: deps.media,
    listMode: type === 'option-list' || type === 'button-list' ? await deps.listMode(session.id) : 'poll',
    quoted: (id) => session.memory.quoted(id),
    jid,
  });
  const quoted = await quotedOption(message.message, { media: deps.media, listMode: 'poll', quoted: (id) => session.memory.quoted(id), jid });
  for (const part of parts) {
    const acked = session.tracker.expectAck(part.messageId);
    try {
      await withTimeout(deps.commandTimeoutMs, async () => {
        let sent: WAMessage;
        if ('raw' in part) {
          const me = session.me?.pn ?? '';
          sent = generateWAMessageFromContent(jid, part.raw, { userJid: me, messageId: part.messageId });
          await sock.relayMessage(jid, sent.message!, { messageId: part.messageId });
        } else {
          const isMain = part.messageId === message.messageId;
          const result = await sock.sendMessage(jid, part.content, { messageId: part.messageId, ...(isMain ? quoted : {}) });
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
      throw err;
    }
  }
}

export async function sendPresence(session: Session, phone: string, state: 'composing' | 'paused', deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  await withTimeout(deps.commandTimeoutMs, () => sock.sendPresenceUpdate(state, targetJid(phone)));
}

// ---- groups ---------------------------------------------------------------------------------

export async function createGroup(session: Session, subject: string, phones: readonly string[], deps: OperationDeps): Promise<CreatedGroup> {
  const { sock } = openSocket(session);
  return withTimeout(deps.commandTimeoutMs, async () => {
    const created = await sock.groupCreate(subject, phones.map(phoneJid));
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

export async function updateGroupSettings(session: Session, groupId: string, change: GroupSettingsChange, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = groupJid(groupId);
  await withTimeout(deps.commandTimeoutMs, async () => {
    if (change.adminOnlyMessage !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlyMessage ? 'announcement' : 'not_announcement');
    if (change.adminOnlySettings !== undefined) await sock.groupSettingUpdate(jid, change.adminOnlySettings ? 'locked' : 'unlocked');
    if (change.requireAdminApproval !== undefined) await sock.groupJoinApprovalMode(jid, change.requireAdminApproval ? 'on' : 'off');
    if (change.adminOnlyAddMember !== undefined) await sock.groupMemberAddMode(jid, change.adminOnlyAddMember ? 'admin_add' : 'all_member_add');
  });
}

export async function groupMetadata(session: Session, groupId: string, deps: OperationDeps): Promise<GroupInfo> {
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

export async function groupInvitationMetadata(session: Session, code: string, deps: OperationDeps): Promise<GroupInfo> {
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

function inviteLink(code: string): string {
  return `https://chat.whatsapp.com/${code}`;
}

async function toGroupInfo(session: Session, meta: GroupMetadata, link: string | null): Promise<GroupInfo> {
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
    communityId: meta.linkedParent ? groupIdOf(meta.linkedParent) : null,
  };
}

// ---- deletion -------------------------------------------------------------------------------

/**
 * owner=true revokes our own message for everyone; owner=false revokes another participant's
 * message as group admin, or, in a 1:1 chat, deletes the message for us only (app-state patch).
 */
export async function deleteMessage(session: Session, req: DeleteMessageRequest, deps: OperationDeps): Promise<void> {
  const { sock } = openSocket(session);
  const jid = targetJid(req.phone);
  const stored = await session.memory.row(req.messageId);
  const remoteJid = stored?.remote_jid ?? jid;
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
