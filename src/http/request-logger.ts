// Per-request loggers made on first use: Fastify asks for a child logger on every request, and a
// pino child serialises its bindings when it is created, yet almost no request logs anything
// (about 1 µs and two objects per request on the send-accept path; bench/enqueue).
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

class LazyChildLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The real pino child, with the request's bindings (reqId), made on the first log call. */
  get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): LevelWithSilentOrString {
    return this.made ? this.made.level : (this.options.level ?? this.parent.level);
  }

  set level(level: LevelWithSilentOrString) {
    this.real.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options);
  }
}

// On the prototype, so a request pays for one small object and nothing per method.
for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const satisfies readonly Level[]) {
  LazyChildLogger.prototype[level] = function (this: LazyChildLogger, ...args: unknown[]): void {
    (this.real[level] as (...a: unknown[]) => void)(...args);
  } as LogFn;
}

/** Fastify's `childLoggerFactory`: the same child logger as the default, built lazily. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
