// Noise XX responder (the server half of Baileys' Utils/noise-handler.js) plus WA framing: intro, 3-byte lengths, AES-GCM transport.
import { createCipheriv, createDecipheriv, createHash, hkdfSync } from 'node:crypto';
import { NOISE_MODE, proto } from 'baileys';
import { x25519, x25519KeyPair } from './x25519.js';
import type { KeyPair } from '../cert.js';

const WA_INTRO = Buffer.from([87, 65, 6, 3]);
/** Bounds a single frame: the length field is 3 bytes, so this is the protocol maximum anyway. */
const MAX_FRAME = 1 << 24;

function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
}

function iv(counter: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt32BE(counter >>> 0, 8);
  return b;
}

function gcmEncrypt(key: Buffer, counter: number, aad: Uint8Array, plain: Uint8Array): Buffer {
  const c = createCipheriv('aes-256-gcm', key, iv(counter));
  c.setAAD(aad);
  return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
}

function gcmDecrypt(key: Buffer, counter: number, aad: Uint8Array, data: Uint8Array): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, iv(counter));
  d.setAAD(aad);
  d.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]);
}

function hkdf64(ikm: Uint8Array, salt: Uint8Array): [Buffer, Buffer] {
  const out = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.alloc(0), 64));
  return [out.subarray(0, 32), out.subarray(32)];
}

export interface HandshakeResult {
  /** The client's long-term Noise static key (creds.noiseKey.public). */
  clientStatic: Buffer;
  payload: proto.ClientPayload;
}

/**
 * One connection's Noise state. Feed raw websocket bytes in; it yields handshake messages, then
 * decrypted transport frames. Transport keys: client writes with the first HKDF half, we with the second.
 */
export class NoiseResponder {
  private inBytes: Buffer = Buffer.alloc(0);
  private introSeen = false;
  private h: Buffer;
  private ck: Buffer;
  private k: Buffer;
  private counter = 0;
  private ephemeral: KeyPair | null = null;
  private clientEphemeral: Buffer | null = null;
  private encKey: Buffer | null = null;
  private decKey: Buffer | null = null;
  private readCounter = 0;
  private writeCounter = 0;

  constructor(
    private readonly serverStatic: KeyPair,
    private readonly certChain: Uint8Array,
  ) {
    const mode = Buffer.from(NOISE_MODE);
    this.h = mode;
    this.ck = mode;
    this.k = mode;
  }

  get isTransport(): boolean {
    return this.encKey !== null;
  }

  /** Splits incoming bytes into frames; returns the complete frame payloads (still encrypted in transport mode). */
  pushBytes(data: Buffer): Buffer[] {
    this.inBytes = this.inBytes.length ? Buffer.concat([this.inBytes, data]) : data;
    if (!this.introSeen) {
      if (this.inBytes.length < 4) return [];
      if (this.inBytes[0] === 0x45 && this.inBytes[1] === 0x44) {
        // "ED" routing prefix: 'E','D',0,1, 3-byte length, routing info, then the WA intro.
        if (this.inBytes.length < 7) return [];
        const rlen = (this.inBytes[4]! << 16) | this.inBytes.readUInt16BE(5);
        if (this.inBytes.length < 7 + rlen + 4) return [];
        this.inBytes = this.inBytes.subarray(7 + rlen);
      }
      if (!this.inBytes.subarray(0, 4).equals(WA_INTRO)) throw new Error('bad intro');
      this.inBytes = this.inBytes.subarray(4);
      this.introSeen = true;
      this.mixHash(WA_INTRO);
    }
    const frames: Buffer[] = [];
    // Consumes whole frames only; partial frames wait for more bytes.
    while (this.inBytes.length >= 3) {
      const size = (this.inBytes[0]! << 16) | (this.inBytes[1]! << 8) | this.inBytes[2]!;
      if (size > MAX_FRAME) throw new Error('frame too large');
      if (this.inBytes.length < size + 3) break;
      frames.push(Buffer.from(this.inBytes.subarray(3, size + 3)));
      this.inBytes = this.inBytes.subarray(size + 3);
    }
    if (this.inBytes.length === 0) this.inBytes = Buffer.alloc(0);
    return frames;
  }

  /** Answers clientHello with serverHello (framed bytes to send). */
  handleClientHello(frame: Buffer): Buffer {
    const msg = proto.HandshakeMessage.decode(frame);
    const clientEph = msg.clientHello?.ephemeral;
    if (!clientEph || clientEph.length !== 32) throw new Error('missing client ephemeral');
    this.clientEphemeral = Buffer.from(clientEph);
    this.mixHash(this.clientEphemeral);
    const eph = x25519KeyPair();
    this.ephemeral = eph;
    this.mixHash(eph.public);
    this.mixKey(x25519(eph.private, this.clientEphemeral));
    const staticEnc = this.encryptHs(this.serverStatic.public);
    this.mixKey(x25519(this.serverStatic.private, this.clientEphemeral));
    const payloadEnc = this.encryptHs(this.certChain);
    const hello = proto.HandshakeMessage.encode({
      serverHello: { ephemeral: eph.public, static: staticEnc, payload: payloadEnc },
    }).finish();
    return frameBytes(hello);
  }

  /** Verifies clientFinish, derives transport keys and returns the client's static key and payload. */
  handleClientFinish(frame: Buffer): HandshakeResult {
    const msg = proto.HandshakeMessage.decode(frame);
    const fin = msg.clientFinish;
    if (!fin?.static || !fin.payload || !this.ephemeral) throw new Error('bad client finish');
    const clientStatic = this.decryptHs(Buffer.from(fin.static));
    this.mixKey(x25519(this.ephemeral.private, clientStatic));
    const payloadBytes = this.decryptHs(Buffer.from(fin.payload));
    const [c2s, s2c] = hkdf64(Buffer.alloc(0), this.ck);
    this.decKey = c2s;
    this.encKey = s2c;
    // Handshake state is no longer needed; drop it to keep per-connection memory small.
    this.ephemeral = null;
    this.clientEphemeral = null;
    return { clientStatic, payload: proto.ClientPayload.decode(payloadBytes) };
  }

  decryptFrame(frame: Buffer): Buffer {
    if (!this.decKey) throw new Error('not in transport');
    return gcmDecrypt(this.decKey, this.readCounter++, Buffer.alloc(0), frame);
  }

  /** Encrypts and frames a plaintext (flag byte + WABinary) for the wire. */
  encryptFrame(plain: Uint8Array): Buffer {
    if (!this.encKey) throw new Error('not in transport');
    return frameBytes(gcmEncrypt(this.encKey, this.writeCounter++, Buffer.alloc(0), plain));
  }

  private mixHash(data: Uint8Array): void {
    this.h = sha256(this.h, data);
  }

  private mixKey(ikm: Uint8Array): void {
    const [ck, k] = hkdf64(ikm, this.ck);
    this.ck = ck;
    this.k = k;
    this.counter = 0;
  }

  private encryptHs(plain: Uint8Array): Buffer {
    const out = gcmEncrypt(this.k, this.counter++, this.h, plain);
    this.mixHash(out);
    return out;
  }

  private decryptHs(data: Buffer): Buffer {
    const out = gcmDecrypt(this.k, this.counter++, this.h, data);
    this.mixHash(data);
    return out;
  }
}

function frameBytes(data: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(3 + data.length);
  out[0] = (data.length >>> 16) & 0xff;
  out[1] = (data.length >>> 8) & 0xff;
  out[2] = data.length & 0xff;
  out.set(data, 3);
  return out;
}
