// libsignal (under Baileys) writes to the console, some lines with whole session records that hold
// private ratchet keys ("Closing session: SessionEntry {…privKey…}"). A gateway must never print
// key material, so its known lines go to the logger as bare messages at debug level, without their
// arguments. Everything else on the console is left alone.
import type { Logger } from '../../logger.js';

const LIBSIGNAL_LINES =
  /^(Closing session|Closing open session|Closing stale open session|Opening session|Session already closed|Decrypted message with closed session|Migrating session|Failed to decrypt message with any known session|Session error|Unhandled bucket type|V1 session storage migration error|WARNING: Expected pubkey)/;

type ConsoleMethod = 'log' | 'info' | 'warn' | 'error' | 'debug';
let installed = false;

/** Installs the filter once per process (the console is process-wide, so is this); `log` carries the component. */
export function quietLibsignalConsole(log: Logger): void {
  if (installed) return;
  installed = true;
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as ConsoleMethod[]) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      const first = args[0];
      if (typeof first === 'string' && LIBSIGNAL_LINES.test(first)) {
        log.debug(first.split(':')[0] ?? 'libsignal');
        return;
      }
      original(...args);
    };
  }
}
