// Structured logs with secrets redacted at the serializer, so no code path can leak a token.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line. */
export const REDACT_PATHS = [
  'req.headers["client-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.url',
  'token',
  'clientToken',
  'instanceToken',
  'secret',
  'webhookSecret',
  '*.token',
  '*.clientToken',
  '*.instanceToken',
  '*.secret',
  '*.webhookSecret',
];

/** Instance paths carry the instanceToken: strip it before a URL is logged. */
export function redactUrl(url: string): string {
  return url.replace(/(\/token\/)[^/?#]+/g, '$1[REDACTED]').replace(/([?&](?:token|auth)=)[^&#]*/gi, '$1[REDACTED]');
}

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS.filter((p) => p !== 'req.url'), censor: '[REDACTED]' },
      serializers: {
        req(req: { method?: string; url?: string; id?: unknown }) {
          return { method: req.method, url: req.url ? redactUrl(req.url) : undefined, id: req.id };
        },
      },
    },
    destination as DestinationStream | undefined,
  );
}
