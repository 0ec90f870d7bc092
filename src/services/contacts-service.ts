// Phone checks: validate every number first (a bad one fails the whole call), then ask the network,
// in the request or, for a large batch, as a job the client polls (phone-check-jobs.ts).
import { errors } from '../errors.js';
import { parsePhone } from '../domain/phone.js';
import type { PhoneCheck, SessionsPort } from '../sessions/port.js';
import type { PhoneCheckJobs, PhoneCheckJobView } from './phone-check-jobs.js';

export const MAX_PHONES_PER_BATCH = 50_000;

/** The answer to a batch: Z-API's array, or the job that will produce it. */
type BatchAnswer = { kind: 'now'; results: PhoneCheck[] } | { kind: 'job'; job: PhoneCheckJobView };

export class ContactsService {
  constructor(
    private readonly sessions: SessionsPort,
    private readonly jobs?: PhoneCheckJobs,
    /** Unchecked numbers a request may wait for; more (or `async`) make a job. */
    private readonly syncMax = Infinity,
  ) {}

  /**
   * contacts/{phone}/report: WhatsApp's spam report is not something the engine (Baileys 7 rc14) can
   * send, so it is refused honestly rather than faked (docs/contract.md §7). The phone is checked
   * first, as Z-API does (400 for a bad one).
   */
  report(phone: string): never {
    parsePhone(phone);
    throw errors.notSupported('reporting a contact is not available to a linked device here: the engine has no way to send WhatsApp\'s spam report; nothing was sent (block the number with contacts/modify-blocked instead)');
  }

  /**
   * Answers at once when the network needs asking about at most `syncMax` of the numbers (the
   * others come from the cache); otherwise, or when the client asks for it, starts a job.
   */
  async existsBatchOrJob(instanceId: string, phones: readonly string[], preferAsync: boolean): Promise<BatchAnswer> {
    this.validate(phones);
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    if (this.jobs) {
      const unchecked = this.sessions.uncheckedPhones ? await this.sessions.uncheckedPhones(phones.map((p) => parsePhone(p))) : phones.length;
      if (preferAsync || unchecked > this.syncMax) return { kind: 'job', job: await this.jobs.start(instanceId, phones) };
    }
    return { kind: 'now', results: await this.existsBatch(instanceId, phones) };
  }

  async job(instanceId: string, jobId: string): Promise<PhoneCheckJobView> {
    if (!this.jobs) throw errors.notFound('Job not found');
    return this.jobs.get(instanceId, jobId);
  }

  private validate(phones: readonly string[]): void {
    const bad: string[] = [];
    phones.forEach((p, i) => {
      try {
        parsePhone(p);
      } catch {
        if (bad.length < 20) bad.push(`phones[${i}]=${JSON.stringify(p).slice(0, 40)}`);
      }
    });
    if (bad.length > 0) {
      throw errors.invalidInput(`phones: not phone numbers with country code: ${bad.join(', ')}`);
    }
  }

  async existsBatch(instanceId: string, phones: readonly string[]): Promise<PhoneCheck[]> {
    this.validate(phones);
    if (!this.sessions.isConnected(instanceId)) throw errors.notConnected();
    const results = await this.sessions.checkPhones(instanceId, phones.map((p) => parsePhone(p)));
    // The engine answers by number; report in input order with the caller's own spelling.
    return results.map((r, i) => ({ ...r, inputPhone: phones[i] ?? r.inputPhone }));
  }

  async exists(instanceId: string, phone: string): Promise<{ exists: boolean; phone: string; lid: string | null }> {
    const [r] = await this.existsBatch(instanceId, [phone]);
    if (!r) throw errors.notConnected();
    return { exists: r.exists, phone: r.outputPhone, lid: r.lid };
  }
}
