// Structured logs with secrets redacted at the serializer, so no code path can leak a token.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line. */
const REDACT_PATHS = [
  'req.headers["client-token"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.url',
  'token',
  'clientToken',
  'instanceToken',
  'secret',
  'webhookSecret',
  'proxyUrl',
  'password',
  '*.token',
  '*.clientToken',
  '*.instanceToken',
  '*.secret',
  '*.webhookSecret',
  '*.proxyUrl',
  '*.password',
];

// URLs in logs: a token may be anywhere a client puts it.
/** Path segments that are route words (`send-text`, `instances`): lower-case letters and hyphens. */
const ROUTE_WORD = /^[a-z]{1,40}(?:-[a-z]{1,40}){0,6}$/;
/** Ids that are not secrets and help a reader: instance ids, zaapIds, WhatsApp message ids, phones. */
const PUBLIC_ID = /^(?:[0-9A-F]{32}|[0-9A-F]{22}|3EB0[0-9A-F]{18}|\d{1,20}(?:-group)?)$/;
/** Query keys whose values are never secret; any other key is dropped with its value. */
const PUBLIC_QUERY_KEYS = new Set(['pageSize', 'pagingState', 'status', 'exp']);
const SHOWN = '[REDACTED]';

/**
 * A URL as it may be logged. Tokens travel in paths (`/token/<instanceToken>/`) but a client may
 * put one anywhere — a path segment in any case, a query key or value — so this keeps only what is
 * known not to be secret: route words, public ids in their places, and a few query keys; every
 * other segment or parameter becomes [REDACTED]. `also` (the presented Client-Token) is removed
 * wherever it appears, in any case.
 */
export function redactUrl(url: string, also?: string): string {
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const segments = path.split('/').map((seg, i, all) => {
    if (seg === '' || ROUTE_WORD.test(seg)) return seg;
    const previous = (all[i - 1] ?? '').toLowerCase();
    if (previous === 'token') return SHOWN;
    return PUBLIC_ID.test(seg) && seg.length >= 4 && previous !== '' ? seg : SHOWN;
  });
  let out = segments.join('/');
  if (q >= 0) {
    const parts = url
      .slice(q + 1)
      .split('&')
      .filter((p) => p !== '')
      .map((p) => {
        const eq = p.indexOf('=');
        const key = eq < 0 ? p : p.slice(0, eq);
        if (!PUBLIC_QUERY_KEYS.has(key)) return SHOWN;
        const value = eq < 0 ? '' : p.slice(eq + 1);
        return /^[A-Za-z0-9_-]{0,16}$/.test(value) ? p : `${key}=${SHOWN}`;
      });
    out += `?${parts.join('&')}`;
  }
  if (also && also.length >= 8) {
    const lower = also.toLowerCase();
    let at = out.toLowerCase().indexOf(lower);
    while (at >= 0) {
      out = out.slice(0, at) + SHOWN + out.slice(at + also.length);
      at = out.toLowerCase().indexOf(lower, at + SHOWN.length);
    }
  }
  return out;
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
