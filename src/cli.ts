// The `zapgate` command line: serve, accounts, migrate, simnet, demo. Each command loads what it
// needs when it runs (dynamic imports), so `zapgate --help` or `zapgate accounts list` never load
// Baileys, sharp or Fastify. Mistakes in how a command is called are one line and that command's
// usage on stderr, exit 2; failures at start are one line that names the setting to change, exit 1.
import { createServer } from 'node:net';
import { systemClock } from './clock.js';
import type { Config } from './config.js';
import { explainStartError } from './start-errors.js';
import { config, help, knownSettings, parse, portOption, UsageError } from './cli/args.js';
import { accounts, audit, keys } from './cli/admin.js';

const USAGE = `Usage: zapgate <command> [options]

Commands:
  serve                         run the gateway (configuration from the environment / .env)
  accounts create <name>        create an account and print its Client-Token once
  accounts list                 list accounts (never their tokens)
  accounts rotate <id>          replace an account's Client-Token and print the new one once
  accounts delete <id>          delete an account and all its instances
  keys create <account-id> <name> --scope S [...]
                                create an API key and print it once (docs/api-keys.md)
  keys list [<account-id>]      list API keys (never their secrets)
  keys rotate <key-id> [--overlap SECONDS]
                                replace a key; the old one works for the overlap
  keys revoke <key-id>          revoke a key at once, on every node
  audit verify                  check the audit trail's hash chain (exit 1 when broken)
  migrate                       apply pending database migrations and exit
  cluster status [--json]       nodes, leases and the owner of each instance (cluster mode)
  simnet [--port N]             run simnet, the offline WhatsApp network, for local testing
  demo [--port N] [--simnet-port N] [--media-port N] [--data-dir D]
                                run the gateway against an embedded simnet and print how to try it

Run \`zapgate <command> --help\` for a command's options.`;

const SETTINGS = `Settings come from the environment, or a .env file in the working directory:
  ZAPGATE_PORT (3000), ZAPGATE_HOST (0.0.0.0), ZAPGATE_DATA_DIR (./data),
  ZAPGATE_DATABASE_URL (PostgreSQL; SQLite in the data dir when unset), ZAPGATE_LOG_LEVEL (info),
  and the rest listed in the README.`;

const SERVE_USAGE = `Usage: zapgate serve

Runs the gateway: the HTTP API, the WhatsApp sessions and the webhook dispatcher. The first start
on an empty database creates an account and prints its Client-Token once (or set ZAPGATE_CLIENT_TOKEN).
${SETTINGS}`;

const MIGRATE_USAGE = `Usage: zapgate migrate

Applies pending database migrations and exits (serve applies them too when it starts).
${SETTINGS}`;

const CLUSTER_USAGE = `Usage: zapgate cluster status [--json]

Prints the cluster's nodes (lease, state, instances owned) and the owner of each instance, read
from the cluster's PostgreSQL database (ZAPGATE_DATABASE_URL). --json prints one JSON document.`;

const DEMO_USAGE = `Usage: zapgate demo [--port N] [--simnet-port N] [--media-port N] [--data-dir D]

Runs the gateway against an embedded simnet (an offline WhatsApp network) with one instance ready
to pair, and prints the curl commands that pair a virtual phone and send a first message.

  --port N          the gateway's port (default: ZAPGATE_PORT, else 3000)
  --simnet-port N   simnet's port (default 7080; 0 = any free port)
  --media-port N    the port of simnet's media host, where media are uploaded (default 0 = any
                    free port)
  --data-dir D      keep the demo's data here (default: a temporary directory removed on exit;
                    never ZAPGATE_DATA_DIR, a real gateway's data); a second run reuses the demo
                    account

Honours the same settings as serve (ZAPGATE_HOST defaults to 127.0.0.1 here).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      if (parse(rest, {}, SERVE_USAGE).values.help) return help(SERVE_USAGE);
      await import('dotenv/config');
      return serve(await config());
    case 'accounts':
      return accounts(rest);
    case 'migrate': {
      if (parse(rest, {}, MIGRATE_USAGE).values.help) return help(MIGRATE_USAGE);
      await import('dotenv/config');
      const c = await config();
      const { openDatabase } = await import('./store/database.js');
      const { privateDir } = await import('./store/private-files.js');
      if (!c.databaseUrl) privateDir(c.dataDir);
      const clock = systemClock(c.timeScale, c.timeOrigin);
      const db = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir, now: () => clock.now() });
      await db.close();
      console.log('migrations applied');
      return 0;
    }
    case 'cluster':
      return cluster(rest);
    case 'keys':
      return keys(rest);
    case 'audit':
      return audit(rest);
    case 'simnet': {
      const { runSimnetCli } = await import('../simnet/src/cli.js');
      return runSimnetCli(rest);
    }
    case 'demo':
      return demo(rest);
    case undefined:
      console.error(USAGE);
      return 2;
    case 'help':
    case '--help':
    case '-h':
      return help(USAGE);
    default:
      throw new UsageError(command.startsWith('-') ? `unknown option ${command}` : `unknown command: ${command}`, USAGE);
  }
}

/** Fails early, before anything is created, when the port is taken (the listen error would come after the first account's token was printed). */
async function portFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export async function serve(c: Config): Promise<number> {
  await portFree(c.host, c.port);
  const { createGateway } = await import('./main.js');
  const gateway = await createGateway(c);
  const created = await gateway.accounts.bootstrap(c.bootstrapClientToken);
  const address = await gateway.listen();
  if (created && !c.bootstrapClientToken) {
    // Printed once, on the terminal only: never through the logger.
    process.stdout.write(
      `\nzapgate: created the first account. Its Client-Token (shown only now):\n\n    ${created.clientToken}\n\n`,
    );
  }
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    gateway.log.info({ signal }, 'shutting down');
    // Bounded: whatever is not handed over by then is closed by the exit, and in cluster mode
    // taken over by another node once this node's lease has run out (docs/cluster.md).
    // A guard (the process's own exit is at stake), never scaled; it does not keep the process alive.
    gateway.clock.setGuard(c.shutdownTimeoutMs, () => {
      gateway.log.error({ timeoutMs: c.shutdownTimeoutMs }, 'shutdown took longer than ZAPGATE_SHUTDOWN_TIMEOUT_MS: exiting now');
      process.exit(1);
    });
    await gateway.close();
    process.exit(0);
  };
  // Before the line that says it listens: whoever waits for that line may signal at once, and a
  // signal that comes before its handler kills the process without a clean shutdown.
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  gateway.log.info({ address }, 'zapgate listening');
  return new Promise<number>(() => {});
}

async function cluster(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' } }, CLUSTER_USAGE, true);
  if (values.help) return help(CLUSTER_USAGE);
  const [sub, ...extra] = positionals;
  if (sub !== 'status') throw new UsageError(sub === undefined ? 'cluster needs a subcommand' : `unknown cluster subcommand: ${sub}`, CLUSTER_USAGE);
  if (extra.length > 0) throw new UsageError('too many arguments for cluster status', CLUSTER_USAGE);
  await import('dotenv/config');
  const c = await config();
  if (!c.databaseUrl) throw new Error('cluster status reads the cluster\'s PostgreSQL database: set ZAPGATE_DATABASE_URL');
  const [{ openDatabase }, { ClusterRepo }] = await Promise.all([import('./store/database.js'), import('./store/cluster-repo.js')]);
  const clock = systemClock(c.timeScale, c.timeOrigin);
  const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir, now: () => clock.now() });
  try {
    const repo = new ClusterRepo(database.db);
    const [nodes, owners] = await Promise.all([repo.nodes(), repo.owners()]);
    if (values.json) {
      console.log(JSON.stringify({ nodes, instances: owners }, null, 2));
      return 0;
    }
    console.log(`${nodes.length} node(s), ${nodes.filter((n) => n.live).length} live; ${owners.length} instance(s), ${owners.filter((o) => !o.live).length} without a live owner`);
    for (const n of nodes) {
      console.log(`  ${n.nodeId}  ${n.live ? n.state : 'dead'}  owns ${n.owned}  lease until ${new Date(n.leaseUntil).toISOString()}  ${n.url}`);
    }
    for (const o of owners) console.log(`  instance ${o.instanceId}  ${o.live ? `on ${o.nodeId ?? '?'}` : 'no live owner'}  epoch ${o.epoch}`);
    return 0;
  } finally {
    await database.close();
  }
}

async function demo(args: string[]): Promise<number> {
  const { values } = parse(args, { port: { type: 'string' }, 'simnet-port': { type: 'string' }, 'media-port': { type: 'string' }, 'data-dir': { type: 'string' } }, DEMO_USAGE);
  if (values.help) return help(DEMO_USAGE);
  const port = values.port === undefined ? undefined : portOption('--port', values.port, DEMO_USAGE);
  const simnetPort = portOption('--simnet-port', values['simnet-port'] ?? '7080', DEMO_USAGE);
  const mediaPort = portOption('--media-port', values['media-port'] ?? '0', DEMO_USAGE);
  if (values['data-dir'] === '') throw new UsageError('--data-dir needs a directory', DEMO_USAGE);
  await import('dotenv/config');
  const { runDemo, demoEnv } = await import('./demo.js');
  const env = demoEnv(process.env, { ...(port !== undefined ? { port } : {}), ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}) });
  // Checked the way serve checks it (a bad variable is a configuration error, exit 2).
  const c = await config({ ...env, ZAPGATE_DATA_DIR: env.ZAPGATE_DATA_DIR ?? '.' });
  await portFree(c.host, c.port);
  try {
    await portFree('127.0.0.1', simnetPort);
  } catch (err) {
    if ((err as { code?: unknown }).code === 'EADDRINUSE') throw new Error(`simnet's port ${simnetPort} is already in use: choose another with --simnet-port (0 = any free port)`);
    throw err;
  }
  if (mediaPort !== 0) {
    try {
      await portFree('127.0.0.1', mediaPort);
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EADDRINUSE') throw new Error(`the media host's port ${mediaPort} is already in use: choose another with --media-port (0 = any free port)`);
      throw err;
    }
  }
  return runDemo(env, simnetPort, mediaPort);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`zapgate: ${err.message}\n\n${err.usage}`);
      process.exit(2);
    }
    // Anything else (a port in use, a database that cannot be opened, …): one line, no stack trace.
    console.error(`zapgate: ${explainStartError(err, knownSettings())}`);
    if (process.env.ZAPGATE_DEBUG_ERRORS === '1') console.error(err);
    process.exit(1);
  },
);
