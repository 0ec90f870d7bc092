// The logger Baileys gets: the gateway's pino logger with `component: baileys` (made from the root,
// so a line carries one `component` key, not the sessions' one as well), at warn or above unless
// the gateway logs at trace (then everything, for diagnosing the engine), and with the routine restart the network asks for after every pairing
// (stream error 515) logged as info instead of as an error.
import type { SocketConfig } from 'baileys';
import type { Logger } from '../../logger.js';

export type EngineLogger = SocketConfig['logger'];

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

/** `root` must not carry a `component` binding; `bindings` are the instance's. */
export function engineLogger(root: Logger, bindings: Record<string, unknown>): EngineLogger {
  const log = root.child({ component: 'baileys', ...bindings });
  // Baileys logs every routine reconnect at info; the gateway reports those as states instead.
  if (log.level !== 'trace' && LEVELS.indexOf(log.level) < LEVELS.indexOf('warn')) log.level = 'warn';
  return adapt(log);
}

function adapt(log: Logger): EngineLogger {
  return {
    get level() {
      return log.level;
    },
    set level(level: string) {
      log.level = level;
    },
    child: (obj) => adapt(log.child(obj)),
    trace: (obj, msg) => log.trace(obj, msg),
    debug: (obj, msg) => log.debug(obj, msg),
    info: (obj, msg) => log.info(obj, msg),
    warn: (obj, msg) => log.warn(obj, msg),
    error: (obj, msg) => (isRoutineRestart(obj) ? log.info(obj, msg) : log.error(obj, msg)),
  };
}

/** Baileys' "stream errored out" for `<stream:error code="515"/>`: restart required, expected. */
export function isRoutineRestart(obj: unknown): boolean {
  const node = (obj as { fullErrorNode?: { tag?: unknown; attrs?: { code?: unknown } } } | null)?.fullErrorNode;
  return node?.tag === 'stream:error' && node.attrs?.code === '515';
}
