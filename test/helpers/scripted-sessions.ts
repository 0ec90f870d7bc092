// A scripted SessionsPort for HTTP contract tests only: it lets the success shapes of the
// synchronous network routes be checked without an engine. (End-to-end tests use the real engine
// and simnet; this never stands in for them.)
import { errors } from '../../src/errors.js';
import type { CreatedGroup, DeleteMessageRequest, GroupInfo, GroupSettingsChange, PhoneCheck, SessionsPort } from '../../src/sessions/port.js';

export interface ScriptedSessions extends SessionsPort {
  /** Instances that count as connected. */
  readonly connected: Set<string>;
  /** Instances that have a QR to show (while not connected). */
  readonly qrs: Map<string, string>;
  readonly calls: { op: string; instanceId: string; args: unknown }[];
  /** Make createGroup fail with this reason (network refusal). */
  failCreateGroup: string | null;
}

export const SAMPLE_GROUP: GroupInfo = {
  phone: '120363099999999999-group',
  owner: '5511999990000',
  subject: 'Family',
  description: 'our group',
  creation: 1_700_000_000_000,
  invitationLink: 'https://chat.whatsapp.com/ABCDEFGHIJKLMNOPQRSTUV',
  contactsCount: 2,
  participantsCount: 2,
  participants: [
    { phone: '5511999990000', lid: '70000000000001@lid', isAdmin: true, isSuperAdmin: true },
    { phone: '5511988887777', lid: null, isAdmin: false, isSuperAdmin: false },
  ],
  adminOnlyMessage: false,
  adminOnlySettings: true,
  requireAdminApproval: false,
  isGroupAnnouncement: false,
  subjectTime: 1_700_000_100_000,
  subjectOwner: '5511999990000',
  communityId: null,
};

export function scriptedSessions(): ScriptedSessions {
  const connected = new Set<string>();
  const qrs = new Map<string, string>();
  const calls: ScriptedSessions['calls'] = [];
  const self: ScriptedSessions = {
    connected,
    qrs,
    calls,
    failCreateGroup: null,
    isConnected: (id) => connected.has(id),
    async qr(id) {
      calls.push({ op: 'qr', instanceId: id, args: null });
      return connected.has(id) ? null : (qrs.get(id) ?? null);
    },
    async pairingCode(id, phone) {
      calls.push({ op: 'pairingCode', instanceId: id, args: phone });
      return 'ABCD1234';
    },
    async restart(id) {
      calls.push({ op: 'restart', instanceId: id, args: null });
    },
    async logout(id) {
      calls.push({ op: 'logout', instanceId: id, args: null });
      connected.delete(id);
    },
    async remove(id) {
      calls.push({ op: 'remove', instanceId: id, args: null });
      connected.delete(id);
    },
    applyAntiban: (id) => connected.has(id),
    async checkPhones(id, phones): Promise<PhoneCheck[]> {
      calls.push({ op: 'checkPhones', instanceId: id, args: phones });
      if (!connected.has(id)) throw errors.notConnected();
      // Numbers ending in an even digit exist; the engine answers with digits.
      return phones.map((p) => {
        const exists = Number(p.at(-1)) % 2 === 0;
        return { inputPhone: p, exists, outputPhone: p, lid: exists ? `${p.slice(-6)}99@lid` : null };
      });
    },
    async createGroup(id, subject, phones, requestId): Promise<CreatedGroup> {
      calls.push({ op: 'createGroup', instanceId: id, args: { subject, phones, requestId } });
      if (self.failCreateGroup) throw errors.networkRefused(self.failCreateGroup);
      return { groupId: SAMPLE_GROUP.phone, inviteLink: SAMPLE_GROUP.invitationLink, phonesNotAdded: phones.slice(1) };
    },
    async updateGroupSettings(id, groupId, change: GroupSettingsChange) {
      calls.push({ op: 'updateGroupSettings', instanceId: id, args: { groupId, change } });
      if (!connected.has(id)) throw errors.notConnected();
    },
    async groupInvitationMetadata(id, code) {
      calls.push({ op: 'groupInvitationMetadata', instanceId: id, args: code });
      if (code === 'REVOKEDREVOKED') throw errors.networkRefused('invite link revoked');
      return SAMPLE_GROUP;
    },
    async groupMetadata(id, groupId) {
      calls.push({ op: 'groupMetadata', instanceId: id, args: groupId });
      return { ...SAMPLE_GROUP, phone: groupId };
    },
    async deleteMessage(id, request: DeleteMessageRequest) {
      calls.push({ op: 'deleteMessage', instanceId: id, args: request });
    },
    async readMessage(id, request) {
      calls.push({ op: 'readMessage', instanceId: id, args: request });
      if (!connected.has(id)) throw errors.notConnected();
    },
  };
  return self;
}
