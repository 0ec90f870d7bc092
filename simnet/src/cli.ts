// `zapgate simnet` / `npm run simnet`: runs simnet in the foreground and prints its info as one JSON line.
import { parseArgs } from 'node:util';
import { startSimnet } from './index.js';

const USAGE = `Usage: zapgate simnet [--port N] [--media-port N] [--time-scale X] [--auto-user-pattern REGEX] [--root-seed S]
                     [--receipts-read auto|manual|never] [--spam] [--quiet]

Runs the offline WhatsApp network on 127.0.0.1. Prints {"wsUrl","adminUrl","rootPublicKey","mediaCaPem","mediaHost"} on stdout.`;

/** libsignal chats on the console about every session it opens or closes; that is noise for a server. */
function quietLibsignal(): void {
  const noisy = /^(Closing (open )?session|Opening session|Session already closed|Decrypted message with closed session|Migrating session)/;
  for (const level of ['info', 'warn', 'log'] as const) {
    const orig = console[level].bind(console);
    console[level] = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && noisy.test(args[0])) return;
      orig(...args);
    };
  }
}

export async function runSimnetCli(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string', default: process.env.SIMNET_PORT ?? '7080' },
        'media-port': { type: 'string', default: '0' },
        'time-scale': { type: 'string', default: '1' },
        'auto-user-pattern': { type: 'string' },
        'root-seed': { type: 'string' },
        'receipts-read': { type: 'string' },
        spam: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (e) {
    // One line and the usage, like every zapgate command: "Unknown option '--x'. To specify…" → "unknown option --x".
    const message = (e as Error).message.split('\n')[0] ?? '';
    const unknown = /^Unknown option '([^']+)'/i.exec(message);
    console.error(`zapgate: ${unknown ? `unknown option ${unknown[1]}` : message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  quietLibsignal();
  const read = values['receipts-read'];
  const sim = await startSimnet({
    port: Number(values.port),
    mediaPort: Number(values['media-port']),
    timeScale: Number(values['time-scale']),
    autoUserPattern: values['auto-user-pattern'],
    rootSeed: values['root-seed'],
    receipts: read === 'auto' || read === 'manual' || read === 'never' ? { read } : undefined,
    spam: { enabled: values.spam },
    log: values.quiet ? undefined : (msg, data) => console.error(`[simnet] ${msg}`, data ?? ''),
  });
  console.log(JSON.stringify({ wsUrl: sim.wsUrl, adminUrl: sim.adminUrl, rootPublicKey: sim.rootPublicKey, mediaHost: sim.mediaHost, mediaCaPem: sim.mediaCaPem }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.close();
  return 0;
}
