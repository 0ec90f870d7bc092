// Write-ahead for one socket: nothing leaves the device before what it depends on is on disk.
// Baileys sends the delivery receipt — which tells the network to stop holding the message for this
// device — before it hands the message to the application. From the moment Baileys has an incoming
// message's content until the event reporting it is committed, the gate holds every outgoing frame
// and the key store keeps Signal state written meanwhile in memory; when the last held message is
// recorded, the deferred keys are committed and then the frames go, in order (they are the
// Noise-encrypted stream: nothing may overtake). So a receipt never precedes its event, and the keys
// on disk are never ahead of the events: a crash at any point leaves keys that decrypt again what
// the network delivers again (a message recorded twice that way is reported once: the outbox keeps
// one event per message id).
//
// A decryption's own key writes are deferred too, whatever the gate holds: they are the ratchet
// step (and the one-time pre-key) the message consumed, and the message's hold starts only once
// Baileys has its content, after the decryption committed. Before, a message decrypted while
// nothing else was held reached the disk ahead of its event; a kill there left the redelivered copy
// undecryptable ("Key used already"), and Baileys drops such a copy for good
// (test/e2e/two-way-kill9.test.ts). Frames are not held for a decryption: it waits for the key
// store's one transaction at a time (key-transactions.ts), which a send may hold while it waits for
// the network's answer to a query — holding that query's frame would deadlock both. Writes a
// decryption deferred go with the next flush: its message's, or the end of its message task.
//
// The session also holds the gate from each creds update until the creds are saved (the pairing
// reply and pre-key uploads follow one at once); the same frames and deferred keys wait for it.
//
// Baileys is told held frames were written, so its handler goes on to emit the message (which
// settles the hold); a hold never outlasts `maxHoldMs` (a commit that slow lets the frames go, and
// the counter says so). Only messages that came from the network are held for: the stanza ids seen
// arriving are remembered, so the device's own sends (which Baileys records the same way) never
// stall the link.
import type { Cancel, Clock } from '../../clock.js';
import type { KeyWriteDeferral } from './auth-state.js';
import type { WASocket } from './socket-config.js';
import { ScopedStorage } from './tx-storage.js';

type Send = (data: unknown, optionsOrCb?: unknown, cb?: unknown) => void;
type Callback = (err?: Error) => void;

/** How many arrived-but-unsettled stanza ids are remembered at most (a bound, not a working set). */
const MAX_ARRIVED = 10_000;

/** The calls of Baileys' signal repository that take a receiving ratchet step. */
const DECRYPTING_CALLS = ['decryptMessage', 'decryptGroupMessage', 'processSenderKeyDistributionMessage'] as const;

type AsyncCall = (...args: unknown[]) => Promise<unknown>;

export interface GateHooks {
  /** Commits the Signal state deferred while the gate was closed; runs before held frames go. */
  flushState(): Promise<void>;
  /** The deferred state could not be committed: the link must go (the network delivers again). */
  failed(err: unknown): void;
  heldTooLong(): void;
}

export class ReceiptGate implements KeyWriteDeferral {
  private readonly arrived = new Set<string>();
  /** Held messages, each with the cancel of its hold limit. */
  private readonly pending = new Map<string, Cancel>();
  private held: (() => void)[] = [];
  private draining = false;
  private closed = false;

  constructor(
    private readonly clock: Clock,
    /** A guard on our own commit (a slow disk), so never scaled. */
    private readonly maxHoldMs: number,
    private readonly hooks: GateHooks,
  ) {}

  /**
   * Marks the key writes made inside Baileys' decryptions. A scope of the process's one storage
   * (tx-storage.ts): an AsyncLocalStorage per socket would slow every promise of the process.
   */
  private readonly decrypting = new ScopedStorage<true>();

  /** Key writes wait while anything is held or being released, and inside a decryption. */
  active(): boolean {
    return this.holding() || (!this.closed && this.decrypting.getStore() === true);
  }

  /** Frames wait while a received message is unrecorded or deferred state is being committed. */
  private holding(): boolean {
    return !this.closed && (this.pending.size > 0 || this.draining || this.held.length > 0);
  }

  /** Wraps the socket's frame writer and its message hand-over; call once, right after creating it. */
  install(sock: WASocket): void {
    const raw = (sock.ws as unknown as { socket: { send: Send } | null }).socket;
    const manager = sock.messageRetryManager;
    if (!raw || !manager) return;
    const send = raw.send.bind(raw);
    raw.send = (data, optionsOrCb, cb) => {
      if (!this.holding()) return send(data, optionsOrCb, cb);
      this.held.push(() => send(data, optionsOrCb, cb));
      // Written, as far as Baileys knows: it may go on to emit the message (which settles the hold).
      const done = (typeof optionsOrCb === 'function' ? optionsOrCb : cb) as Callback | undefined;
      done?.();
    };
    // Baileys runs each received message in one task of its message mutex (looked up on the
    // object at each call, so wrapping it in place reaches its handler). Decryptions inside a task
    // defer their writes; the task's end flushes what no message hold took over.
    let inTask = 0;
    const mutex = sock.messageMutex as unknown as { mutex: (task: () => Promise<unknown>) => Promise<unknown> };
    const runExclusive = mutex.mutex.bind(mutex);
    mutex.mutex = (task) =>
      runExclusive(async () => {
        inTask++;
        try {
          return await task();
        } finally {
          inTask--;
          if (this.pending.size === 0) void this.drain();
        }
      });
    const repository = sock.signalRepository as unknown as Record<(typeof DECRYPTING_CALLS)[number], AsyncCall>;
    for (const name of DECRYPTING_CALLS) {
      const call = repository[name].bind(repository);
      repository[name] = (...args) => (inTask > 0 ? this.decrypting.run(true, () => call(...args)) : call(...args));
    }
    sock.ws.on('CB:message', (node: { attrs: { id?: string } }) => {
      const id = node.attrs.id;
      if (!id) return;
      if (this.arrived.size >= MAX_ARRIVED) this.arrived.clear();
      this.arrived.add(id);
    });
    // Called by Baileys right after a message decrypts, before its receipt is written, and after
    // each of our own sends leaves. Received messages are not kept; our sends are, in Baileys' own
    // bounded cache (minutes): a retry receipt can come back before the store has the sent message.
    const keepSent = manager.addRecentMessage.bind(manager);
    manager.addRecentMessage = (to: string, id: string, message: Parameters<typeof keepSent>[2]) => {
      if (this.arrived.delete(id)) this.hold(id);
      else keepSent(to, id, message);
    };
  }

  /** Holds frames until `settle(id)` (or the hold limit). */
  hold(id: string): void {
    if (this.closed || this.pending.has(id)) return;
    const cancel = this.clock.setGuard(this.maxHoldMs, () => {
      this.hooks.heldTooLong();
      this.settle(id);
    });
    this.pending.set(id, cancel);
  }

  /** Whether a message id came from the network on this socket and is not settled yet. */
  isHeld(id: string): boolean {
    return this.pending.has(id);
  }

  /** The event for `id` is committed (or nothing is to be reported): its receipt may go. */
  settle(id: string): void {
    const cancel = this.pending.get(id);
    if (!cancel) return;
    cancel();
    this.pending.delete(id);
    if (this.pending.size === 0) void this.drain();
  }

  /** The socket is gone: nothing is held any more (what was held is redelivered by the network). */
  close(): void {
    this.closed = true;
    for (const cancel of this.pending.values()) cancel();
    this.pending.clear();
    this.held = [];
  }

  /** Commits deferred state, then lets the frames held so far go; frames held meanwhile wait their turn. */
  private async drain(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      while (!this.closed && this.pending.size === 0 && this.held.length > 0) {
        const frames = this.held;
        this.held = [];
        await this.hooks.flushState();
        if (this.closed) return;
        for (const write of frames) write();
      }
      // Writes deferred with no frame behind them (a message whose receipt already went) still go.
      if (!this.closed && this.pending.size === 0) await this.hooks.flushState();
    } catch (err) {
      this.hooks.failed(err);
    } finally {
      this.draining = false;
    }
    if (!this.closed && this.pending.size === 0 && this.held.length > 0) void this.drain();
  }
}
