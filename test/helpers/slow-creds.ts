// Preload for a gateway child process (`node --import tsx --import <this file> bin/zapgate.js`):
// every credentials write waits TEST_SLOW_CREDS_MS before it starts, like a slow disk, so a
// crash test's kill lands in the window between a creds update and its commit more often.
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthRepo } from '../../src/store/auth-repo.js';

const delayMs = Number(process.env.TEST_SLOW_CREDS_MS ?? '0');
const writeCreds = AuthRepo.prototype.writeCreds;
AuthRepo.prototype.writeCreds = async function slowWriteCreds(this: AuthRepo, ...args: Parameters<AuthRepo['writeCreds']>): Promise<void> {
  await sleep(delayMs);
  return writeCreds.apply(this, args);
};
