// The floor: the CPU that the engine's cryptography and wire encoding alone cost per text message,
// with the libraries Baileys uses (libsignal 6, as baileys@7.0.0-rc14 loads it, and Baileys' own
// WAProto, padding, binary-node codec and noise AES-GCM helpers), and nothing else: no gateway, no
// socket, no database, no webhooks. Any gateway built on this library pays at least this per message;
// compare it with the gateway's CPU per message that bench/inbound.ts and bench/e2e-send.ts print.
//
// Set-up (not measured): the gateway's device A, a contact's phone B and the account's own phone C,
// each with an identity key, a signed pre-key and a one-time pre-key; A starts a session with B and
// one with C from their pre-key bundles, each side writes once, so what follows is steady state
// (WhisperMessages, no pre-key messages). The stores are in memory and work like Baileys' signal
// storage (Signal/libsignal.js): a session is kept as SessionRecord.serialize() and deserialized on
// every load, serialized on every store.
//
// Measured (process.cpuUsage() deltas of this process, one loop at a time, after every loop has run
// once over --warmup messages not counted: with less, the first loop pays V8's optimizing compiler):
//   encrypt      A → B: the message as Baileys builds a text send (extendedTextMessage plus a
//                messageSecret), proto encode + random pad (encodeWAMessage), SessionCipher.encrypt.
//   own copy     A → C: the same wrapped in a deviceSentMessage for the account's phone, which a
//                linked device also encrypts for every 1:1 send (one more per other own device).
//   decrypt      B decrypts what A sent: SessionCipher.decryptWhisperMessage, unpad, proto decode.
//   frame out    the <message> stanza with both copies (participants/to/enc, as relayMessage builds
//                it): encodeBinaryNode + the noise transport's AES-256-GCM (aesEncryptGCM).
//   frame in     a <message><enc/></message> stanza as the server delivers one: AES-256-GCM
//                decrypt (aesDecryptGCM) + decodeBinaryNode.
// Not counted, though a real message has them too: the <ack>/<receipt> stanzas around each
// message, the reporting token, a DH ratchet step whenever a conversation changes direction,
// WebSocket framing, and persisting the session record.
//
// Usage: node --import tsx bench/crypto-floor.ts [--messages 2000] [--warmup 1000]
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import * as libsignal from 'libsignal';
import {
  aesDecryptGCM,
  aesEncryptGCM,
  Curve,
  decodeBinaryNode,
  encodeBinaryNode,
  encodeWAMessage,
  generateMessageIDV2,
  generateRegistrationId,
  generateSignalPubKey,
  proto,
  signedKeyPair,
  unpadRandomMax16,
  type BinaryNode,
  type KeyPair,
} from 'baileys';

const { values } = parseArgs({ options: { messages: { type: 'string', default: '2000' }, warmup: { type: 'string', default: '1000' } } });
const N = Number(values.messages);
const WARMUP = Number(values.warmup);
if (!Number.isInteger(N) || N < 1) throw new Error(`--messages must be a positive integer, not ${values.messages}`);
if (!Number.isInteger(WARMUP) || WARMUP < 0) throw new Error(`--warmup must be a whole number, not ${values.warmup}`);

type StoredSession = ReturnType<libsignal.SessionRecord['serialize']>;

/** One Signal device with in-memory stores shaped like Baileys' signal storage. */
class Party {
  readonly registrationId = generateRegistrationId();
  readonly identity: KeyPair = Curve.generateKeyPair();
  readonly signedPreKey = signedKeyPair(this.identity, 1);
  readonly preKeys = new Map<number, KeyPair>([[1, Curve.generateKeyPair()]]);
  readonly sessions = new Map<string, StoredSession>();
  readonly storage: libsignal.SignalStorage;

  constructor(
    readonly user: string,
    readonly jid: string,
  ) {
    const ourIdentity = { privKey: Buffer.from(this.identity.private), pubKey: Buffer.from(generateSignalPubKey(this.identity.public)) };
    this.storage = {
      loadSession: async (id) => {
        const stored = this.sessions.get(id);
        return stored ? libsignal.SessionRecord.deserialize(stored) : null;
      },
      storeSession: async (id, session) => {
        this.sessions.set(id, session.serialize());
      },
      isTrustedIdentity: () => true,
      loadPreKey: async (id) => {
        const key = this.preKeys.get(Number(id));
        return key ? { privKey: Buffer.from(key.private), pubKey: Buffer.from(key.public) } : undefined;
      },
      removePreKey: (id) => {
        this.preKeys.delete(id);
      },
      loadSignedPreKey: () => ({ privKey: Buffer.from(this.signedPreKey.keyPair.private), pubKey: Buffer.from(this.signedPreKey.keyPair.public) }),
      getOurRegistrationId: () => this.registrationId,
      getOurIdentity: () => ourIdentity,
    };
  }

  address(): libsignal.ProtocolAddress {
    return new libsignal.ProtocolAddress(this.user, 0);
  }

  /** The pre-key bundle a usync key fetch would return, as Baileys' parseAndInjectE2ESessions shapes it. */
  bundle(): Parameters<libsignal.SessionBuilder['initOutgoing']>[0] {
    const preKey = this.preKeys.get(1);
    if (!preKey) throw new Error('no one-time pre-key left');
    return {
      registrationId: this.registrationId,
      identityKey: generateSignalPubKey(this.identity.public),
      signedPreKey: { keyId: this.signedPreKey.keyId, publicKey: generateSignalPubKey(this.signedPreKey.keyPair.public), signature: this.signedPreKey.signature },
      preKey: { keyId: 1, publicKey: generateSignalPubKey(preKey.public) },
    };
  }
}

interface Sealed {
  type: 'pkmsg' | 'msg';
  ciphertext: Buffer;
}

/** As Baileys' repository.encryptMessage: a new SessionCipher per message. */
async function encrypt(from: Party, to: Party, data: Buffer): Promise<Sealed> {
  const { type, body } = await new libsignal.SessionCipher(from.storage, to.address()).encrypt(data);
  return { type: type === 3 ? 'pkmsg' : 'msg', ciphertext: Buffer.from(body, 'binary') };
}

/** As Baileys' repository.decryptMessage, then decodeMessageNode's unpad + proto decode. */
async function decrypt(at: Party, from: Party, sealed: Sealed): Promise<proto.Message> {
  const cipher = new libsignal.SessionCipher(at.storage, from.address());
  const plain = sealed.type === 'pkmsg' ? await cipher.decryptPreKeyWhisperMessage(sealed.ciphertext) : await cipher.decryptWhisperMessage(sealed.ciphertext);
  return proto.Message.decode(unpadRandomMax16(plain));
}

const text = (i: number): string => `Pedido #${String(i).padStart(6, "0")} saiu para entrega`;

/** A text send as Baileys' generateWAMessageContent builds it (messageSecret for the reporting token). */
const textMessage = (i: number): proto.IMessage => ({ extendedTextMessage: { text: text(i) }, messageContextInfo: { messageSecret: randomBytes(32) } });

/** The noise transport's per-direction state: a key and a counter in the IV (Utils/noise-handler.js). */
class Transport {
  private counter = 0;
  constructor(private readonly key: Buffer = randomBytes(32)) {}
  private iv(): Uint8Array {
    const iv = new Uint8Array(12);
    new DataView(iv.buffer).setUint32(8, this.counter++);
    return iv;
  }
  encrypt(plain: Uint8Array): Buffer {
    return aesEncryptGCM(plain, this.key, this.iv(), EMPTY);
  }
  decrypt(sealed: Uint8Array): Buffer {
    return aesDecryptGCM(sealed, this.key, this.iv(), EMPTY);
  }
}
const EMPTY = Buffer.alloc(0);

interface Measured<T> {
  results: T[];
  /** ms of CPU (user + system) of this process. */
  cpuMs: number;
  wallMs: number;
}

async function measure<T>(count: number, step: (i: number) => Promise<T> | T): Promise<Measured<T>> {
  const results: T[] = [];
  const wall0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < count; i++) results.push(await step(i));
  const cpu = process.cpuUsage(cpu0);
  return { results, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - wall0 };
}

const perMsg = (m: { cpuMs: number }): number => m.cpuMs / N;
const line = (label: string, ms: number, extra = ''): void => console.log(`${label}: ${ms.toFixed(3)} ms CPU/msg over ${N} messages${extra}`);

// --- Set-up: three devices, two sessions, each side has written once. ---
const a = new Party('5511950000001', '5511950000001:12@s.whatsapp.net'); // the gateway (a linked device)
const b = new Party('5521990000001', '5521990000001@s.whatsapp.net'); // a contact's phone
const c = new Party('5511950000001', '5511950000001@s.whatsapp.net'); // the account's own phone
for (const peer of [b, c]) {
  await new libsignal.SessionBuilder(a.storage, peer.address()).initOutgoing(peer.bundle());
  const first = await encrypt(a, peer, encodeWAMessage(textMessage(0)));
  if (first.type !== 'pkmsg') throw new Error(`the first message of a session should be a pre-key message, not ${first.type}`);
  await decrypt(peer, a, first);
  await decrypt(a, peer, await encrypt(peer, a, encodeWAMessage({ conversation: 'ok' })));
}

const dsm = (i: number): proto.IMessage => ({ deviceSentMessage: { destinationJid: b.jid, message: textMessage(i) } });
const t = Math.floor(Date.now() / 1000);

/** Every loop over `count` messages, one loop after the other; run once to warm up, once to measure. */
async function loops(count: number) {
  // Signal + proto, each direction.
  const enc = await measure(count, (i) => encrypt(a, b, encodeWAMessage(textMessage(i))));
  const own = await measure(count, (i) => encrypt(a, c, encodeWAMessage(dsm(i))));
  const dec = await measure(count, (i) => decrypt(b, a, enc.results[i]!));
  const types = new Set([...enc.results, ...own.results].map((s) => s.type));
  if (types.size !== 1 || !types.has('msg')) throw new Error(`expected only WhisperMessages, got ${[...types].join(', ')}`);
  dec.results.forEach((m, i) => {
    if (m.extendedTextMessage?.text !== text(i)) throw new Error(`message ${i} decrypted to ${JSON.stringify(m.extendedTextMessage?.text)}`);
  });

  // Informational: the session record's deserialize + serialize (one each per encrypt or decrypt).
  const stored = a.sessions.get(b.address().toString());
  if (!stored) throw new Error('no session A → B');
  const records = await measure(count, () => libsignal.SessionRecord.deserialize(stored).serialize());

  // Frames: binary node codec + noise AES-256-GCM. Out: the stanza relayMessage builds for a 1:1 send
  // (its message id made beforehand: generateMessageIDV2 is a send's cost, but not the frame's).
  const out = new Transport();
  const ids = Array.from({ length: count }, () => generateMessageIDV2(a.jid));
  const frameOut = await measure(count, (i) => {
    const node: BinaryNode = {
      tag: 'message',
      attrs: { id: ids[i]!, to: b.jid, type: 'text' },
      content: [
        {
          tag: 'participants',
          attrs: {},
          content: [
            { tag: 'to', attrs: { jid: b.jid }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: enc.results[i]!.ciphertext }] },
            { tag: 'to', attrs: { jid: c.jid }, content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: own.results[i]!.ciphertext }] },
          ],
        },
      ],
    };
    return out.encrypt(encodeBinaryNode(node)).length;
  });

  // In: what the server sends the gateway for each of B's messages, sealed beforehand (not measured).
  const inKey = randomBytes(32);
  const server = new Transport(inKey);
  const receiver = new Transport(inKey);
  const frames = enc.results.map((sealed) =>
    server.encrypt(
      encodeBinaryNode({
        tag: 'message',
        attrs: { from: b.jid, id: generateMessageIDV2(b.user), type: 'text', t: String(t), notify: 'Contato' },
        content: [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: sealed.ciphertext }],
      }),
    ),
  );
  const frameIn = await measure(count, async (i) => (await decodeBinaryNode(receiver.decrypt(frames[i]!))).tag);
  if (frameIn.results.some((tag) => tag !== 'message')) throw new Error('a frame did not decode to a <message>');
  return { enc, own, dec, records, frameOut, frameIn };
}

await loops(WARMUP);
const { enc, own, dec, records, frameOut, frameIn } = await loops(N);

const require = createRequire(import.meta.url);
const version = (pkg: string): string => (require(`${pkg}/package.json`) as { version: string }).version;
const avg = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const send = perMsg(enc) + perMsg(own) + perMsg(frameOut);
const receive = perMsg(dec) + perMsg(frameIn);
console.log(
  `crypto floor: node ${process.version}, libsignal ${version('libsignal')} as baileys ${version('baileys')} loads it; texts of ${text(0).length} chars, ` +
    `${avg(enc.results.map((s) => s.ciphertext.length)).toFixed(0)}-byte Signal messages, ${avg(frameOut.results).toFixed(0)}-byte sent frames; ` +
    `steady-state sessions (WhisperMessages only); every loop warmed up over ${WARMUP} messages not counted`,
);
line('floor encrypt (proto encode + pad + signal)', perMsg(enc));
line('floor encrypt of the own-phone copy (deviceSentMessage)', perMsg(own));
line('floor decrypt (signal + unpad + proto decode)', perMsg(dec));
line('  of which session record deserialize + serialize (Baileys storage), per encrypt or decrypt', perMsg(records), ' (included above)');
line('floor frame out (binary node encode + noise AES-256-GCM, both copies)', perMsg(frameOut));
line('floor frame in (noise AES-256-GCM + binary node decode)', perMsg(frameIn));
line('total floor, send (encrypt + own-phone copy + frame out)', send);
line('total floor, receive (decrypt + frame in)', receive);
line('total floor (one message sent + one received)', send + receive);
