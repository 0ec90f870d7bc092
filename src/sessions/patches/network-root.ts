// Which network the process talks to: Baileys checks the server's certificate chain against one
// root key (WA_CERT_DETAILS.PUBLIC_KEY); ZAPGATE_WA_ROOT_KEY replaces it (a test network, simnet).
import { WA_CERT_DETAILS } from 'baileys';

let appliedRootKey: string | undefined;

/**
 * Trusts the configured network root. Baileys reads WA_CERT_DETAILS.PUBLIC_KEY at handshake time,
 * so one process talks to one network; a second, different key is refused instead of silently
 * re-pointing every running socket.
 */
export function applyNetworkRoot(rootKeyBase64: string | undefined): void {
  if (!rootKeyBase64 || rootKeyBase64 === appliedRootKey) return;
  const key = Buffer.from(rootKeyBase64, 'base64');
  if (key.length !== 32) throw new Error('ZAPGATE_WA_ROOT_KEY: expected the base64 of a 32-byte public key');
  (WA_CERT_DETAILS as { PUBLIC_KEY: Buffer }).PUBLIC_KEY = key;
  appliedRootKey = rootKeyBase64;
}
