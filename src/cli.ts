// The `zapgate` command line: serve, accounts, migrate, simnet, demo. Each command loads what it
// needs when it runs (dynamic imports), so `zapgate --help` or `zapgate accounts list` never load
// Baileys, sharp or Fastify. Mistakes in how a command is called are one line and that command's
// usage on stderr, exit 2; failures at start are one line that names the setting to change, exit 1.
import { parseArgs } from 'node:util';
import { createServer } from 'node:net';
import type { Config } from './config.js';
import { explainStartError, type StartSettings } from './start-errors.js';

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

const ACCOUNTS_USAGE = `Usage: zapgate accounts <create <name> | list | rotate <id> | delete <id>>

  accounts create <name>        create an account and print {"id","name","clientToken"} (the token only now)
  accounts list                 one JSON line per account, never their tokens
  accounts rotate <id>          replace the account's Client-Token and print the new one once
  accounts delete <id>          delete the account and all its instances

Works on the database the gateway uses (ZAPGATE_DATABASE_URL or ZAPGATE_DATA_DIR), also while it runs.`;

const KEYS_USAGE = `Usage: zapgate keys <create | list | rotate | revoke> …

  keys create <account-id> <name> --scope S [--scope S …] [--instance ID …] [--cidr RANGE …]
              [--rate-limit N] [--expires-in SECONDS]
                                create an API key; prints {"id",…,"key"} (the key only now).
                                Scopes: read, send, manage, admin
  keys list [<account-id>]      one JSON line per key, never its secret
  keys rotate <key-id> [--overlap SECONDS]
                                a new key with the same settings (printed once); the old one keeps
                                working for SECONDS (default 0)
  keys revoke <key-id>          the key stops working at once, on every node

Works on the database the gateway uses (ZAPGATE_DATABASE_URL or ZAPGATE_DATA_DIR), also while it runs.`;

const AUDIT_USAGE = `Usage: zapgate audit verify

Re-computes the audit trail's hash chain from the database the gateway uses and prints what it
found: exit 0 when intact, 1 naming each entry that was edited, inserted or deleted.`;

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

/** A mistake in how a command was called: one line, then that command's usage, exit 2. */
class UsageError extends Error {
  constructor(message: string, readonly usage: string = USAGE) {
    super(message);
    this.name = 'UsageError';
  }
}

/** node:util parseArgs' messages, shortened to one line a person reads. */
function parseArgsMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /^Unknown option '([^']+)'/i.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  const missing = /^Option '(-\w, )?(--[\w-]+)[^']*' argument missing/i.exec(message);
  if (missing) return `option ${missing[2]} needs a value`;
  const unexpected = /^Unexpected argument '([^']+)'/i.exec(message);
  if (unexpected) return `unexpected argument ${unexpected[1]}`;
  // `--port -3`: parseArgs will not take a value that starts with a dash.
  const ambiguous = /^Option '(-\w, )?(--[\w-]+)' argument is ambiguous/i.exec(message);
  if (ambiguous) return `option ${ambiguous[2]} needs a value (for one starting with a dash write ${ambiguous[2]}=…)`;
  const notBoolean = /^Option '(--[\w-]+)' does not take an argument/i.exec(message);
  if (notBoolean) return `option ${notBoolean[1]} takes no value`;
  return message.split('\n')[0] ?? message;
}

type Options = NonNullable<Parameters<typeof parseArgs>[0]>['options'];

/** parseArgs with `--help`, strict; its errors become UsageErrors carrying `usage`. */
function parse<O extends Options>(args: string[], options: O, usage: string, positionals = false) {
  try {
    return parseArgs({ args, strict: true, allowPositionals: positionals, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err), usage);
  }
}

/** A port given on the command line: 0-65535, or a usage error. */
function portOption(name: string, value: string, usage: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`${name} must be a port number (0-65535), got ${JSON.stringify(value)}`, usage);
  return Number(value);
}

/** The settings a start failure is explained against, once the configuration is known. */
let settings: StartSettings | undefined;

async function config(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const { ConfigError, loadConfig } = await import('./config.js');
  try {
    const c = loadConfig(env);
    settings = c;
    return c;
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`zapgate: invalid configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

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
      const db = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
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
      throw new UsageError(command.startsWith('-') ? `unknown option ${command}` : `unknown command: ${command}`);
  }
}

function help(usage: string): number {
  console.log(usage);
  return 0;
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
    const bound = setTimeout(() => {
      gateway.log.error({ timeoutMs: c.shutdownTimeoutMs }, 'shutdown took longer than ZAPGATE_SHUTDOWN_TIMEOUT_MS: exiting now');
      process.exit(1);
    }, c.shutdownTimeoutMs);
    bound.unref();
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

/** The accounts subcommand and its one argument, checked before anything is opened. */
function parseAccounts(args: string[]): { sub: 'create' | 'list' | 'rotate' | 'delete'; arg: string | undefined } | 'help' {
  let parsed;
  try {
    parsed = parse(args, {}, ACCOUNTS_USAGE, true);
  } catch (err) {
    if (/unknown option --name\b/.test((err as Error).message)) {
      throw new UsageError('unknown option --name (the name is positional: accounts create <name>)', ACCOUNTS_USAGE);
    }
    throw err;
  }
  if (parsed.values.help) return 'help';
  const [sub, arg, ...extra] = parsed.positionals;
  if (sub !== 'create' && sub !== 'list' && sub !== 'rotate' && sub !== 'delete') {
    throw new UsageError(sub === undefined ? 'accounts needs a subcommand' : `unknown accounts subcommand: ${sub}`, ACCOUNTS_USAGE);
  }
  if (extra.length > 0 || (sub === 'list' && arg !== undefined)) throw new UsageError(`too many arguments for accounts ${sub}`, ACCOUNTS_USAGE);
  if (sub !== 'list' && (arg === undefined || arg.trim() === '')) {
    throw new UsageError(`accounts ${sub} needs ${sub === 'create' ? 'a name' : 'an account id'}`, ACCOUNTS_USAGE);
  }
  return { sub, arg };
}

async function accounts(args: string[]): Promise<number> {
  const parsed = parseAccounts(args);
  if (parsed === 'help') return help(ACCOUNTS_USAGE);
  const { sub, arg } = parsed;
  await import('dotenv/config');
  const c = await config();
  // The store and the accounts service only: no engine, no HTTP server.
  const [{ openDatabase }, { createStore }, { AccountsService }, { systemClock }, { privateDir }] = await Promise.all([
    import('./store/database.js'),
    import('./store/index.js'),
    import('./services/accounts-service.js'),
    import('./clock.js'),
    import('./store/private-files.js'),
  ]);
  if (!c.databaseUrl) privateDir(c.dataDir);
  const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
  const service = new AccountsService(createStore(database), systemClock());
  try {
    switch (sub) {
      case 'create': {
        const a = await service.create(arg!);
        console.log(JSON.stringify({ id: a.id, name: a.name, clientToken: a.clientToken }));
        return 0;
      }
      case 'list':
        for (const a of await service.list()) console.log(JSON.stringify(a));
        return 0;
      case 'rotate': {
        const a = await service.rotate(arg!);
        console.log(JSON.stringify({ id: a.id, clientToken: a.clientToken }));
        return 0;
      }
      case 'delete':
        await service.delete(arg!);
        console.log(JSON.stringify({ id: arg, deleted: true }));
        return 0;
    }
  } catch (err) {
    console.error(`zapgate: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await database.close();
  }
}

/** The store and the key and audit services over the gateway's database: no engine, no HTTP server. */
async function openKeyServices() {
  await import('dotenv/config');
  const c = await config();
  const [{ openDatabase }, { createStore }, { ApiKeysService }, { AuditService }, { systemClock }, { privateDir }] = await Promise.all([
    import('./store/database.js'),
    import('./store/index.js'),
    import('./services/api-keys-service.js'),
    import('./services/audit-service.js'),
    import('./clock.js'),
    import('./store/private-files.js'),
  ]);
  if (!c.databaseUrl) privateDir(c.dataDir);
  const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
  const store = createStore(database);
  const clock = systemClock();
  return { database, store, keys: new ApiKeysService(store, clock), audit: new AuditService(store, clock, c.auditRetentionDays) };
}

const CLI_ACTOR = { actor: 'cli', address: null, requestId: null } as const;

async function keys(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      scope: { type: 'string', multiple: true },
      instance: { type: 'string', multiple: true },
      cidr: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      'expires-in': { type: 'string' },
      overlap: { type: 'string' },
    },
    KEYS_USAGE,
    true,
  );
  if (values.help) return help(KEYS_USAGE);
  const [sub, ...rest] = positionals;
  const count = (n: number, what: string) => {
    if (rest.length !== n) throw new UsageError(`keys ${sub} needs ${what}`, KEYS_USAGE);
  };
  const whole = (name: string, v: string | undefined): number | undefined => {
    if (v === undefined) return undefined;
    if (!/^[0-9]+$/.test(v)) throw new UsageError(`${name} must be a whole number, got ${JSON.stringify(v)}`, KEYS_USAGE);
    return Number(v);
  };
  if (sub === 'create') {
    count(2, '<account-id> <name>');
    if (!values.scope?.length) throw new UsageError('keys create needs at least one --scope (read, send, manage, admin)', KEYS_USAGE);
  } else if (sub === 'list') {
    if (rest.length > 1) throw new UsageError('too many arguments for keys list', KEYS_USAGE);
  } else if (sub === 'rotate' || sub === 'revoke') {
    count(1, 'a key id');
  } else {
    throw new UsageError(sub === undefined ? 'keys needs a subcommand' : `unknown keys subcommand: ${sub}`, KEYS_USAGE);
  }
  const rateLimit = whole('--rate-limit', values['rate-limit']);
  const expiresIn = whole('--expires-in', values['expires-in']);
  const overlap = whole('--overlap', values.overlap) ?? 0;
  const s = await openKeyServices();
  try {
    switch (sub) {
      case 'create': {
        const [accountId = '', name = ''] = rest;
        if (!(await s.store.accounts.find(accountId))) throw new Error(`no account ${accountId}`);
        const k = await s.keys.create(accountId, {
          name,
          scopes: values.scope ?? [],
          instanceIds: values.instance ?? null,
          cidrs: values.cidr ?? null,
          rateLimit: rateLimit ?? null,
          expiresAt: expiresIn === undefined ? null : Date.now() + expiresIn * 1000,
        });
        await s.audit.record({ accountId, ...CLI_ACTOR }, 'keys_create', k.id, null, { name: k.name, scopes: k.scopes, instanceIds: k.instanceIds, cidrs: k.cidrs, rateLimit: k.rateLimit, expiresAt: k.expiresAt });
        console.log(JSON.stringify(k));
        return 0;
      }
      case 'list':
        for (const k of await s.keys.list(rest[0] ?? null)) console.log(JSON.stringify(k));
        return 0;
      case 'rotate': {
        const r = await s.keys.rotate(null, rest[0] ?? '', overlap);
        const old = await s.keys.get(null, r.old.id);
        await s.audit.record({ accountId: old.accountId, ...CLI_ACTOR }, 'keys_rotate', r.old.id, null, { overlapSeconds: overlap, newKeyId: r.created.id });
        console.log(JSON.stringify(r.created));
        return 0;
      }
      case 'revoke': {
        const k = await s.keys.revoke(null, rest[0] ?? '');
        const full = await s.keys.get(null, k.id);
        await s.audit.record({ accountId: full.accountId, ...CLI_ACTOR }, 'keys_revoke', k.id, null, { revokedAt: k.revokedAt });
        console.log(JSON.stringify({ id: k.id, revoked: true }));
        return 0;
      }
    }
    return 2;
  } catch (err) {
    console.error(`zapgate: ${err instanceof Error ? (err as { detail?: string }).detail ?? err.message : String(err)}`);
    return 1;
  } finally {
    await s.database.close();
  }
}

async function audit(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {}, AUDIT_USAGE, true);
  if (values.help) return help(AUDIT_USAGE);
  if (positionals[0] !== 'verify' || positionals.length > 1) {
    throw new UsageError(positionals[0] === undefined ? 'audit needs a subcommand' : positionals[0] !== 'verify' ? `unknown audit subcommand: ${positionals[0]}` : 'too many arguments for audit verify', AUDIT_USAGE);
  }
  const s = await openKeyServices();
  try {
    const { entries, breaks } = await s.audit.verify();
    if (breaks.length === 0) {
      console.log(`audit trail intact: ${entries} entries`);
      return 0;
    }
    console.log(`audit trail BROKEN: ${breaks.length} problem(s) in ${entries} entries`);
    for (const b of breaks) console.log(`  entry ${b.seq}: ${b.reason}`);
    return 1;
  } finally {
    await s.database.close();
  }
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
  const database = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
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
    console.error(`zapgate: ${explainStartError(err, settings)}`);
    if (process.env.ZAPGATE_DEBUG_ERRORS === '1') console.error(err);
    process.exit(1);
  },
);
