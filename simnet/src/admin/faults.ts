// Faults a test injects into one account (admin `fault`, `media-fault`, `ack-loss`): the ways the real
// network breaks a link, a download or an ack, which the engine must survive.
import type { SimnetContext } from '../server/context.js';
import type { ClientConnection } from '../server/connection.js';
import type { Account } from '../network/accounts.js';
import type { MediaFault } from '../media/host.js';
import { HttpError } from '../http-error.js';
import { removeDevice } from '../handlers/devices.js';
import { banAccount } from '../handlers/message-helpers.js';
import type { FaultRequest } from './types.js';

/** Breaks the account's live links as WhatsApp does (stream error, silence, close), or nacks its next sends, or bans it. */
export function applyFault(net: SimnetContext, acc: Account, fault: FaultRequest): { affected: number } {
  if (fault.kind === 'nack') {
    net.faults.addNack(acc.phone, fault.code, fault.count ?? 1);
    return { affected: 1 };
  }
  if (fault.kind === 'ban') {
    banAccount(net, acc);
    return { affected: 1 };
  }
  let affected = 0;
  for (const d of acc.activeCompanions()) {
    const link = d.link as ClientConnection | null;
    if (!link || link.phase === 'closed') continue;
    affected++;
    switch (fault.kind) {
      case 'stream-error':
        if (fault.code === 401) removeDevice(net, d, true);
        else if (fault.code === 440) link.endWith({ tag: 'stream:error', attrs: {}, content: [{ tag: 'conflict', attrs: { type: 'replaced' } }] });
        else link.endWith({ tag: 'stream:error', attrs: { code: String(fault.code) } });
        break;
      case 'silence':
        // Keep the socket but say nothing more: the client's keep-alive gives up (408).
        link.silenced = true;
        break;
      case 'close':
        link.destroy();
        break;
    }
  }
  return { affected };
}

/** Downloads of media `acc` uploaded get `fault` (null clears it). */
export function applyMediaFault(net: SimnetContext, acc: Account, fault: MediaFault | null): { phone: string; fault: MediaFault | null } {
  const media = net.media;
  if (!media) throw new HttpError(503, 'media host not running');
  if (fault) {
    if (fault.kind === 'delay') {
      if (!Number.isFinite(fault.ms) || fault.ms < 0 || fault.ms > 600_000) throw new HttpError(400, 'delay ms must be 0..600000');
    } else if (fault.kind === 'status') {
      if (!Number.isInteger(fault.code) || fault.code < 200 || fault.code > 599) throw new HttpError(400, 'status code must be 200..599');
    } else if (fault.kind !== 'expired') throw new HttpError(400, `unknown media fault ${(fault as { kind?: unknown }).kind}`);
  }
  media.setFault(acc.phone, fault);
  return { phone: acc.phone, fault };
}

/** The server loses the acks and receipts of the account's linked devices (everything sent stays held). */
export function applyAckLoss(acc: Account, enabled: boolean): { phone: string; devices: number } {
  for (const d of acc.activeCompanions()) d.dropAcks = enabled;
  return { phone: acc.phone, devices: acc.activeCompanions().length };
}
