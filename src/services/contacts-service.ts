// Phone checks: validate every number first (a bad one fails the whole call), then ask the network.
import { DomainError, errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { PhoneCheck, SessionsPort } from '../sessions/port.js';

export const MAX_PHONES_PER_BATCH = 50_000;

export class ContactsService {
  constructor(private readonly sessions: SessionsPort) {}

  async existsBatch(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]> {
    const bad: string[] = [];
    const digits = phones.map((p, i) => {
      try {
        return parsePhone(p);
      } catch {
        if (bad.length < 20) bad.push(`phones[${i}]=${JSON.stringify(p).slice(0, 40)}`);
        return '';
      }
    });
    if (bad.length > 0) {
      throw new DomainError('invalid_input', 'Invalid request', `phones: not phone numbers with country code: ${bad.join(', ')}`);
    }
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    const results = await this.sessions.checkPhones(instanceId, digits);
    // The engine answers by number; report in input order with the caller's own spelling.
    return results.map((r, i) => ({ ...r, inputPhone: phones[i] ?? r.inputPhone }));
  }

  async exists(instanceId: string, phone: string): Promise<{ exists: boolean; phone: string; lid: string | null }> {
    const [r] = await this.existsBatch(instanceId, [phone]);
    if (!r) throw errors.notConnected();
    return { exists: r.exists, phone: r.outputPhone, lid: r.lid };
  }
}
