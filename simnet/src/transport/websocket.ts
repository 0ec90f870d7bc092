// Minimal RFC 6455 server side: enough for Baileys' `ws` client, with direct control over close/silence faults.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Cancel, SimClock } from '../clock.js';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** Frames larger than this are refused: no legitimate stanza comes close, and it bounds buffering. */
const MAX_FRAME = 64 * 1024 * 1024;

export interface WsConnection {
  send(data: Uint8Array): void;
  /** Polite close: close frame then end. */
  close(code?: number): void;
  /** Abrupt close: drop the TCP connection without a close frame. */
  destroy(): void;
  readonly isOpen: boolean;
  onMessage: (data: Buffer) => void;
  onClose: () => void;
}

/**
 * Completes the upgrade handshake and returns a connection, or null when the request is not a
 * websocket. `clock` times the guard on a client that never answers a close.
 */
export function acceptWebSocket(req: IncomingMessage, socket: Duplex, clock: Pick<SimClock, 'setGuard'>): WsConnection | null {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || req.headers.upgrade?.toLowerCase() !== 'websocket') {
    socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return null;
  }
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  socket.write(
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      `Sec-WebSocket-Accept: ${accept}\r\n\r\n`,
  );
  return new Conn(socket, clock);
}

class Conn implements WsConnection {
  onMessage: (data: Buffer) => void = () => {};
  onClose: () => void = () => {};
  private buf: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private open = true;
  private closedNotified = false;
  private cancelCloseGuard: Cancel = () => {};

  constructor(
    private readonly socket: Duplex,
    private readonly clock: Pick<SimClock, 'setGuard'>,
  ) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // The peer ended its side of the TCP connection (FIN) without a close frame: its process died
    // (the kernel closes its sockets) or it dropped the link. The server treats that as the end of
    // the session, as WhatsApp's does. The HTTP server leaves upgraded sockets half-open, so without
    // this a dead client's connection would count as logged in until two writes to it had failed,
    // and the next login of the device would be counted as a second concurrent socket.
    socket.on('end', () => {
      this.open = false;
      socket.end();
      this.finish();
    });
    socket.on('close', () => this.finish());
    socket.on('error', () => this.finish());
  }

  get isOpen(): boolean {
    return this.open;
  }

  send(data: Uint8Array): void {
    if (!this.open) return;
    this.socket.write(encodeFrame(0x2, data));
  }

  close(code = 1000): void {
    if (!this.open) return;
    this.open = false;
    const payload = Buffer.alloc(2);
    payload.writeUInt16BE(code);
    this.socket.write(encodeFrame(0x8, payload));
    this.socket.end();
    // A client that never answers the close must not keep the socket alive forever.
    this.cancelCloseGuard = this.clock.setGuard(2000, () => this.socket.destroy());
  }

  destroy(): void {
    this.open = false;
    this.socket.destroy();
    this.finish();
  }

  private finish(): void {
    this.open = false;
    this.cancelCloseGuard();
    if (this.closedNotified) return;
    this.closedNotified = true;
    this.onClose();
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    // Each iteration consumes one frame; the loop ends when the buffer holds no complete frame.
    for (;;) {
      if (this.buf.length < 2) return;
      const b0 = this.buf[0]!;
      const b1 = this.buf[1]!;
      const fin = (b0 & 0x80) !== 0;
      const opcode = b0 & 0x0f;
      const masked = (b1 & 0x80) !== 0;
      let len = b1 & 0x7f;
      let off = 2;
      if (len === 126) {
        if (this.buf.length < 4) return;
        len = this.buf.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (this.buf.length < 10) return;
        len = Number(this.buf.readBigUInt64BE(2));
        off = 10;
      }
      if (len > MAX_FRAME) {
        this.destroy();
        return;
      }
      const maskOff = off;
      if (masked) off += 4;
      if (this.buf.length < off + len) return;
      const payload = Buffer.from(this.buf.subarray(off, off + len));
      if (masked) {
        for (let i = 0; i < len; i++) payload[i]! ^= this.buf[maskOff + (i & 3)]!;
      }
      this.buf = this.buf.subarray(off + len);
      this.handleFrame(fin, opcode, payload);
      if (!this.open && this.closedNotified) return;
    }
  }

  private handleFrame(fin: boolean, opcode: number, payload: Buffer): void {
    switch (opcode) {
      case 0x0: // continuation
      case 0x1:
      case 0x2: {
        this.fragments.push(payload);
        if (fin) {
          const whole = this.fragments.length === 1 ? this.fragments[0]! : Buffer.concat(this.fragments);
          this.fragments = [];
          if (this.open) this.onMessage(whole);
        }
        return;
      }
      case 0x8: // close: echo it and end
        if (this.open) {
          this.open = false;
          this.socket.write(encodeFrame(0x8, payload.subarray(0, 2)));
        }
        this.socket.end();
        this.finish();
        return;
      case 0x9: // ping
        if (this.open) this.socket.write(encodeFrame(0xa, payload));
        return;
      default:
        return;
    }
  }
}

function encodeFrame(opcode: number, data: Uint8Array): Buffer {
  const len = data.length;
  let header: Buffer;
  if (len < 126) {
    header = Buffer.from([0x80 | opcode, len]);
  } else if (len < 65536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 126;
    header.writeUInt16BE(len, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([header, data]);
}
