// The `zapgate` command line: serve, accounts, migrate, simnet, demo.
import { parseArgs } from 'node:util';
import 'dotenv/config';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createGateway } from './main.js';
import { systemClock } from './clock.js';
import { openDatabase } from './store/database.js';
import { createStore } from './store/index.js';
import { AccountsService } from './services/accounts-service.js';

const USAGE = `Usage: zapgate <command>

Commands:
  serve                         run the gateway (configuration from the environment / .env)
  accounts create <name>        create an account and print its Client-Token once
  accounts list                 list accounts (never their tokens)
  accounts rotate <id>          replace an account's Client-Token and print the new one once
  accounts delete <id>          delete an account and all its instances
  migrate                       apply pending database migrations and exit
  simnet [--port N]             run simnet, the offline WhatsApp network, for local testing
  demo [--port N] [--simnet-port N] [--data-dir D]
                                run the gateway against an embedded simnet and print how to try it
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve(config());
    case 'accounts':
      return accounts(rest);
    case 'migrate': {
      const c = config();
      const db = await openDatabase({ databaseUrl: c.databaseUrl, dataDir: c.dataDir });
      await db.close();
      console.log('migrations applied');
      return 0;
    }
    case 'simnet': {
      const { runSimnetCli } = await import('../simnet/src/cli.js');
      return runSimnetCli(rest);
    }
    case 'demo': {
      const { runDemo } = await import('./demo.js');
      return runDemo(rest);
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      console.error(`zapgate: unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

function config(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`zapgate: invalid configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

export async function serve(c: Config): Promise<number> {
  const gateway = await createGateway(c);
  const created = await gateway.accounts.bootstrap(c.bootstrapClientToken);
  if (created && !c.bootstrapClientToken) {
    // Printed once, on the terminal only: never through the logger.
    process.stdout.write(
      `\nzapgate: created the first account. Its Client-Token (shown only now):\n\n    ${created.clientToken}\n\n`,
    );
  }
  const address = await gateway.listen();
  gateway.log.info({ address }, 'zapgate listening');
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    gateway.log.info({ signal }, 'shutting down');
    await gateway.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  return new Promise<number>(() => {});
}

/** A mistake in how the command was called: one line, then the usage, exit 2. */
class UsageError extends Error {}

/** The accounts subcommand and its one argument, checked before anything is opened. */
function parseAccounts(args: string[]): { sub: 'create' | 'list' | 'rotate' | 'delete'; arg: string | undefined } {
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  } catch (err) {
    const option = /option '([^']+)'/i.exec((err as Error).message)?.[1];
    if (option === '--name') throw new UsageError('unknown option --name (the name is positional: accounts create <name>)');
    throw new UsageError(option ? `unknown option ${option}` : ((err as Error).message.split('\n')[0] ?? 'invalid arguments'));
  }
  const [sub, arg, ...extra] = parsed.positionals;
  if (sub !== 'create' && sub !== 'list' && sub !== 'rotate' && sub !== 'delete') {
    throw new UsageError(sub === undefined ? 'accounts needs a subcommand' : `unknown accounts subcommand: ${sub}`);
  }
  if (extra.length > 0 || (sub === 'list' && arg !== undefined)) throw new UsageError(`too many arguments for accounts ${sub}`);
  if (sub !== 'list' && (arg === undefined || arg.trim() === '')) {
    throw new UsageError(`accounts ${sub} needs ${sub === 'create' ? 'a name' : 'an account id'}`);
  }
  return { sub, arg };
}

async function accounts(args: string[]): Promise<number> {
  const { sub, arg } = parseAccounts(args);
  const c = config();
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

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
  },
  (err: unknown) => {
    // A mistake in the command line: one line and the usage, never a stack trace.
    // (the simnet and demo commands parse their own options with node:util's parseArgs).
    const code = (err as { code?: unknown } | null)?.code;
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      const option = /option '([^']+)'/i.exec((err as Error).message)?.[1];
      console.error(`zapgate: ${option ? `unknown option ${option}` : (err as Error).message.split('\n')[0]}\n\n${USAGE}`);
      process.exit(2);
    }
    // Anything else (a database that cannot be opened, …): one line too.
    console.error(`zapgate: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    process.exit(1);
  },
);
