// The process-wide changes made to Baileys and libsignal, installed once by the composition root
// before any socket exists. Each is idempotent; test/unit/sessions-patches.test.ts checks that
// each is in place after the call.
import type { Logger } from '../../logger.js';
import { useKeyPairPool } from './keypair-pool.js';
import { quietLibsignalConsole } from './libsignal-console.js';
import { applyNetworkRoot } from './network-root.js';
import { useNativeVerify } from './xeddsa.js';

export interface BaileysPatchSettings {
  /** ZAPGATE_WA_ROOT_KEY: the network's certificate root (base64); WhatsApp's own when unset. */
  waRootKey?: string | undefined;
  /** Where libsignal's console lines go instead (debug level, without their key material). */
  log: Logger;
}

export function installBaileysPatches(settings: BaileysPatchSettings): void {
  // Which network: the certificate root the handshake trusts.
  applyNetworkRoot(settings.waRootKey);
  // Security fix: Baileys' own Curve.verify accepted every well-formed signature; this one checks it.
  useNativeVerify();
  // A pairing's hundreds of key pairs are made off the event loop, ahead of need.
  useKeyPairPool();
  // libsignal prints session records (with private keys) to the console: keep them out of the output.
  quietLibsignalConsole(settings.log);
}
