// A virtual device running libsignal: a phone (device 0) of a simnet account. Decrypts what linked devices send it, encrypts what it sends.
import { genKeyPair, type KeyPair } from '../cert.js';
import { curveSign, genIdentityKeyPair, type IdentityKeyPair } from '../identity-key.js';
import * as libsignal from 'libsignal';
import {
  GroupCipher,
  GroupSessionBuilder,
  SenderKeyDistributionMessage,
  SenderKeyName,
  SenderKeyRecord,
} from 'baileys/lib/Signal/Group/index.js';

/** libsignal wants 33-byte (0x05-prefixed) public keys. */
export const signalPub = (k: Uint8Array): Buffer => (k.length === 33 ? Buffer.from(k) : Buffer.concat([Buffer.from([5]), k]));

/** Outstanding one-time pre-keys a contact keeps for bundles it handed out; bounded so idle contacts stay small. */
const MAX_OUTSTANDING_PREKEYS = 256;

export interface RemoteBundle {
  registrationId: number;
  identityKey: Buffer; // 32 bytes
  signedPreKey: { id: number; pub: Buffer; sig: Buffer };
  preKey?: { id: number; pub: Buffer };
}

export interface BundleOut {
  registrationId: number;
  identity: Buffer; // 32 bytes
  signedPreKey: { id: number; pub: Buffer; sig: Buffer };
  preKey: { id: number; pub: Buffer } | null;
}

interface LibKeyPair {
  pubKey: Buffer;
  privKey: Buffer;
}

type Record = libsignal.SessionRecord;

export class SignalDevice {
  readonly identity: IdentityKeyPair | KeyPair;
  readonly registrationId: number;
  private readonly signedPreKey: { id: number; pair: LibKeyPair; sig: Buffer };
  private readonly preKeys = new Map<number, LibKeyPair>();
  private nextPreKeyId = 1;
  private readonly sessions = new Map<string, Record>();
  private readonly senderKeys = new Map<string, SenderKeyRecord>();

  constructor(identity?: IdentityKeyPair | KeyPair) {
    this.identity = identity ?? genIdentityKeyPair();
    this.registrationId = (Math.random() * 16380 + 1) | 0;
    const spk = genKeyPair();
    this.signedPreKey = {
      id: 1,
      pair: { pubKey: signalPub(spk.public), privKey: spk.private },
      sig: curveSign(this.identity, signalPub(spk.public)),
    };
  }

  /** A fresh bundle with a never-before-issued one-time pre-key (each sender gets its own). */
  issueBundle(): BundleOut {
    const id = this.nextPreKeyId++;
    const kp = genKeyPair();
    this.preKeys.set(id, { pubKey: signalPub(kp.public), privKey: kp.private });
    if (this.preKeys.size > MAX_OUTSTANDING_PREKEYS) {
      const oldest = this.preKeys.keys().next().value;
      if (oldest !== undefined) this.preKeys.delete(oldest);
    }
    return {
      registrationId: this.registrationId,
      identity: this.identity.public,
      signedPreKey: { id: this.signedPreKey.id, pub: this.signedPreKey.pair.pubKey.subarray(1), sig: this.signedPreKey.sig },
      preKey: { id, pub: kp.public },
    };
  }

  hasSession(addr: string): boolean {
    return this.sessions.get(addr)?.haveOpenSession() ?? false;
  }

  /** Starts an outgoing session from a bundle uploaded by a linked device. */
  async initOutgoing(name: string, device: number, bundle: RemoteBundle): Promise<void> {
    const addr = new libsignal.ProtocolAddress(name, device);
    const builder = new libsignal.SessionBuilder(this.storage(), addr);
    const session = {
      registrationId: bundle.registrationId,
      identityKey: signalPub(bundle.identityKey),
      signedPreKey: { keyId: bundle.signedPreKey.id, publicKey: signalPub(bundle.signedPreKey.pub), signature: bundle.signedPreKey.sig },
      preKey: bundle.preKey ? { keyId: bundle.preKey.id, publicKey: signalPub(bundle.preKey.pub) } : undefined,
    };
    // libsignal accepts a bundle without a one-time pre-key; its .d.ts says otherwise.
    await builder.initOutgoing(session as Parameters<libsignal.SessionBuilder['initOutgoing']>[0]);
  }

  async encrypt(name: string, device: number, data: Uint8Array): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Buffer }> {
    const cipher = new libsignal.SessionCipher(this.storage(), new libsignal.ProtocolAddress(name, device));
    const { type, body } = await cipher.encrypt(data);
    return { type: type === 3 ? 'pkmsg' : 'msg', ciphertext: Buffer.from(body, 'binary') };
  }

  async decrypt(name: string, device: number, type: string, ciphertext: Uint8Array): Promise<Buffer> {
    const cipher = new libsignal.SessionCipher(this.storage(), new libsignal.ProtocolAddress(name, device));
    return type === 'pkmsg' ? cipher.decryptPreKeyWhisperMessage(ciphertext) : cipher.decryptWhisperMessage(ciphertext);
  }

  async processSenderKeyDistribution(groupId: string, name: string, device: number, skdm: Uint8Array): Promise<void> {
    const skName = new SenderKeyName(groupId, { id: name, deviceId: device, toString: () => `${name}.${device}` });
    const msg = new SenderKeyDistributionMessage(null, null, null, null, skdm);
    await new GroupSessionBuilder(this.senderKeyStore()).process(skName, msg);
  }

  async decryptGroup(groupId: string, name: string, device: number, ciphertext: Uint8Array): Promise<Uint8Array> {
    const skName = new SenderKeyName(groupId, { id: name, deviceId: device, toString: () => `${name}.${device}` });
    return new GroupCipher(this.senderKeyStore(), skName).decrypt(ciphertext);
  }

  /** Our own sender key for a group: returns the SKDM to distribute and the ciphertext. */
  async encryptGroup(groupId: string, ownName: string, data: Uint8Array): Promise<{ skdm: Uint8Array; ciphertext: Uint8Array }> {
    const skName = new SenderKeyName(groupId, { id: ownName, deviceId: 0, toString: () => `${ownName}.0` });
    const store = this.senderKeyStore();
    const dist = await new GroupSessionBuilder(store).create(skName);
    const ciphertext = await new GroupCipher(store, skName).encrypt(data);
    return { skdm: dist.serialize(), ciphertext };
  }

  /** The SKDM of our current sender key for a group (created if we never wrote there), for pairwise re-sends. */
  async groupSkdm(groupId: string, ownName: string): Promise<Uint8Array> {
    const skName = new SenderKeyName(groupId, { id: ownName, deviceId: 0, toString: () => `${ownName}.0` });
    return (await new GroupSessionBuilder(this.senderKeyStore()).create(skName)).serialize();
  }

  private senderKeyStore() {
    return {
      loadSenderKey: async (n: SenderKeyName): Promise<SenderKeyRecord> => this.senderKeys.get(n.toString()) ?? new SenderKeyRecord(),
      storeSenderKey: async (n: SenderKeyName, r: SenderKeyRecord): Promise<void> => {
        this.senderKeys.set(n.toString(), r);
      },
    };
  }

  private storage(): libsignal.SignalStorage {
    const ourIdentity: LibKeyPair = { pubKey: signalPub(this.identity.public), privKey: this.identity.private };
    return {
      loadSession: async (id: string) => this.sessions.get(id),
      storeSession: async (id: string, rec: Record) => {
        this.sessions.set(id, rec);
      },
      // Like WhatsApp clients: trust on first use; identities are not pinned in simnet.
      isTrustedIdentity: () => true,
      loadPreKey: async (id: number | string) => this.preKeys.get(Number(id)),
      removePreKey: (id: number) => {
        this.preKeys.delete(id);
      },
      loadSignedPreKey: () => this.signedPreKey.pair,
      getOurRegistrationId: () => this.registrationId,
      getOurIdentity: () => ourIdentity,
    };
  }
}
