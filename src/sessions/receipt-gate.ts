// Write-ahead for one socket: nothing leaves the device before what it depends on is on disk.
// Baileys sends the delivery receipt — which tells the network to stop holding the message for this
// device — before it hands the message to the application. From the moment an incoming message is
// decrypted until the event reporting it is committed, the gate holds every outgoing frame and the
// key store keeps Signal state written meanwhile in memory; when the last held message is recorded,
// the deferred keys are committed and then the frames go, in order (they are the Noise-encrypted
// stream: nothing may overtake). So a receipt never precedes its event. One gap remains: the keys of
// a message decrypted while nothing else is held are committed inside Baileys' decryption, just
// before the hold starts; a crash in those milliseconds leaves keys ahead of the event, and the
// network's redelivery is then healed by a retry receipt (the sender re-encrypts).
//
// The session also holds the gate from each creds update until the creds are saved (the pairing
// reply and pre-key uploads follow one at once); the same frames and deferred keys wait for it.
//
// Baileys is told held frames were written, so its handler goes on to emit the message (which
// settles the hold); a hold never outlasts `maxHoldMs` (a commit that slow lets the frames go, and
// the counter says so). Only messages that came from the network are held for: the stanza ids seen
// arriving are remembered, so the device's own sends (which Baileys records the same way) never
// stall the link.
import type { KeyWriteDeferral } from './auth-state.js';
import type { WASocket } from './socket-config.js';

type Send = (data: unknown, optionsOrCb?: unknown, cb?: unknown) => void;
type Callback = (err?: Error) => void;

/** How many arrived-but-unsettled stanza ids are remembered at most (a bound, not a working set). */
const MAX_ARRIVED = 10_000;

export interface GateHooks {
  /** Commits the Signal state deferred while the gate was closed; runs before held frames go. */
  flushState(): Promise<void>;
  /** The deferred state could not be committed: the link must go (the network delivers again). */
  failed(err: unknown): void;
  heldTooLong(): void;
}

export class ReceiptGate implements KeyWriteDeferral {
  private readonly arrived = new Set<string>();
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private held: (() => void)[] = [];
  private draining = false;
  private closed = false;

  constructor(
    private readonly maxHoldMs: number,
    private readonly hooks: GateHooks,
  ) {}

  /** Key writes wait while anything is held or being released. */
  active(): boolean {
    return !this.closed && (this.pending.size > 0 || this.draining || this.held.length > 0);
  }

  /** Wraps the socket's frame writer and its message hand-over; call once, right after creating it. */
  install(sock: WASocket): void {
    const raw = (sock.ws as unknown as { socket: { send: Send } | null }).socket;
    const manager = sock.messageRetryManager;
    if (!raw || !manager) return;
    const send = raw.send.bind(raw);
    raw.send = (data, optionsOrCb, cb) => {
      if (!this.active()) return send(data, optionsOrCb, cb);
      this.held.push(() => send(data, optionsOrCb, cb));
      // Written, as far as Baileys knows: it may go on to emit the message (which settles the hold).
      const done = (typeof optionsOrCb === 'function' ? optionsOrCb : cb) as Callback | undefined;
      done?.();
    };
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
    const timer = setTimeout(() => {
      this.hooks.heldTooLong();
      this.settle(id);
    }, this.maxHoldMs);
    timer.unref();
    this.pending.set(id, timer);
  }

  /** Whether a message id came from the network on this socket and is not settled yet. */
  isHeld(id: string): boolean {
    return this.pending.has(id);
  }

  /** The event for `id` is committed (or nothing is to be reported): its receipt may go. */
  settle(id: string): void {
    const timer = this.pending.get(id);
    if (!timer) return;
    clearTimeout(timer);
    this.pending.delete(id);
    if (this.pending.size === 0) void this.drain();
  }

  /** The socket is gone: nothing is held any more (what was held is redelivered by the network). */
  close(): void {
    this.closed = true;
    for (const t of this.pending.values()) clearTimeout(t);
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
