// The simnet core: owns the registry, connections, timers and counters, and routes stanzas to the handler families.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { BinaryNode, proto } from 'baileys';
import { resolveConfig, type ResolvedConfig, type SimnetOptions } from '../config.js';
import type { Cancel, SimClock } from '../clock.js';
import { buildCertChain, genKeyPair, keyPairFromSeed, type KeyPair } from '../cert.js';
import { acceptWebSocket } from '../transport/websocket.js';
import { ClientConnection } from './connection.js';
import { Registry, type LinkedDevice } from '../network/accounts.js';
import { Counters } from '../network/counters.js';
import type { MediaHost } from '../media/host.js';
import { handleIq } from '../handlers/iq.js';
import { PairingManager } from '../handlers/pairing.js';
import { handleLogin } from '../handlers/login.js';
import { handleClientMessage } from '../handlers/messages.js';
import { handleClientReceipt, handleClientAck } from '../handlers/receipts.js';
import { handleClientLiveStanza } from '../handlers/live.js';
import { SpamDetector } from '../network/spam.js';
import { GroupStore } from '../network/groups.js';
import { NewsletterStore } from '../network/newsletters.js';
import { CatalogStore } from '../network/catalogs.js';
import { Faults } from '../network/faults.js';
import { MessageIndex } from '../network/message-index.js';
import type { ReceivedMessage } from '../contacts/content.js';
import type { AdminContext } from './context.js';
import { EventEmitter } from 'node:events';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export type AdminHandler = (req: IncomingMessage, res: ServerResponse) => void;

export class Simnet implements AdminContext {
  readonly config: ResolvedConfig;
  readonly clock: SimClock;
  readonly registry: Registry;
  readonly counters = new Counters();
  readonly root: KeyPair;
  readonly serverStatic: KeyPair;
  readonly certChain: Uint8Array;
  readonly pairing: PairingManager;
  readonly spam: SpamDetector;
  readonly groups: GroupStore;
  readonly newsletters: NewsletterStore;
  /** Business accounts' catalogs (products, collections, cart setting). */
  readonly catalogs = new CatalogStore();
  readonly faults = new Faults();
  readonly messages = new MessageIndex();
  /** 'received' (ReceivedMessage) whenever a contact decrypts something: lets in-process tests wait without polling. */
  readonly events = new EventEmitter();
  readonly connections = new Set<ClientConnection>();
  media: MediaHost | null = null;
  private http: Server | null = null;
  /** Cancels of the timers not yet fired: close() cancels them all. */
  private readonly timers = new Set<Cancel>();
  private idCounter = 0;
  private readonly idPrefix = randomBytes(3).toString('hex').toUpperCase();
  private adminHandler: AdminHandler | null = null;
  /** Event-loop delay while listening, for stats(): a blocked loop is what makes clients' pairing and keep-alives time out. */
  readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 10 });
  closed = false;

  constructor(opts: SimnetOptions = {}) {
    this.config = resolveConfig(opts);
    this.clock = this.config.clock;
    this.groups = new GroupStore(this.clock);
    this.newsletters = new NewsletterStore(this.clock);
    this.registry = new Registry(this.config.autoUserPattern, this.config.receipts);
    this.root = keyPairFromSeed(this.config.rootSeed);
    this.serverStatic = genKeyPair();
    this.certChain = buildCertChain(this.root, this.serverStatic.public).chain;
    this.pairing = new PairingManager(this);
    this.spam = new SpamDetector(this.config, this.clock, this.counters);
  }

  setAdminHandler(h: AdminHandler): void {
    this.adminHandler = h;
  }

  async listen(): Promise<number> {
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/admin') && this.adminHandler) return this.adminHandler(req, res);
      res.writeHead(404).end();
    });
    server.on('upgrade', (req, socket) => {
      const conn = acceptWebSocket(req, socket, this.clock);
      if (!conn) return;
      const client = new ClientConnection(conn, this.serverStatic, this.certChain, {
        onHandshake: (c, s, p) => this.onHandshake(c, s, p),
        onNode: (c, n) => this.onNode(c, n),
        onClosed: (c) => this.onClosed(c),
      });
      this.connections.add(client);
      this.counters.inc('connections');
    });
    this.http = server;
    this.loopDelay.enable();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.config.port, this.config.host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.loopDelay.disable();
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    for (const c of this.connections) c.destroy();
    this.connections.clear();
    await this.media?.close();
    const http = this.http;
    if (http) {
      http.closeAllConnections?.();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  }

  now(): number {
    return this.clock.now();
  }

  after(ms: number, fn: () => void): Cancel {
    return this.track((run) => this.clock.setTimer(ms, run), fn);
  }

  guard(ms: number, fn: () => void): Cancel {
    return this.track((run) => this.clock.setGuard(ms, run), fn);
  }

  /** A timer close() cancels, whose `fn` never runs once simnet closed. */
  private track(set: (run: () => void) => Cancel, fn: () => void): Cancel {
    const cancel = (): void => {
      this.timers.delete(cancel);
      clockCancel();
    };
    const clockCancel = set(() => {
      this.timers.delete(cancel);
      if (!this.closed) fn();
    });
    this.timers.add(cancel);
    return cancel;
  }

  /** Server-generated stanza / message id. */
  newId(): string {
    return `${this.idPrefix}${(++this.idCounter).toString(16).toUpperCase().padStart(10, '0')}`;
  }

  nowSec(): string {
    return Math.floor(this.clock.now() / 1000).toString();
  }

  /** Hands a stanza to a linked device now, or holds it until the device is online and active. */
  deliver(device: LinkedDevice, node: BinaryNode): void {
    if (device.removed) return;
    device.offline.push(node);
    const link = device.link;
    if (link && link.isOnline && (link as ClientConnection).active) link.sendNode(node);
  }

  /** Pushes everything held for a device (marked offline), then the end-of-queue marker. */
  flushOffline(conn: ClientConnection, device: LinkedDevice): void {
    const held = device.offline;
    for (const node of held) {
      conn.sendNode(this.config.markOffline ? { ...node, attrs: { ...node.attrs, offline: '1' } } : node);
    }
    conn.sendNode({ tag: 'ib', attrs: {}, content: [{ tag: 'offline', attrs: { count: String(held.length) } }] });
  }

  /**
   * The client acknowledged a stanza we delivered: stop holding it. An ack is for one delivery, the
   * oldest held with that id (a phone's re-send after a retry receipt has the id of the message it
   * replaces, and the nack Baileys sends after its retry receipt is for the copy it failed on); a
   * delivery receipt is for the message, every copy.
   */
  acknowledged(device: LinkedDevice, tag: string, id: string, copies: 'oldest' | 'all' = 'oldest'): void {
    const matches = (n: BinaryNode) => n.tag === tag && n.attrs.id === id;
    if (copies === 'all') {
      device.offline = device.offline.filter((n) => !matches(n));
      return;
    }
    const i = device.offline.findIndex(matches);
    if (i >= 0) device.offline.splice(i, 1);
  }

  emitReceived(m: ReceivedMessage): void {
    this.events.emit('received', m);
  }

  private onHandshake(conn: ClientConnection, clientStatic: Buffer, payload: proto.ClientPayload): void {
    if (payload.devicePairingData) this.pairing.startRegistration(conn, payload);
    else handleLogin(this, conn, clientStatic, payload);
  }

  private onNode(conn: ClientConnection, node: BinaryNode): void {
    this.counters.inc(`in.${node.tag}`);
    try {
      switch (node.tag) {
        case 'iq':
          handleIq(this, conn, node);
          return;
        case 'message':
          // One at a time per connection: libsignal ratchets must see messages in the order they were sent.
          conn.messageChain = conn.messageChain
            .then(() => handleClientMessage(this, conn, node))
            .catch((e) => this.config.log('message handling failed', e));
          return;
        case 'receipt':
          handleClientReceipt(this, conn, node);
          return;
        case 'ack':
          handleClientAck(this, conn, node);
          return;
        case 'call':
        case 'presence':
        case 'chatstate':
          handleClientLiveStanza(this, conn, node);
          return;
        default:
          // ib (unified_session): nothing to route in simnet.
          return;
      }
    } catch (e) {
      this.config.log('stanza handling failed', e);
    }
  }

  private onClosed(conn: ClientConnection): void {
    this.connections.delete(conn);
    this.pairing.connectionClosed(conn);
    const dev = conn.device;
    if (dev && dev.link === conn) dev.link = null;
  }
}
