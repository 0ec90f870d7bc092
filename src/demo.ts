// `zapgate demo` / `npm run demo`: the gateway against an embedded simnet, with one instance ready
// to pair, and the curl commands that pair a virtual phone and send a first message.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimnet } from '../simnet/src/index.js';
import { loadConfig } from './config.js';
import { createGateway, type Gateway } from './main.js';
import type { CreatedAccount } from './services/accounts-service.js';
import type { CreatedInstance } from './services/instances-service.js';

export const DEMO_PHONE = '5511999990000';
export const DEMO_CONTACT = '5511988887777';

interface DemoOptions {
  /** The gateway's port; when unset, ZAPGATE_PORT of `env`, else 3000. */
  port?: number;
  simnetPort: number;
  /** The port of simnet's media host (0 or unset: any free port). */
  mediaPort?: number;
  /** Where the demo's data live; a temporary directory (removed on exit) when unset. */
  dataDir?: string;
  logLevel?: string;
  /** The settings, as serve reads them (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface RunningDemo {
  gatewayUrl: string;
  simnetAdminUrl: string;
  /** `host:port` of simnet's media host (its port from --media-port, else any free one). */
  mediaHost: string;
  clientToken: string;
  /** `/instances/{id}/token/{token}` of the instance created for the demo. */
  prefix: string;
  /** The shell commands to pair the virtual phone and send a first message. */
  instructions: string;
  close(): Promise<void>;
}

/** The name of the account and of the instance the demo makes, and finds again in a reused data dir. */
const DEMO_NAME = 'demo';

/**
 * The demo's settings: everything serve honours (ZAPGATE_PORT, ZAPGATE_HOST, limits, log level, …)
 * with demo-friendly defaults where unset (loopback, local webhooks allowed). Two are its own: the
 * data (--data-dir, else a temporary dir: never ZAPGATE_DATA_DIR or ZAPGATE_DATABASE_URL, because a
 * real gateway's sessions pointed at a simulated network would be logged out) and the network (simnet).
 */
export function demoEnv(env: NodeJS.ProcessEnv, flags: { port?: number; dataDir?: string; logLevel?: string } = {}): NodeJS.ProcessEnv {
  const set = (name: string): string | undefined => (env[name] === '' ? undefined : env[name]);
  return {
    ...env,
    ZAPGATE_HOST: set('ZAPGATE_HOST') ?? '127.0.0.1',
    ZAPGATE_PORT: flags.port !== undefined ? String(flags.port) : (set('ZAPGATE_PORT') ?? '3000'),
    ZAPGATE_DATA_DIR: flags.dataDir,
    ZAPGATE_DATABASE_URL: undefined,
    // Local receivers and media servers are the point of a demo.
    ZAPGATE_WEBHOOK_ALLOW_HTTP: set('ZAPGATE_WEBHOOK_ALLOW_HTTP') ?? 'true',
    ZAPGATE_ALLOW_HOSTS: set('ZAPGATE_ALLOW_HOSTS') ?? '127.0.0.1,localhost',
    ZAPGATE_LOG_LEVEL: flags.logLevel ?? set('ZAPGATE_LOG_LEVEL') ?? 'warn',
  };
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const env = demoEnv(options.env ?? process.env, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.logLevel !== undefined ? { logLevel: options.logLevel } : {}),
  });
  const simnet = await startSimnet({ port: options.simnetPort, ...(options.mediaPort ? { mediaPort: options.mediaPort } : {}) });
  const temp = env.ZAPGATE_DATA_DIR === undefined;
  const dataDir = env.ZAPGATE_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'zapgate-demo-'));
  // Media go over TLS to simnet's media host, whose certificate a test CA signed: the engine trusts
  // that CA through its agent, so media sends work without NODE_EXTRA_CA_CERTS.
  const mediaAgent = new HttpsAgent({ ca: simnet.mediaCaPem });
  try {
    const config = loadConfig({
      ...env,
      ZAPGATE_DATA_DIR: dataDir,
      ZAPGATE_WA_URL: simnet.wsUrl,
      ZAPGATE_WA_ROOT_KEY: simnet.rootPublicKey,
      // History sync (when an instance opts in) downloads from simnet's media host.
      ZAPGATE_WA_MEDIA_HOST: simnet.mediaHost,
    });
    const gateway = await createGateway(config, { engine: { mediaAgent } });
    try {
      const { account, instance } = await demoInstance(gateway);
      const gatewayUrl = await gateway.listen();
      await simnet.admin.createUser(DEMO_PHONE, 'Demo Phone');
      await simnet.admin.createUser(DEMO_CONTACT, 'Demo Contact');
      const prefix = `/instances/${instance.instanceId}/token/${instance.instanceToken}`;
      const instructions = demoInstructions(gatewayUrl, simnet.adminUrl, account.clientToken, prefix);
      return {
        gatewayUrl,
        simnetAdminUrl: simnet.adminUrl,
        mediaHost: simnet.mediaHost,
        clientToken: account.clientToken,
        prefix,
        instructions,
        async close() {
          await gateway.close();
          await simnet.close();
          mediaAgent.destroy();
          if (temp) rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
        },
      };
    } catch (err) {
      await gateway.close();
      throw err;
    }
  } catch (err) {
    await simnet.close();
    mediaAgent.destroy();
    if (temp) rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    throw err;
  }
}

/**
 * The demo account and a fresh demo instance. A reused data dir already has them: the account is
 * kept (its token rotated: only a hash is stored, so the old one cannot be shown again) and the old
 * instance replaced, since its pairing was with a simnet that ended with the previous run.
 */
async function demoInstance(gateway: Gateway): Promise<{ account: CreatedAccount; instance: CreatedInstance }> {
  const existing = (await gateway.accounts.list()).find((a) => a.name === DEMO_NAME);
  const account = existing ? await gateway.accounts.rotate(existing.id) : await gateway.accounts.create(DEMO_NAME);
  for (const old of await gateway.instances.list(account.id)) {
    if (old.name === DEMO_NAME) await gateway.instances.delete(old.instanceId);
  }
  const instance = await gateway.instances.create(account.id, DEMO_NAME);
  return { account, instance };
}

function demoInstructions(gw: string, admin: string, token: string, prefix: string): string {
  const api = `${gw}${prefix}`;
  return `
zapgate demo: the gateway at ${gw} talks to simnet, an offline WhatsApp network (${admin}).
Client-Token: ${token}
Instance:     ${api}

1. Pair the virtual phone ${DEMO_PHONE}: take the instance's QR and let the phone "scan" it
   (open ${api}/qr-code/image with the Client-Token header to see the PNG itself):

   QR=$(curl -s '${api}/qr-code' -H 'Client-Token: ${token}' | sed -E 's/.*"value":"([^"]*)".*/\\1/')
   curl -s -X POST '${admin}/users/${DEMO_PHONE}/scan' -H 'content-type: application/json' -d "{\\"qr\\":\\"$QR\\"}"

2. Check it is connected:

   curl -s '${api}/status' -H 'Client-Token: ${token}'

3. Send a first message to the contact ${DEMO_CONTACT}:

   curl -s -X POST '${api}/send-text' -H 'Client-Token: ${token}' -H 'content-type: application/json' \\
     -d '{"phone":"${DEMO_CONTACT}","message":"Hello from zapgate"}'

4. Send a picture (any PNG or JPEG file; media go to simnet's media host, which the demo trusts):

   curl -s -X POST '${api}/send-image' -H 'Client-Token: ${token}' -H 'content-type: application/json' \\
     -d "{\\"phone\\":\\"${DEMO_CONTACT}\\",\\"image\\":\\"data:image/png;base64,$(base64 -w0 picture.png)\\"}"

5. See what the contact's phone decrypted:

   curl -s '${admin}/users/${DEMO_CONTACT}/received'

API docs: ${gw}/docs    Stop with Ctrl-C.
`;
}

/** `zapgate demo`, its options checked by the CLI: runs until SIGINT/SIGTERM. */
export async function runDemo(env: NodeJS.ProcessEnv, simnetPort: number, mediaPort = 0): Promise<number> {
  const demo = await startDemo({ env, simnetPort, mediaPort, ...(env.ZAPGATE_DATA_DIR ? { dataDir: env.ZAPGATE_DATA_DIR } : {}) });
  // The handlers go in before the instructions are printed: whoever reads "Stop with Ctrl-C" may
  // signal at once, and a signal that comes before its handler kills the process uncleanly.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(demo.instructions);
  await stopped;
  await demo.close();
  return 0;
}
