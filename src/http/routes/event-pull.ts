// Tag "event stream": the pull API (docs/contract.md §5b). GET …/events/next long-polls the oldest
// unacknowledged event of the instance; DELETE …/events/{id} acknowledges it. For receivers that
// cannot take webhooks (behind NAT or a firewall) and want no open stream.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_PULL_WAIT_S, type EventPullService } from '../../services/event-pull.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['event stream'];

const PulledEvent = named(
  'PulledEvent',
  'The oldest event of this instance not acknowledged yet: `id` is its `webhook-id` (the SSE stream\'s event id), `type` its type, `body` exactly the JSON a webhook receives.',
  Type.Object(
    { id: Type.String(), type: Type.String(), body: Type.Unknown({ description: 'The webhook body.' }) },
    {
      examples: [
        {
          id: 'msg_018f3a2b4c5d6e7f8091a2b3c4d5',
          type: 'ReceivedCallback',
          body: { type: 'ReceivedCallback', instanceId: '3C0FFEE', connectedPhone: '5511999990000', phone: '5511988887777', messageId: '3EB0A1B2C3D4E5F6A7B8', fromMe: false, momment: 1764000000000, text: { message: 'Hi' } },
        },
      ],
    },
  ),
);

const ORDER =
  'One queue per instance, in commit order, over the events the outbox stores (every event the instance reports while `ZAPGATE_EVENT_STREAM_RETENTION_HOURS` > 0, default 24 h; with 0, only those a webhook or sink takes), kept as long as that retention. Strict order: the same event is returned to every poll until it is acknowledged (no visibility timeout), so an unacknowledged event comes again and nothing overtakes it. Several consumers may poll one instance: whoever acknowledges the event moves the queue on; an acknowledged event is never returned again. Independent of webhooks, sinks, filters and SSE streams.';

/** `GET …/events/next` and `DELETE …/events/{id}` of one instance. */
export function eventPullRoutes(pull: EventPullService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/events/next',
      {
        schema: {
          tags,
          operationId: 'events_pull-next',
          'x-zapgate-scope': 'read',
          summary: 'The next unacknowledged event of this instance (long poll)',
          description: `Returns the oldest event not acknowledged yet (200), waiting up to \`wait\` seconds for one; 204 (no body) when none came. Acknowledge it with DELETE …/events/{id}, then poll again. ${ORDER}`,
          querystring: Type.Object(
            { wait: Type.Optional(Type.String({ pattern: '^([0-9]|[12][0-9]|30)$', description: `Seconds to wait for an event when there is none (0–${MAX_PULL_WAIT_S}, default 0: answer at once).` })) },
            { additionalProperties: false },
          ),
          response: { 200: PulledEvent, 204: Type.Null({ description: 'No event within `wait` seconds.' }), ...errorResponses() },
        },
      },
      async (request, reply) => {
        const wait = Number(request.query.wait ?? 0);
        // A consumer that gives up (closes the connection) stops the wait.
        const gone = new AbortController();
        reply.raw.once('close', () => gone.abort());
        const event = await pull.next(instanceOf(request).id, wait, gone.signal);
        if (event === null) return reply.code(204).send(null);
        return { id: event.id, type: event.kind, body: JSON.parse(event.payload) as unknown };
      },
    );

    app.delete(
      '/events/:id',
      {
        schema: {
          tags,
          operationId: 'events_pull-ack',
          'x-zapgate-scope': 'read',
          summary: 'Acknowledge the event GET …/events/next returned',
          description: `Moves the instance's queue past this event (durably: across restarts, on every node). Acknowledging it again is harmless (200). Only the next event can be acknowledged: any later one is 409 CONFLICT (strict order), an id this instance does not have (or no longer: past the retention) 404 NOT_FOUND. Needs the \`read\` scope like the poll, so a read-only key can drain its queue: acknowledging changes nothing but this queue. ${ORDER}`,
          params: Type.Object({ id: Type.String({ maxLength: 64, description: 'The `id` of the event.', examples: ['msg_018f3a2b4c5d6e7f8091a2b3c4d5'] }) }),
          response: { 200: ValueTrue, ...errorResponses(409) },
        },
      },
      async (request) => {
        await pull.ack(instanceOf(request).id, request.params.id);
        return { value: true };
      },
    );
  };
}
