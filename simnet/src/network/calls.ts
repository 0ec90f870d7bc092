// Voice/video calls placed by simnet contacts to accounts with linked devices: what happened to each, for tests to assert.
import type { Cancel } from '../clock.js';

export type CallOutcome = 'missed' | 'cancelled' | 'rejected' | 'accepted' | 'ringing';

export type CallStatus = 'ringing' | 'missed' | 'cancelled' | 'rejected' | 'accepted' | 'ended';

export interface CallRecord {
  callId: string;
  /** Caller phone (a simnet contact). */
  from: string;
  /** Callee phone (the account whose linked devices ring). */
  to: string;
  video: boolean;
  /** What the admin asked for. */
  outcome: CallOutcome;
  status: CallStatus;
  offeredAt: number;
  endedAt?: number;
  /** Set when a linked device rejected the call itself (Baileys' rejectCall). */
  rejectedByDevice?: number;
  /** Linked devices the offer was delivered (or held) for. */
  devices: number;
}

const MAX = 5000;

export class CallStore {
  private readonly calls = new Map<string, CallRecord>();
  /** Pending timer per call (ring-out, hang-up), cancelled when the call ends otherwise. */
  readonly timers = new Map<string, Cancel>();

  add(c: CallRecord): void {
    this.calls.set(c.callId, c);
    if (this.calls.size > MAX) {
      const first = this.calls.keys().next().value;
      if (first !== undefined) this.calls.delete(first);
    }
  }

  get(id: string): CallRecord | undefined {
    return this.calls.get(id);
  }

  /** Calls that involve this phone (as caller or callee), oldest first. */
  involving(phone: string): CallRecord[] {
    return [...this.calls.values()].filter((c) => c.from === phone || c.to === phone);
  }
}
