// `zapgate demo` / `npm run demo`: the gateway against an embedded simnet, with one instance ready
// to pair, and the curl commands that pair a virtual phone and send a first message.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startSimnet } from '../simnet/src/index.js';
import { loadConfig } from './config.js';
import { createGateway } from './main.js';

export const DEMO_PHONE = '5511999990000';
export const DEMO_CONTACT = '5511988887777';

export interface DemoOptions {
  port: number;
  simnetPort: number;
  /** Where the demo database lives; a temporary directory (removed on exit) when unset. */
  dataDir?: string;
  logLevel?: string;
}

export interface RunningDemo {
  gatewayUrl: string;
  simnetAdminUrl: string;
  clientToken: string;
  /** `/instances/{id}/token/{token}` of the instance created for the demo. */
  prefix: string;
  /** The shell commands to pair the virtual phone and send a first message. */
  instructions: string;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions): Promise<RunningDemo> {
  const simnet = await startSimnet({ port: options.simnetPort });
  const temp = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'zapgate-demo-'));
  const mediaAgent = new HttpsAgent({ ca: simnet.mediaCaPem });
  try {
    const config = loadConfig({
      ...process.env,
      ZAPGATE_HOST: '127.0.0.1',
      ZAPGATE_PORT: String(options.port),
      ZAPGATE_DATA_DIR: dataDir,
      ZAPGATE_DATABASE_URL: '',
      ZAPGATE_WA_URL: simnet.wsUrl,
      ZAPGATE_WA_ROOT_KEY: simnet.rootPublicKey,
      // History sync (when an instance opts in) downloads from simnet's media host.
      ZAPGATE_WA_MEDIA_HOST: simnet.mediaHost,
      // Local receivers and media servers are the point of a demo.
      ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
      ZAPGATE_ALLOW_HOSTS: '127.0.0.1,localhost',
      ZAPGATE_LOG_LEVEL: options.logLevel ?? process.env.ZAPGATE_LOG_LEVEL ?? 'warn',
    });
    const gateway = await createGateway(config, { engine: { mediaAgent } });
    const account = await gateway.accounts.create('demo');
    const instance = await gateway.instances.create(account.id, 'demo');
    const gatewayUrl = await gateway.listen();
    await simnet.admin.createUser(DEMO_PHONE, 'Demo Phone');
    await simnet.admin.createUser(DEMO_CONTACT, 'Demo Contact');
    const prefix = `/instances/${instance.instanceId}/token/${instance.instanceToken}`;
    const instructions = demoInstructions(gatewayUrl, simnet.adminUrl, account.clientToken, prefix);
    return {
      gatewayUrl,
      simnetAdminUrl: simnet.adminUrl,
      clientToken: account.clientToken,
      prefix,
      instructions,
      async close() {
        await gateway.close();
        await simnet.close();
        mediaAgent.destroy();
        if (temp) rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await simnet.close();
    mediaAgent.destroy();
    if (temp) rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
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

4. See what the contact's phone decrypted:

   curl -s '${admin}/users/${DEMO_CONTACT}/received'

API docs: ${gw}/docs    Stop with Ctrl-C.
`;
}

export async function runDemo(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '3000' },
      'simnet-port': { type: 'string', default: '7080' },
      'data-dir': { type: 'string' },
    },
  });
  const demo = await startDemo({
    port: Number(values.port),
    simnetPort: Number(values['simnet-port']),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
  });
  process.stdout.write(demo.instructions);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await demo.close();
  return 0;
}
