// `zapgate simnet` / `npm run simnet`: runs simnet in the foreground and prints its info as one JSON line.
import { parseArgs } from 'node:util';
import { startSimnet } from './index.js';

const USAGE = `Usage: zapgate simnet [--port N] [--media-port N] [--time-scale X] [--time-origin MS]
                     [--auto-user-pattern REGEX] [--root-seed S] [--receipts-read auto|manual|never] [--spam] [--quiet]

Runs the offline WhatsApp network on 127.0.0.1. Prints {"wsUrl","adminUrl","rootPublicKey","mediaCaPem","mediaHost","timeOrigin"} on stdout.
--time-scale X below 1 runs the network's clock 1/X times faster than real time from --time-origin (ms since
the epoch; default: now): give a gateway the same as ZAPGATE_TIME_SCALE and ZAPGATE_TIME_ORIGIN.`;

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

/** A port option's value: 0-65535, or null. */
function portValue(value: string): number | null {
  return /^[0-9]{1,5}$/.test(value) && Number(value) <= 65535 ? Number(value) : null;
}

/** parseArgs' first line, in zapgate's words: "unknown option --x", "--port must be a port number …". */
function explainParseError(message: string, argv: string[]): string {
  const unknown = /^Unknown option '([^']+)'/i.exec(message);
  if (unknown) return `unknown option ${unknown[1]}`;
  // `--port -3`: parseArgs will not take a value that starts with a dash.
  const ambiguous = /^Option '(?:-\w, )?(--[\w-]+)' argument is ambiguous/i.exec(message);
  if (ambiguous) {
    const name = ambiguous[1]!;
    const given = argv[argv.indexOf(name) + 1] ?? '';
    if (name === '--port' || name === '--media-port') return `${name} must be a port number (0-65535), got ${JSON.stringify(given)}`;
    return `option ${name} needs a value (for one starting with a dash write ${name}=${given})`;
  }
  const missing = /^Option '(?:-\w, )?(--[\w-]+)[^']*' argument missing/i.exec(message);
  if (missing) return `option ${missing[1]} needs a value`;
  return message;
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
        'time-origin': { type: 'string' },
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
    console.error(`zapgate: ${explainParseError(message, argv)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = portValue(values.port);
  const mediaPort = portValue(values['media-port']);
  const timeScale = Number(values['time-scale']);
  const originText = values['time-origin'];
  const timeOrigin = originText === undefined ? undefined : Number(originText);
  const usage = (message: string): number => {
    console.error(`zapgate: ${message}\n\n${USAGE}`);
    return 2;
  };
  if (port === null) return usage(`--port must be a port number (0-65535), got ${JSON.stringify(values.port)}`);
  if (mediaPort === null) return usage(`--media-port must be a port number (0-65535), got ${JSON.stringify(values['media-port'])}`);
  if (!(timeScale > 0)) return usage(`--time-scale must be a number above 0, got ${JSON.stringify(values['time-scale'])}`);
  if (timeOrigin !== undefined && !(/^[0-9]+$/.test(originText ?? '') && Number.isSafeInteger(timeOrigin))) {
    return usage(`--time-origin must be milliseconds since the epoch, got ${JSON.stringify(originText)}`);
  }
  quietLibsignal();
  const read = values['receipts-read'];
  const sim = await startSimnet({
    port,
    mediaPort,
    timeScale,
    timeOrigin,
    autoUserPattern: values['auto-user-pattern'],
    rootSeed: values['root-seed'],
    receipts: read === 'auto' || read === 'manual' || read === 'never' ? { read } : undefined,
    spam: { enabled: values.spam },
    log: values.quiet ? undefined : (msg, data) => console.error(`[simnet] ${msg}`, data ?? ''),
  });
  console.log(JSON.stringify({ wsUrl: sim.wsUrl, adminUrl: sim.adminUrl, rootPublicKey: sim.rootPublicKey, mediaHost: sim.mediaHost, mediaCaPem: sim.mediaCaPem, timeOrigin: sim.timeOrigin }));
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sim.close();
  return 0;
}
