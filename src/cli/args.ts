// What every `zapgate` command shares: strict argument parsing whose mistakes are one line and the
// command's usage (exit 2), `--help`, and the configuration read once (its errors exit 2).
import { parseArgs } from 'node:util';
import type { Config } from '../config.js';
import type { StartSettings } from '../start-errors.js';

/** A mistake in how a command was called: one line, then that command's usage, exit 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
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
export function parse<O extends Options>(args: string[], options: O, usage: string, positionals = false) {
  try {
    return parseArgs({ args, strict: true, allowPositionals: positionals, options: { ...options, help: { type: 'boolean', short: 'h' } } });
  } catch (err) {
    throw new UsageError(parseArgsMessage(err), usage);
  }
}

/** A port given on the command line: 0-65535, or a usage error. */
export function portOption(name: string, value: string, usage: string): number {
  if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535) throw new UsageError(`${name} must be a port number (0-65535), got ${JSON.stringify(value)}`, usage);
  return Number(value);
}

/** The settings a start failure is explained against, once the configuration is known. */
let settings: StartSettings | undefined;

export function knownSettings(): StartSettings | undefined {
  return settings;
}

export async function config(env: NodeJS.ProcessEnv = process.env): Promise<Config> {
  const { ConfigError, loadConfig } = await import('../config.js');
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

export function help(usage: string): number {
  console.log(usage);
  return 0;
}

