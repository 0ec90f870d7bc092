// Write-ahead for what the device sends: the Signal state an encryption advanced is on disk before
// the encrypted message can leave. Baileys encrypts and writes a message inside one key-store
// transaction and commits the transaction's writes only after the write: a crash in between leaves
// the contact holding a message from a ratchet step the device no longer has, and every later
// message of the contact fails to decrypt ("No matching sessions"), retries included.
//
// Holding the frames until the commit is not possible (the transaction goes on to query the network
// for devices and pre-keys after some encryptions, and would wait for its own held query). Instead
// each encryption inside a transaction writes the transaction's buffered mutations through at once,
// before control returns to Baileys; the commit then skips what is already written. Encryptions that
// run together (one per device) share one write.
import type { SignalDataSet } from 'baileys';

/** The part of Baileys' key-store transaction context this reads: the writes it has buffered. */
interface TransactionContext {
  mutations?: SignalDataSet;
}

/** What Baileys' transactions run in (tx-storage.ts's ScopedStorage for the socket). */
export interface TransactionScope {
  getStore(): unknown;
}

/** The three calls of Baileys' signal repository that advance the device's sending state. */
export interface EncryptingRepository {
  encryptMessage(...args: never[]): Promise<unknown>;
  encryptGroupMessage(...args: never[]): Promise<unknown>;
  getSenderKeyDistributionMessage(...args: never[]): Promise<unknown>;
}

const WRAPPED = ['encryptMessage', 'encryptGroupMessage', 'getSenderKeyDistributionMessage'] as const;

/**
 * Wraps the repository's encrypting calls (in place: Baileys looks them up on the object at each
 * call) so that, inside a transaction, they resolve only once its mutations are written ahead.
 */
export function installSendWriteAhead(
  repository: EncryptingRepository,
  transactions: TransactionScope,
  writeAhead: (mutations: SignalDataSet) => Promise<void>,
): void {
  const writers = new WeakMap<SignalDataSet, SharedWrite>();
  for (const name of WRAPPED) {
    const original = repository[name].bind(repository) as (...args: unknown[]) => Promise<unknown>;
    (repository as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name] = async (...args) => {
      const result = await original(...args);
      const mutations = (transactions.getStore() as TransactionContext | undefined)?.mutations;
      if (mutations && Object.keys(mutations).length > 0) {
        let writer = writers.get(mutations);
        if (!writer) writers.set(mutations, (writer = new SharedWrite(() => writeAhead(mutations))));
        await writer.request();
      }
      return result;
    };
  }
}

/**
 * A write that callers request: one runs at a time, and requests made while it runs share the one
 * that follows it (which sees everything buffered until it starts).
 */
export class SharedWrite {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly write: () => Promise<void>) {}

  request(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const run = this.write().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }
}
