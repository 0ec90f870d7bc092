// Tag "event stream": the events the webhooks carry, as Server-Sent Events, per account and per
// instance, resumable with Last-Event-ID. Authenticated like the rest of the API (the Client-Token
// header; the instance token in the path), so a browser reads it with fetch, not EventSource.
import type { ServerResponse } from 'node:http';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventStreamHub, OpenStream, StreamEvent, StreamScope } from '../../services/event-stream.js';
import { accountOf, instanceOf } from '../auth.js';
import { exemptFromDeadline } from '../connection-limits.js';
import { errorResponses } from '../schemas/common.js';

const tags = ['event stream'];

const Headers = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      maxLength: 64,
      description: 'The `id` of the last event received: the stream resumes right after it. Without it, the stream starts with the next event.',
    }),
  ),
});

/** No query parameters: a stray one is a 400, not a stream held open by mistake. */
const NoQuery = Type.Object({}, { additionalProperties: false });

const description = (scope: string) =>
  `Server-Sent Events (\`text/event-stream\`) of ${scope}: each event is \`id: <webhook-id>\\nevent: <type>\\ndata: <the webhook body>\\n\\n\`, ` +
  'with exactly the JSON a webhook receives (ReceivedCallback, MessageStatusCallback, DeliveryCallback, ConnectedCallback, DisconnectedCallback, PresenceChatCallback; see the `webhooks` section), in commit order. ' +
  'Reconnect with the `Last-Event-ID` header to get every event after that one, once, in order, as long as it is within `ZAPGATE_EVENT_STREAM_RETENTION_HOURS` (default 24 h; events are kept for the stream whether or not a webhook URL is set). ' +
  'A comment line (`: ping`) comes every 15 s. At most `ZAPGATE_EVENT_STREAMS_PER_ACCOUNT` streams per account (default 10; one more is 429). The stream ends when the gateway shuts down: reconnect with Last-Event-ID. ' +
  'EventSource cannot send the Client-Token header: read it with fetch and a stream reader (as /dashboard does).';

const SseResponse = {
  description: 'An endless event stream.',
  content: { 'text/event-stream': { schema: { type: 'string', example: 'id: msg_018f3a…\nevent: ConnectedCallback\ndata: {"type":"ConnectedCallback","connected":true,"phone":"5511999999999","momment":1700000000000,"instanceId":"3C…","connectedPhone":"5511999999999"}\n\n' } } },
};

function frame(e: StreamEvent): string {
  // The payload is JSON.stringify output: one line, so one `data:` field carries it.
  return `id: ${e.id}\nevent: ${e.kind}\ndata: ${e.payload}\n\n`;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

async function serve(hub: EventStreamHub, scope: StreamScope, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const res = reply.raw;
  const lastEventId = (request.headers as { 'last-event-id'?: string })['last-event-id'];
  let stopHeartbeat: (() => void) | null = null;
  let stream: OpenStream | null = null;
  const head = (): void => {
    if (res.headersSent) return;
    exemptFromDeadline(reply);
    reply.hijack();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': request.id,
    });
    // How long EventSource-style clients wait before reconnecting.
    res.write('retry: 2000\n\n');
    stopHeartbeat = hub.heartbeat(() => res.write(': ping\n\n'));
  };
  const end = (): void => {
    stopHeartbeat?.();
    stopHeartbeat = null;
    stream?.close();
    if (res.headersSent && !res.writableEnded) res.end();
  };
  res.once('close', end);
  // Refusals (429) are answered as ordinary errors: nothing is written before this resolves.
  stream = await hub.openStream(
    scope,
    lastEventId,
    async (events) => {
      head();
      if (!res.write(events.map(frame).join(''))) await drained(res);
    },
    (err) => {
      // The consumer reconnects with Last-Event-ID and misses nothing; the cause is worth a line.
      if (err !== undefined) request.log.warn({ err }, 'event stream read failed; the stream is closed');
      end();
    },
  );
  if (res.destroyed) return end();
  head();
}

/** `GET /events`: every instance of the account. */
export function accountEventStreamRoutes(hub: EventStreamHub) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/events',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'events_account-stream',
          summary: "Live events of all the account's instances (Server-Sent Events)",
          description: description("every instance of the account (also ones created while the stream is open); each body's `instanceId` says which"),
          headers: Headers,
          querystring: NoQuery,
          response: { 200: SseResponse, ...errorResponses(429) },
        },
      },
      async (request, reply) => serve(hub, { accountId: accountOf(request).id, instanceId: null }, request, reply),
    );
  };
}

/** `GET …/events`: one instance. */
export function instanceEventStreamRoutes(hub: EventStreamHub) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/events',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'events_instance-stream',
          summary: "Live events of this instance (Server-Sent Events)",
          description: description('this instance'),
          headers: Headers,
          querystring: NoQuery,
          response: { 200: SseResponse, ...errorResponses(429) },
        },
      },
      async (request, reply) => {
        const instance = instanceOf(request);
        return serve(hub, { accountId: instance.accountId, instanceId: instance.id }, request, reply);
      },
    );
  };
}
