// One client websocket: Noise handshake, then WABinary stanzas in and out; knows which linked device it speaks for.
import { decodeBinaryNode, encodeBinaryNode, type BinaryNode, type proto } from 'baileys';
import type { WsConnection } from '../transport/websocket.js';
import { NoiseResponder } from '../transport/noise.js';
import type { KeyPair } from '../cert.js';
import type { DeviceLink, LinkedDevice } from '../network/accounts.js';

export type ConnPhase = 'hello' | 'finish' | 'pairing' | 'login' | 'online' | 'closed';

export interface ConnectionHooks {
  onHandshake(conn: ClientConnection, clientStatic: Buffer, payload: proto.ClientPayload): void;
  onNode(conn: ClientConnection, node: BinaryNode): void;
  onClosed(conn: ClientConnection): void;
}

let nextConnId = 1;

export class ClientConnection implements DeviceLink {
  readonly id = nextConnId++;
  phase: ConnPhase = 'hello';
  private readonly noise: NoiseResponder;
  /** The device this connection is logged in as (after login), or the pairing candidate's data. */
  device: LinkedDevice | null = null;
  clientStatic: Buffer | null = null;
  /** Set after `<iq xmlns=passive><active/>`: the server starts pushing queued stanzas. */
  active = false;
  /** Fault injection: stop sending and reading (the client's keep-alive must notice). */
  silenced = false;
  private decodeChain: Promise<void> = Promise.resolve();
  /** Serializes processing of this connection's <message> stanzas. */
  messageChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly ws: WsConnection,
    serverStatic: KeyPair,
    certChain: Uint8Array,
    private readonly hooks: ConnectionHooks,
  ) {
    this.noise = new NoiseResponder(serverStatic, certChain);
    ws.onMessage = (data) => this.onBytes(data);
    ws.onClose = () => {
      this.phase = 'closed';
      this.hooks.onClosed(this);
    };
  }

  get isOnline(): boolean {
    return this.phase === 'online' && this.ws.isOpen && !this.silenced;
  }

  sendNode(node: BinaryNode): void {
    if (!this.ws.isOpen || this.silenced || this.phase === 'closed') return;
    this.ws.send(this.noise.encryptFrame(encodeBinaryNode(node)));
  }

  /** Sends a stream error / failure node, then closes the socket. */
  endWith(node: BinaryNode): void {
    this.sendNode(node);
    this.phase = 'closed';
    this.ws.close(1000);
  }

  close(): void {
    this.phase = 'closed';
    this.ws.close(1000);
  }

  destroy(): void {
    this.phase = 'closed';
    this.ws.destroy();
  }

  private onBytes(data: Buffer): void {
    if (this.silenced || this.phase === 'closed') return;
    let frames: Buffer[];
    try {
      frames = this.noise.pushBytes(data);
    } catch {
      this.destroy();
      return;
    }
    for (const frame of frames) this.onFrame(frame);
  }

  private onFrame(frame: Buffer): void {
    try {
      if (this.phase === 'hello') {
        this.ws.send(this.noise.handleClientHello(frame));
        this.phase = 'finish';
        return;
      }
      if (this.phase === 'finish') {
        const { clientStatic, payload } = this.noise.handleClientFinish(frame);
        this.clientStatic = clientStatic;
        this.hooks.onHandshake(this, clientStatic, payload);
        return;
      }
    } catch {
      this.destroy();
      return;
    }
    let plain: Buffer;
    try {
      plain = this.noise.decryptFrame(frame);
    } catch {
      this.destroy();
      return;
    }
    // decodeBinaryNode is async (zlib); keep stanza order by chaining.
    this.decodeChain = this.decodeChain
      .then(async () => {
        const node = await decodeBinaryNode(plain);
        if (this.phase !== 'closed' && !this.silenced) this.hooks.onNode(this, node);
      })
      .catch(() => this.destroy());
  }
}
