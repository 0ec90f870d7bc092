// Companion registration: QR refs on the real schedule, the phone's "scan", pairing by code, pair-success,
// the companion's pair-device-sign (which links it) and the 515 restart.
import { genKeyPair } from '../cert.js';
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Curve, proto, type BinaryNode } from 'baileys';
import type { ClientConnection } from '../server/connection.js';
import type { Pairing, PairedDevice, SimnetContext } from '../server/context.js';
import { bytesOf, child, iqError, iqResult, S_WHATSAPP_NET } from '../server/stanza.js';
import { LinkedDevice, type Account } from '../network/accounts.js';
import { curveSign } from '../identity-key.js';
import { HttpError } from '../http-error.js';
import { digitsOf, lidJid, pnJid } from '../network/jid.js';

/** WhatsApp's lifetimes of QR refs (protocol ms): the first lives 60 s, the others 20 s. */
const FIRST_REF_MS = 60_000;
const NEXT_REF_MS = 20_000;
/**
 * After the last ref has lived (plus a tenth), how long the network still waits for the companion
 * before it drops the socket: a guard (clock.ts), since the companion times its own QR rotation in
 * real time and under a time-lapse would otherwise be cut off before it gives up by itself.
 */
const UNPAIRED_GRACE_MS = 5_000;
/** How long the phone waits for the companion's answer during code pairing: a guard (clock.ts). */
const CODE_FINISH_TIMEOUT_MS = 15_000;

interface RegistrationData {
  registrationId: number;
  identityKey: Buffer;
  signedPreKey: { id: number; pub: Buffer; sig: Buffer };
  platform: string;
}

interface CodeState {
  phone: string;
  wrappedCompanionEphemeral: Buffer;
  ref: string;
  noiseKey: Buffer;
  /** The code the phone entered (normalized). */
  pendingCodeText?: string;
  /** Set once the phone entered the code. */
  primaryEphemeral?: { public: Buffer; private: Buffer };
  account?: Account;
  finish?: (err: Error | null) => void;
}

interface Pending {
  conn: ClientConnection;
  reg: RegistrationData;
  refs: { ref: string; expiresAt: number }[];
  code?: CodeState;
  /** Set once pair-success was sent: waiting for pair-device-sign. */
  pairedDevice?: LinkedDevice;
  pairSuccessId?: string;
}

export class PairingManager implements Pairing {
  private readonly byConn = new Map<ClientConnection, Pending>();
  private readonly byRef = new Map<string, Pending>();

  constructor(private readonly net: SimnetContext) {}

  /** A client without credentials connected: remember its keys and send the QR refs. */
  startRegistration(conn: ClientConnection, payload: proto.ClientPayload): void {
    const d = payload.devicePairingData!;
    const reg: RegistrationData = {
      registrationId: Buffer.from(d.eRegid ?? []).readUInt32BE(0),
      identityKey: Buffer.from(d.eIdent ?? []),
      signedPreKey: { id: Buffer.from(d.eSkeyId ?? [0, 0, 0]).readUIntBE(0, 3), pub: Buffer.from(d.eSkeyVal ?? []), sig: Buffer.from(d.eSkeySig ?? []) },
      platform: platformName(d.deviceProps),
    };
    conn.phase = 'pairing';
    const refs: Pending['refs'] = [];
    let end = this.net.now();
    for (let i = 0; i < this.net.config.qrRefs; i++) {
      end += i === 0 ? FIRST_REF_MS : NEXT_REF_MS;
      refs.push({ ref: `2@${randomBytes(24).toString('base64')}`, expiresAt: end });
    }
    const pending: Pending = { conn, reg, refs };
    this.byConn.set(conn, pending);
    for (const r of refs) this.byRef.set(r.ref, pending);
    conn.sendNode({
      tag: 'iq',
      attrs: { from: S_WHATSAPP_NET, type: 'set', id: this.net.newId(), xmlns: 'md' },
      content: [{ tag: 'pair-device', attrs: {}, content: refs.map((r) => ({ tag: 'ref', attrs: {}, content: Buffer.from(r.ref) })) }],
    });
    // The real network drops an unpaired socket once all refs have lived (plus a grace period).
    const unpaired = (): boolean => this.byConn.get(conn) === pending && !pending.pairedDevice;
    this.net.after((FIRST_REF_MS + NEXT_REF_MS * (refs.length - 1)) * 1.1, () => {
      if (!unpaired()) return;
      this.net.guard(UNPAIRED_GRACE_MS, () => {
        if (unpaired()) conn.close();
      });
    });
    this.net.counters.inc('registrations');
  }

  connectionClosed(conn: ClientConnection): void {
    const p = this.byConn.get(conn);
    if (!p) return;
    this.byConn.delete(conn);
    for (const r of p.refs) this.byRef.delete(r.ref);
    // Gone after pair-success but before its pair-device-sign: the device was never linked.
    if (p.pairedDevice) this.net.counters.inc('pairings.abandoned');
    p.code?.finish?.(new Error('companion disconnected'));
  }

  /** The phone scans a QR string shown by a companion. */
  scanQr(phone: string, qr: string): PairedDevice {
    const account = this.net.registry.byNumber(digitsOf(phone));
    if (!account) throw new HttpError(404, `no such user ${phone}`);
    if (account.banned) throw new HttpError(403, 'account banned');
    const payload = qr.includes('#') ? qr.slice(qr.indexOf('#') + 1) : qr;
    const [ref, noiseB64, identityB64, advB64] = payload.split(',');
    if (!ref || !noiseB64 || !identityB64 || !advB64) throw new HttpError(400, 'malformed QR');
    const pending = this.byRef.get(ref);
    if (!pending || pending.conn.phase !== 'pairing') throw new HttpError(404, 'unknown or used QR ref');
    const entry = pending.refs.find((r) => r.ref === ref)!;
    if (this.net.now() > entry.expiresAt) throw new HttpError(410, 'QR ref expired');
    if (!pending.conn.clientStatic?.equals(Buffer.from(noiseB64, 'base64'))) throw new HttpError(400, 'QR noise key mismatch');
    if (!pending.reg.identityKey.equals(Buffer.from(identityB64, 'base64'))) throw new HttpError(400, 'QR identity mismatch');
    return this.link(account, pending, Buffer.from(advB64, 'base64'));
  }

  /** `link_code_companion_reg` stages sent by the companion (xmlns=md). */
  handleLinkCode(conn: ClientConnection, node: BinaryNode, reg: BinaryNode): void {
    const pending = this.byConn.get(conn);
    if (!pending) {
      conn.sendNode(iqError(node, 400, 'bad-request'));
      return;
    }
    if (reg.attrs.stage === 'companion_hello') {
      const ref = randomBytes(16).toString('base64');
      pending.code = {
        phone: digitsOf(reg.attrs.jid ?? ''),
        wrappedCompanionEphemeral: bytesOf(child(reg, 'link_code_pairing_wrapped_companion_ephemeral_pub')) ?? Buffer.alloc(0),
        ref,
        noiseKey: bytesOf(child(reg, 'companion_server_auth_key_pub')) ?? Buffer.alloc(0),
      };
      conn.sendNode(iqResult(node, [{ tag: 'link_code_companion_reg', attrs: {}, content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(ref) }] }]));
      return;
    }
    if (reg.attrs.stage === 'companion_finish') {
      const code = pending.code;
      if (!code?.primaryEphemeral || !code.account) {
        conn.sendNode(iqError(node, 400, 'bad-request'));
        return;
      }
      try {
        const wrapped = bytesOf(child(reg, 'link_code_pairing_wrapped_key_bundle'))!;
        const companionIdentity = bytesOf(child(reg, 'companion_identity_public'))!;
        const companionEph = this.unwrapCompanionEphemeral(code, code.pendingCodeText!);
        const companionShared = Curve.sharedKey(code.primaryEphemeral.private, companionEph);
        const salt = wrapped.subarray(0, 32);
        const iv = wrapped.subarray(32, 44);
        const key = Buffer.from(hkdfSync('sha256', companionShared, salt, 'link_code_pairing_key_bundle_encryption_key', 32));
        const d = createDecipheriv('aes-256-gcm', key, iv);
        d.setAuthTag(wrapped.subarray(wrapped.length - 16));
        const plain = Buffer.concat([d.update(wrapped.subarray(44, wrapped.length - 16)), d.final()]);
        const random = plain.subarray(64, 96);
        const identityShared = Curve.sharedKey(code.account.accountKey.private, companionIdentity);
        const adv = Buffer.from(hkdfSync('sha256', Buffer.concat([companionShared, identityShared, random]), Buffer.alloc(0), 'adv_secret', 32));
        conn.sendNode(iqResult(node));
        this.link(code.account, pending, adv);
        code.finish?.(null);
      } catch (e) {
        conn.sendNode(iqError(node, 400, 'bad-request'));
        code.finish?.(new HttpError(400, `pairing code rejected: ${(e as Error).message}`));
      }
      return;
    }
    conn.sendNode(iqResult(node));
  }

  /** The phone enters the code the companion displays; resolves once the companion finished its side. */
  async enterPairingCode(phone: string, codeText: string): Promise<PairedDevice> {
    const digits = digitsOf(phone);
    const account = this.net.registry.byNumber(digits);
    if (!account) throw new HttpError(404, `no such user ${phone}`);
    const pending = [...this.byConn.values()].find((p) => p.code?.phone === digits && !p.code.primaryEphemeral && p.conn.phase === 'pairing');
    if (!pending?.code) throw new HttpError(404, 'no companion is waiting for a pairing code for this number');
    const code = pending.code;
    const text = codeText.replace(/[\s-]/g, '').toUpperCase();
    code.pendingCodeText = text;
    code.account = account;
    const primaryEphemeral = genKeyPair();
    code.primaryEphemeral = primaryEphemeral;
    const salt = randomBytes(32);
    const iv = randomBytes(16);
    const key = pbkdf2Sync(text, salt, 2 << 16, 32, 'sha256');
    const c = createCipheriv('aes-256-ctr', key, iv);
    const wrapped = Buffer.concat([salt, iv, c.update(primaryEphemeral.public), c.final()]);
    const done = new Promise<void>((resolve, reject) => {
      const cancel = this.net.clock.setGuard(CODE_FINISH_TIMEOUT_MS, () => reject(new HttpError(504, 'companion did not finish code pairing')));
      code.finish = (err) => {
        cancel();
        if (err) reject(err);
        else resolve();
      };
    });
    pending.conn.sendNode({
      tag: 'notification',
      attrs: { from: S_WHATSAPP_NET, type: 'link_code_companion_reg', id: this.net.newId(), t: this.net.nowSec() },
      content: [
        {
          tag: 'link_code_companion_reg',
          attrs: {},
          content: [
            { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(code.ref) },
            { tag: 'primary_identity_pub', attrs: {}, content: account.accountKey.public },
            { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: wrapped },
          ],
        },
      ],
    });
    await done;
    const dev = pending.pairedDevice!;
    return { jid: pnJid(account.phone, dev.id), lid: lidJid(account.lid, dev.id), deviceId: dev.id };
  }

  /**
   * The companion answered pair-success with pair-device-sign: only now is it a linked device of
   * the account (listed on the phone, able to log in); then the stream restarts.
   */
  handlePairDeviceSign(conn: ClientConnection): void {
    const p = this.byConn.get(conn);
    if (!p?.pairedDevice) return;
    this.byConn.delete(conn);
    for (const r of p.refs) this.byRef.delete(r.ref);
    const dev = p.pairedDevice;
    dev.account.companions.set(dev.id, dev);
    this.net.counters.inc('pairings');
    conn.endWith({ tag: 'stream:error', attrs: { code: '515' } });
  }

  private unwrapCompanionEphemeral(code: CodeState, text: string): Buffer {
    const w = code.wrappedCompanionEphemeral;
    const key = pbkdf2Sync(text, w.subarray(0, 32), 2 << 16, 32, 'sha256');
    const d = createDecipheriv('aes-256-ctr', key, w.subarray(32, 48));
    return Buffer.concat([d.update(w.subarray(48, 80)), d.final()]);
  }

  /**
   * Sends pair-success with the ADV identity signed by the account key. The device gets its id
   * now but joins the account's linked devices only with the companion's pair-device-sign
   * (handlePairDeviceSign): a companion that goes away before answering leaves nothing linked.
   */
  private link(account: Account, pending: Pending, advSecret: Buffer): PairedDevice {
    if (pending.pairedDevice) throw new HttpError(409, 'already paired');
    const deviceId = account.nextDeviceId++;
    const keyIndex = account.nextKeyIndex++;
    const dev = new LinkedDevice(account, deviceId, keyIndex, pending.conn.clientStatic!, pending.reg.identityKey, pending.reg.registrationId, pending.reg.platform);
    dev.signedPreKey = pending.reg.signedPreKey;
    pending.pairedDevice = dev;
    for (const r of pending.refs) this.byRef.delete(r.ref);
    const details = proto.ADVDeviceIdentity.encode({ rawId: (Math.random() * 2 ** 31) | 0, timestamp: Math.floor(this.net.now() / 1000), keyIndex }).finish();
    const accountSignature = curveSign(account.accountKey, Buffer.concat([Buffer.from([6, 0]), details, pending.reg.identityKey]));
    const signed = proto.ADVSignedDeviceIdentity.encode({ details, accountSignatureKey: account.accountKey.public, accountSignature }).finish();
    const hmac = createHmac('sha256', advSecret).update(signed).digest();
    const container = proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish();
    const id = this.net.newId();
    pending.pairSuccessId = id;
    pending.conn.sendNode({
      tag: 'iq',
      attrs: { from: S_WHATSAPP_NET, type: 'set', id, xmlns: 'md', t: this.net.nowSec() },
      content: [
        {
          tag: 'pair-success',
          attrs: {},
          content: [
            { tag: 'device-identity', attrs: {}, content: container },
            { tag: 'platform', attrs: { name: account.business ? 'smba' : 'android' } },
            { tag: 'device', attrs: { jid: pnJid(account.phone, deviceId), lid: lidJid(account.lid, deviceId) } },
          ],
        },
      ],
    });
    return { jid: pnJid(account.phone, deviceId), lid: lidJid(account.lid, deviceId), deviceId };
  }
}

function platformName(deviceProps: Uint8Array | null | undefined): string {
  try {
    const p = proto.DeviceProps.decode(deviceProps ?? new Uint8Array());
    return p.os ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
