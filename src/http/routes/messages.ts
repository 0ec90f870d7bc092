// Tag "messages": one plugin over the send routes, grouped by what is sent (routes/messages/*.ts);
// their bodies and texts are in schemas/messages.ts, schemas/message-lists.ts and
// schemas/message-actions.ts and schemas/message-events-orders.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { messageActionRoutes } from './messages/actions.js';
import { eventOrderRoutes } from './messages/events-orders.js';
import { listSendRoutes } from './messages/lists.js';
import { mediaSendRoutes } from './messages/media.js';
import type { SendRoutesOptions } from './messages/send-helpers.js';
import { IdempotencyHeaders } from '../schemas/messages.js';
import { errorResponses, SendResult } from '../schemas/common.js';
import { textSendRoutes } from './messages/text.js';

export function messageRoutes(options: SendRoutesOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Every send here takes an Idempotency-Key (send-helpers.ts `common`): declared once for all of them.
    app.addHook('onRoute', (route) => {
      const response = route.schema?.response as Record<number, unknown> | undefined;
      if (response?.[200] !== SendResult) return;
      route.schema = { ...route.schema, headers: IdempotencyHeaders, response: { ...response, ...errorResponses(422) } };
    });
    textSendRoutes(app, options);
    mediaSendRoutes(app, options);
    listSendRoutes(app, options);
    messageActionRoutes(app, options);
    eventOrderRoutes(app, options);
  };
}
