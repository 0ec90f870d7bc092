// GET /dashboard: the web dashboard, served by the gateway itself from strings in this package
// (nothing fetched at run time, nothing to copy at build). The page holds no secret: it asks for
// the Client-Token or an API key and then uses the public API like any client.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { DASHBOARD_CSS } from './assets/app-css.js';
import { DASHBOARD_JS_ACCOUNT } from './assets/app-js-account.js';
import { DASHBOARD_JS_BASE } from './assets/app-js-base.js';
import { DASHBOARD_JS_CAMPAIGN_FORM } from './assets/app-js-campaign-form.js';
import { DASHBOARD_JS_CAMPAIGNS } from './assets/app-js-campaigns.js';
import { DASHBOARD_JS_CHATS } from './assets/app-js-chats.js';
import { DASHBOARD_JS_INSTANCE } from './assets/app-js-instance.js';
import { DASHBOARD_JS_LIVE } from './assets/app-js-live.js';
import { DASHBOARD_JS_NUMBER_HEALTH } from './assets/app-js-number-health.js';
import { DASHBOARD_JS_OPTOUTS } from './assets/app-js-optouts.js';
import { DASHBOARD_ICON_SVG } from './assets/icon.js';
import { DASHBOARD_HTML } from './assets/page.js';

/**
 * Only this origin's script and style files (no inline code, no eval), images from this origin and
 * data URIs (the QR code), requests to this origin only; never framed.
 */
const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

/** The script is one file in the browser, kept in nine parts by concern here (see `assets/app-js-base.ts`). */
const DASHBOARD_JS =
  DASHBOARD_JS_BASE +
  DASHBOARD_JS_INSTANCE +
  DASHBOARD_JS_CHATS +
  DASHBOARD_JS_ACCOUNT +
  DASHBOARD_JS_CAMPAIGNS +
  DASHBOARD_JS_CAMPAIGN_FORM +
  DASHBOARD_JS_OPTOUTS +
  DASHBOARD_JS_NUMBER_HEALTH +
  DASHBOARD_JS_LIVE;

const files = {
  '/dashboard': { type: 'text/html; charset=utf-8', body: Buffer.from(DASHBOARD_HTML) },
  '/dashboard/app.js': { type: 'text/javascript; charset=utf-8', body: Buffer.from(DASHBOARD_JS) },
  '/dashboard/app.css': { type: 'text/css; charset=utf-8', body: Buffer.from(DASHBOARD_CSS) },
  '/dashboard/icon.svg': { type: 'image/svg+xml', body: Buffer.from(DASHBOARD_ICON_SVG) },
} as const;

export function dashboardRoutes() {
  return async (app: FastifyInstance): Promise<void> => {
    for (const [url, file] of Object.entries(files)) {
      app.get(url, { schema: { hide: true } }, async (_request, reply: FastifyReply) => reply.headers(HEADERS).type(file.type).send(file.body));
    }
  };
}
