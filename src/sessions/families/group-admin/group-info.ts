// The Group object of the API from the network's group metadata, the invitation link of a code,
// and the key that makes a group creation idempotent.
import { createHash } from 'node:crypto';
import type { GroupMetadata } from 'baileys';
import { notificationEvent, type ReceivedCallback } from '../../../events/types.js';
import type { LiveSession } from '../../live-session.js';
import { groupIdOf } from '../../jids.js';
import type { GroupInfo } from '../../port.js';

/**
 * The `key` of a group's create query, derived from the request (Baileys' groupCreate draws a
 * random one). WhatsApp makes one group per creator and key, and answers a repeated create with
 * the group it already made: a creation retried after a crash cannot make a second group.
 * Shaped like the ids WhatsApp Web sends: 3EB0 and 18 uppercase hex digits.
 */
export function groupCreateKey(requestId: string): string {
  return `3EB0${createHash('sha256').update(requestId).digest('hex').slice(0, 18).toUpperCase()}`;
}

export function inviteLink(code: string): string {
  return `https://chat.whatsapp.com/${code}`;
}

export async function toGroupInfo(session: LiveSession, meta: GroupMetadata, link: string | null): Promise<GroupInfo> {
  const participants = await Promise.all(
    meta.participants.map(async (p) => {
      const person = await session.personOf(p.id, p.phoneNumber ?? p.lid ?? null);
      return { phone: person.phone, lid: person.lid, isAdmin: p.admin === 'admin' || p.admin === 'superadmin', isSuperAdmin: p.admin === 'superadmin' };
    }),
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

/**
 * GROUP_CREATE for a group the API created, with both its ids (docs/contract.md §8): the pending
 * id the API answered with, and the group's own.
 */
export function groupCreatedEvent(created: { pendingId: string; groupId: string; phonesNotAdded: readonly string[] }, ownPhone: string | undefined, now: number): ReceivedCallback {
  const { pendingId, groupId, phonesNotAdded } = created;
  return notificationEvent({
    messageId: pendingId,
    phone: groupId,
    fromMe: true,
    momment: now,
    status: 'SENT',
    participantPhone: ownPhone ? ownPhone.split('@')[0] ?? null : null,
    isGroup: true,
    notification: 'GROUP_CREATE',
    notificationParameters: [groupId, pendingId, ...phonesNotAdded],
    groupId,
    pendingGroupId: pendingId,
  });
}
