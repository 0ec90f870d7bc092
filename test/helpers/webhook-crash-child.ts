// A gateway in its own process, for the crash test: it emits events to a receiver that never
// answers and then waits to be killed with SIGKILL mid-attempt.
// Usage: node --import tsx test/helpers/webhook-crash-child.ts <dataDir> <webhookUrl> <count>
// (TEST_WEBHOOK_CA: PEM of the receiver's CA). Prints {"instanceId"} once the events are committed.
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { createGateway } from '../../src/main.js';
import { createAddressGuard } from '../../src/net/address-guard.js';
import { offlineSessions } from '../../src/sessions/offline-sessions.js';

const [dataDir, url, countText] = process.argv.slice(2);
if (dataDir === undefined || url === undefined || countText === undefined) throw new Error('usage: <dataDir> <webhookUrl> <count>');
const config = loadConfig({
  ZAPGATE_HOST: '127.0.0.1',
  ZAPGATE_PORT: '0',
  ZAPGATE_DATA_DIR: dataDir,
  ZAPGATE_LOG_LEVEL: 'silent',
  ZAPGATE_ALLOW_HOSTS: '127.0.0.1',
});
const guard = createAddressGuard({
  allowHosts: config.allowHosts,
  allowHttp: false,
  resolve: async (host) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  },
});
const gateway = await createGateway(config, {
  sqliteFile: join(dataDir, 'zapgate.db'),
  guard,
  collectProcessMetrics: false,
  sessions: offlineSessions(),
  // The attempt must still be in flight at the kill: a loaded machine can take longer than the
  // default 15 s to get there, and a timed-out attempt is rescheduled behind the other events.
  outbox: { ca: process.env.TEST_WEBHOOK_CA, timeoutMs: 600_000 },
});
await gateway.listen();
const account = await gateway.accounts.create('crash');
const inst = await gateway.instances.create(account.id, 'crash');
await gateway.store.webhooks.set(inst.instanceId, ['received'], url, Date.now());
const count = Number(countText);
await gateway.events.emit(
  inst.instanceId,
  Array.from({ length: count }, (_, n) => ({
    type: 'ReceivedCallback' as const,
    messageId: `3EB0${String(n).padStart(18, '0')}`,
    phone: '5511988887777',
    fromMe: false,
    momment: 1_700_000_000_000 + n,
    status: 'RECEIVED' as const,
    chatName: 'Maria',
    senderName: 'Maria',
    participantPhone: null,
    isGroup: false,
    text: { message: `event ${n}` },
  })),
);
process.stdout.write(`${JSON.stringify({ instanceId: inst.instanceId })}\n`);
// Stay up until killed.
setInterval(() => undefined, 60_000);
