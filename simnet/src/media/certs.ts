// Test certificates minted in-process: a CA and a server certificate signed by it, for simnet's media
// host and the test suite's HTTPS receivers. Keys and signatures come from node:crypto, the X.509
// structure from @peculiar/asn1-x509 — no `openssl` command, so nothing beyond Node and npm is needed
// (README.md, "Two commands"). Everything here is synchronous: callers mint on first use.
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  ExtendedKeyUsage,
  Extension,
  Extensions,
  GeneralName,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_extKeyUsage,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  id_ce_subjectKeyIdentifier,
  id_kp_serverAuth,
} from '@peculiar/asn1-x509';
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { wallNow } from '../clock.js';

/** ecdsa-with-SHA256 (RFC 5758 §3.2): the signature of every certificate minted here (P-256 keys). */
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
/** Backdated so a clock a little behind the one that minted it still accepts the certificate. */
const BACKDATE_MS = 60 * 60 * 1000;

export interface TestCertificates {
  /** PEM of the CA that signed the server certificate (what a client trusts). */
  caPem: string;
  /** PEM of the server certificate. */
  certPem: string;
  /** PEM (PKCS#8) of the server certificate's private key. */
  keyPem: string;
}

export interface TestCertificateSpec {
  caName: string;
  serverName: string;
  /** Subject alternative names: IP literals (v4 or v6) and DNS names. Node refuses an IP host
   *  without an IP SAN, even with the CA trusted. */
  ips: readonly string[];
  dnsNames: readonly string[];
  days: number;
}

function commonName(cn: string): Name {
  return new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: COMMON_NAME, value: new AttributeValue({ utf8String: cn }) })])]);
}

function extension(extnID: string, critical: boolean, value: object): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

function spki(publicKey: KeyObject): { info: SubjectPublicKeyInfo; keyId: Buffer } {
  const info = AsnConvert.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo);
  // RFC 5280 §4.2.1.2 method (1): SHA-1 of the subjectPublicKey bits.
  const keyId = createHash('sha1').update(Buffer.from(info.subjectPublicKey)).digest();
  return { info, keyId };
}

function toPem(label: string, der: ArrayBuffer | Buffer): string {
  const b64 = Buffer.from(der as ArrayBuffer).toString('base64');
  return `-----BEGIN ${label}-----\n${b64.replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;
}

/** A positive serial of 16 random bytes (RFC 5280 §4.1.2.2: at most 20 octets, non-negative). */
function serial(): ArrayBuffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f | 0x01;
  return new Uint8Array(bytes).buffer;
}

interface SignedBy {
  name: Name;
  keyId: Buffer;
  privateKey: KeyObject;
}

function certificate(subject: Name, key: { info: SubjectPublicKeyInfo; keyId: Buffer }, issuer: SignedBy, days: number, extensions: Extension[]): string {
  // Validity on the wall clock, not the network's: TLS stacks check it against their own real clock.
  const now = wallNow();
  const algorithm = new AlgorithmIdentifier({ algorithm: ECDSA_WITH_SHA256 });
  const tbs = new TBSCertificate({
    version: Version.v3,
    serialNumber: serial(),
    signature: algorithm,
    issuer: issuer.name,
    validity: new Validity({ notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * 86_400_000) }),
    subject,
    subjectPublicKeyInfo: key.info,
    extensions: new Extensions([
      ...extensions,
      extension(id_ce_subjectKeyIdentifier, false, new SubjectKeyIdentifier(new Uint8Array(key.keyId).buffer)),
      extension(id_ce_authorityKeyIdentifier, false, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(new Uint8Array(issuer.keyId).buffer) })),
    ]),
  });
  // node:crypto signs ECDSA in the DER form X.509 carries (RFC 5758 §3.2).
  const signatureValue = sign('sha256', Buffer.from(AsnConvert.serialize(tbs)), issuer.privateKey);
  const cert = new Certificate({ tbsCertificate: tbs, signatureAlgorithm: algorithm, signatureValue: new Uint8Array(signatureValue).buffer });
  return toPem('CERTIFICATE', AsnConvert.serialize(cert));
}

/** A fresh CA (P-256, basicConstraints CA:TRUE) and a server certificate it signed for the given names. */
export function mintTestCertificates(spec: TestCertificateSpec): TestCertificates {
  const caKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const ca = spki(caKeys.publicKey);
  const caName = commonName(spec.caName);
  const caSigner: SignedBy = { name: caName, keyId: ca.keyId, privateKey: caKeys.privateKey };
  const caPem = certificate(caName, ca, caSigner, spec.days, [
    extension(id_ce_basicConstraints, true, new BasicConstraints({ cA: true })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign)),
  ]);

  const leafKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const altNames = [...spec.ips.map((ip) => new GeneralName({ iPAddress: ip })), ...spec.dnsNames.map((dns) => new GeneralName({ dNSName: dns }))];
  const certPem = certificate(commonName(spec.serverName), spki(leafKeys.publicKey), caSigner, spec.days, [
    extension(id_ce_basicConstraints, false, new BasicConstraints({ cA: false })),
    extension(id_ce_keyUsage, true, new KeyUsage(KeyUsageFlags.digitalSignature)),
    extension(id_ce_extKeyUsage, false, new ExtendedKeyUsage([id_kp_serverAuth])),
    extension(id_ce_subjectAltName, false, new SubjectAlternativeName(altNames)),
  ]);
  const keyPem = leafKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { caPem, certPem, keyPem };
}

export type MediaCerts = TestCertificates;

let cached: MediaCerts | null = null;

/** The media host's CA and its 127.0.0.1/localhost/::1 server certificate, minted once per process. */
export function mediaCerts(): MediaCerts {
  cached ??= mintTestCertificates({ caName: 'simnet test CA', serverName: '127.0.0.1', ips: ['127.0.0.1', '::1'], dnsNames: ['localhost'], days: 3650 });
  return cached;
}
