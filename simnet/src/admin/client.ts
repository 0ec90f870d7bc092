// Typed client of the simnet admin API, for tests (in-process or against a simnet child process).
import type {
  CountersSnapshot,
  FaultRequest,
  GroupInfo,
  ReceiptPolicy,
  ReceiptRecord,
  ReceivedMessage,
  SendAsContactRequest,
  SimnetInfo,
  SimnetStats,
  UserInfo,
} from './types.js';

export type * from './types.js';

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

  createUser(req: { phone: string; pushName?: string }): Promise<{ phone: string; lid: string }> {
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

  sendAsContact(req: SendAsContactRequest): Promise<{ messageId: string }> {
    return this.call('POST', '/send', req);
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

  sendReceipt(contactPhone: string, messageIds: string[], type: 'delivered' | 'read' | 'played'): Promise<{ sent: string[]; unknown: string[] }> {
    return this.call('POST', `${this.u(contactPhone)}/receipts`, { messageIds, type });
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

  /** A contact creates a group with the given members (phones). */
  createGroup(req: { creator: string; subject: string; participants: string[] }): Promise<GroupInfo> {
    return this.call('POST', '/groups', req);
  }

  group(jid: string): Promise<GroupInfo> {
    return this.call('GET', `/groups/${encodeURIComponent(jid)}`);
  }

  /** Polls `received(phone)` until a message matches or the timeout passes. */
  async waitForReceived(phone: string, match: (m: ReceivedMessage) => boolean, timeoutMs = 10_000): Promise<ReceivedMessage> {
    const deadline = Date.now() + timeoutMs;
    // Bounded by the deadline; 50 ms between polls keeps loopback traffic light.
    while (Date.now() < deadline) {
      const found = (await this.received(phone)).find(match);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for a message received by ${phone}`);
  }
}
