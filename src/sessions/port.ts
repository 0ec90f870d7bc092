// What services may ask of the WhatsApp sessions. The engine (Baileys) implements it; until an
// instance has a live session every network operation fails with a typed "not connected" error.


export interface PhoneCheck {
  inputPhone: string;
  exists: boolean;
  /** The number as the network knows it (digits), or the input when it does not exist. */
  outputPhone: string;
  lid: string | null;
}

interface GroupParticipant {
  phone: string;
  isAdmin: boolean;
  isSuperAdmin: boolean;
  /** `<digits>@lid` when known (groups address members by LID; docs/contract.md §5). */
  lid: string | null;
}

/** The Group object of the spec: ids as `<digits>-group`, phones as numbers, times in ms. */
export interface GroupInfo {
  phone: string;
  owner: string;
  subject: string;
  description: string;
  creation: number;
  invitationLink: string | null;
  contactsCount: number;
  participantsCount: number;
  participants: GroupParticipant[];
  adminOnlyMessage: boolean;
  adminOnlySettings: boolean;
  requireAdminApproval: boolean;
  isGroupAnnouncement: boolean;
  subjectTime: number;
  subjectOwner: string;
  communityId: string | null;
}

export interface CreatedGroup {
  /** `<digits>-group` */
  groupId: string;
  inviteLink: string | null;
  phonesNotAdded: string[];
}

export interface GroupSettingsChange {
  adminOnlyMessage?: boolean;
  adminOnlySettings?: boolean;
  requireAdminApproval?: boolean;
  adminOnlyAddMember?: boolean;
}

export interface DeleteMessageRequest {
  phone: string;
  messageId: string;
  owner: boolean;
}

/** send-kinds: mark a received message read (Z-API read-message). */
export interface ReadMessageRequest {
  phone: string;
  messageId: string;
}

export interface SessionsPort {
  /** True when the instance has an open socket to the network. */
  isConnected(instanceId: string): boolean;
  /** Starts a pairing session if none is live; resolves with the current QR string or null. */
  qr(instanceId: string, waitMs: number): Promise<string | null>;
  pairingCode(instanceId: string, phone: string): Promise<string>;
  restart(instanceId: string): Promise<void>;
  /** Unlinks the device (logout) and wipes its credentials. */
  logout(instanceId: string): Promise<void>;
  /** Stops the session of a deleted instance (logging out if paired). */
  remove(instanceId: string): Promise<void>;
  /** Applies the anti-ban setting to a running session; false when no session is running. */
  applyAntiban(instanceId: string, enabled: boolean): boolean;
  checkPhones(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]>;
  /** How many of these numbers have no fresh answer in the cache (would be asked of the network). */
  uncheckedPhones?(phones: readonly string[]): Promise<number>;
  /**
   * Creates a group. `requestId` names the request: asked again with the same id (a retry after a
   * crash), the network answers with the group it already made instead of making another.
   */
  createGroup(instanceId: string, subject: string, phones: readonly string[], requestId: string): Promise<CreatedGroup>;
  updateGroupSettings(instanceId: string, groupId: string, change: GroupSettingsChange): Promise<void>;
  groupInvitationMetadata(instanceId: string, code: string): Promise<GroupInfo>;
  groupMetadata(instanceId: string, groupId: string): Promise<GroupInfo>;
  deleteMessage(instanceId: string, request: DeleteMessageRequest): Promise<void>;
  /** Sends a read receipt for a received message. */
  readMessage(instanceId: string, request: ReadMessageRequest): Promise<void>;
}

/** One queued message handed by the sender to the engine. */
export interface OutboundMessage {
  instanceId: string;
  zaapId: string;
  /** Fixed at enqueue: the id the message carries on the network (resends reuse it). */
  messageId: string;
  /** `<digits>`, `<digits>-group` or `<digits>@lid` as stored in the queue. */
  phone: string;
  message: import('../domain/outgoing.js').OutgoingMessage;
}

/** A restriction signal from the network (nack 463/475, rate-overlimit, 403): the sender pauses. */
export interface RestrictionSignal {
  instanceId: string;
  reason: string;
  /** True when the account itself is gone (banned / logged out): no point retrying. */
  fatal: boolean;
}

/**
 * What the sender needs from the engine. Implemented by the session manager.
 * `sendMessage` resolves once the network has the stanza (server ack where available) and
 * rejects with a DomainError (`not_connected`: try again later; `network_refused`: fail the message;
 * `command_timeout`) or a SendFailure (media: permanent or transient, with its code); the sender's
 * failures.ts classifies them.
 */
export interface MessageTransport {
  isConnected(instanceId: string): boolean;
  sendMessage(message: OutboundMessage): Promise<void>;
  /** Shows "typing…" (composing) or "recording audio…" (recording) to `phone` for the next send, or clears it (paused). */
  sendPresence(instanceId: string, phone: string, state: 'composing' | 'recording' | 'paused'): Promise<void>;
  /** Called whenever an instance's connection opens or closes. */
  onConnectionChange(listener: (instanceId: string, connected: boolean) => void): void;
  onRestriction(listener: (signal: RestrictionSignal) => void): void;
}
