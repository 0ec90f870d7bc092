// One session's credentials on disk: each creds update is saved (one write of the latest creds per
// queued slot) and the link's frames wait for it, and the pairing is recorded on the instance row
// the moment the creds first carry the account.
import type { InstancesRepo } from '../../store/instances-repo.js';
import type { StoredAuthState } from './auth-state.js';
import type { ReceiptGate } from './receipt-gate.js';
import type { WASocket } from './socket-config.js';

export interface SessionCredsDeps {
  instanceId: string;
  instances: Pick<InstancesRepo, 'update'>;
  now(): number;
  /** Queues a write behind the session's other writes (a failure is logged there). */
  persist(write: () => Promise<void>, what: string): Promise<void>;
}

export class SessionCreds {
  /** The creds write queued and not started yet: updates made meanwhile ride on it. */
  private pending: Promise<void> | null = null;
  private holds = 0;
  /** The instance row says paired (paired_at) for the creds this session holds. */
  pairingRecorded = false;

  constructor(private readonly deps: SessionCredsDeps) {}

  /**
   * Nothing leaves the device before the creds it just changed are on disk. The pairing's reply
   * (which makes the network link the device) and a pre-key upload (which publishes key ids the
   * creds count from) both follow a creds update at once: sent ahead of it, a crash leaves a linked
   * device the gateway cannot log in as, or pre-key ids handed out twice with different keys.
   */
  holdUntilSaved(auth: StoredAuthState, gate: ReceiptGate, sock: WASocket): void {
    const id = `creds:${++this.holds}`;
    gate.hold(id);
    this.save(auth).then(
      () => gate.settle(id),
      (err: unknown) => {
        gate.close();
        sock.end(err instanceof Error ? err : new Error(String(err)));
      },
    );
  }

  /**
   * A login emits creds.update several times in a row; one write of the latest creds per queued
   * slot is enough (each commit costs an fsync, and a restoring fleet logs in all at once).
   */
  private save(auth: StoredAuthState): Promise<void> {
    if (this.pending) return this.pending;
    const save = new Promise<void>((resolve, reject) => {
      void this.deps.persist(async () => {
        this.pending = null;
        try {
          await auth.saveCreds();
          await this.recordPairing(auth);
          resolve();
        } catch (err) {
          reject(err instanceof Error ? err : new Error(String(err)));
          throw err;
        }
      }, 'save creds');
    });
    // persist() logs a failure; only callers that wait on the write need to see it.
    save.catch(() => undefined);
    this.pending = save;
    return save;
  }

  /**
   * The first creds that carry the account are the pairing's (pair-success): the instance is paired
   * from here on, before the answer that makes the network link the device leaves. Killed after
   * that, the gateway restores the instance at start and logs in as that device, rather than
   * offering a new QR and leaving the linked device behind on the phone.
   */
  private async recordPairing(auth: StoredAuthState): Promise<void> {
    if (this.pairingRecorded || !auth.state.creds.account) return;
    await this.deps.instances.update(this.deps.instanceId, { paired_at: this.deps.now() });
    this.pairingRecorded = true;
  }
}
