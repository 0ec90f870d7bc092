// Group administration as the API and the use cases name it: what can be done to a group's
// participants and join requests, and what the network answered. The engine's port
// (sessions/families/group-admin/group-admin-port.ts) speaks the same words.

export type ParticipantAction = 'add' | 'remove' | 'promote' | 'demote';
export type JoinRequestAction = 'approve' | 'reject';

/** A group the account is in, as the network lists it. */
export interface ParticipatingGroup {
  /** `<digits>-group` */
  groupId: string;
  subject: string;
  /** ms */
  creation: number;
}

/** What the network answered for one phone of a participant change: '200' done, else its error code. */
export interface ParticipantOutcome {
  phone: string;
  status: string;
}
