// The sessions port with no engine behind it: nothing is ever connected. The HTTP contract tests
// build on it; every network operation is refused honestly.
import { errors } from '../errors.js';
import type { SessionsPort } from './port.js';

export function offlineSessions(): SessionsPort {
  const refuse = async (): Promise<never> => {
    throw errors.notConnected();
  };
  return {
    isConnected: () => false,
    qr: async () => null,
    pairingCode: refuse,
    restart: async () => {},
    logout: async () => {},
    remove: async () => {},
    applyAntiban: () => false,
    checkPhones: refuse,
    createGroup: refuse,
    updateGroupSettings: refuse,
    groupInvitationMetadata: refuse,
    groupMetadata: refuse,
    deleteMessage: refuse,
    readMessage: refuse,
  };
}
