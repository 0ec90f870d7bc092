// Tag "instance", health part: GET {prefix}/health, the number's rolling figures (docs/contract.md
// §12) — not the process's liveness (/livez, /readyz are the operations probes).
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { HealthService } from '../../services/health-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const Ratio = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]);
const Ms = (description: string) => Type.Integer({ description });

const NumberHealth = named(
  'NumberHealth',
  "The number's health over the last (rolling) day, from what the network told the engine.",
  Type.Object(
    {
      instanceId: Type.String(),
      phone: Type.Union([Type.String(), Type.Null()], { description: 'The paired number; null before the first pairing.' }),
      status: Type.String({ description: 'The session status, as GET …/status.' }),
      since: Ms('Start of the window (ms since the epoch): one day back, on the gateway\'s clock (ZAPGATE_TIME_SCALE applies).'),
      messages: Type.Object(
        {
          sent: Type.Integer({ description: 'Messages accepted in the window that left (the network acknowledged them).' }),
          delivered: Type.Integer({ description: 'Of those, delivered to the recipient (read included).' }),
          read: Type.Integer({ description: 'Of those, read or played.' }),
          failed: Type.Integer({ description: 'Messages refused by the network or that could not be sent (cancelled and opted-out ones are not counted).' }),
          deliveredRatio: Type.Union([Type.Number(), Type.Null()], { description: 'delivered / sent; null when nothing was sent.' }),
          readRatio: Ratio,
          failedRatio: Type.Union([Type.Number(), Type.Null()], { description: 'failed / (sent + failed): the governor pauses sending when its own rolling count crosses ZAPGATE_ANTIBAN_MAX_FAILURE_RATIO.' }),
          failures: Type.Array(
            Type.Object({ code: Type.String({ description: 'errorCode of the DeliveryCallback (docs/errors.md)' }), count: Type.Integer(), reason: Type.Union([Type.String(), Type.Null()]) }),
            { description: 'Failures by code, most frequent first.' },
          ),
        },
        { description: 'Messages accepted in the window, by how far they got.' },
      ),
      strangers: Type.Object(
        {
          lastDay: Type.Integer({ description: 'First messages to numbers that never wrote and were never written to (first contacts), in the window.' }),
          perDay: Type.Array(Type.Integer(), { description: 'First contacts per day over the last 7 days, oldest first; the last entry is the current day.' }),
          warmup: Type.Object(
            {
              day: Type.Union([Type.Integer(), Type.Null()], { description: 'Days since the number was paired; null: never paired.' }),
              factor: Type.Number({ description: 'The warm-up: the fraction of the first-contact caps allowed today (ZAPGATE_ANTIBAN_WARMUP_START growing to 1 over ZAPGATE_ANTIBAN_WARMUP_DAYS).' }),
              capPerDay: Type.Union([Type.Integer(), Type.Null()], { description: 'First contacts allowed per day today; null when the anti-ban strategy is off or there is no cap.' }),
              capPerHour: Type.Union([Type.Integer(), Type.Null()], { description: 'The same per hour.' }),
            },
          ),
        },
      ),
      disconnections: Type.Object(
        {
          count: Type.Integer({ description: 'Times the number lost its connection in the window: a drop the session reconnects from counts once (as `disconnected`, reason `connection lost: <cause>`); a new instance\'s first status does not.' }),
          reasons: Type.Array(Type.Object({ status: Type.String(), reason: Type.Union([Type.String(), Type.Null()]), count: Type.Integer(), last: Ms('The latest (ms since the epoch).') }), {
            description: 'By status (disconnected, logged_out, banned, replaced) and reason, latest first.',
          }),
        },
      ),
      governor: Type.Object(
        {
          enabled: Type.Boolean({ description: 'The anti-ban strategy (update-antiban), which carries the warm-up and the governor.' }),
          paused: Type.Boolean({ description: 'Sending (and the number\'s running campaigns) paused by a restriction signal or a failure ratio over the threshold.' }),
          reason: Type.Union([Type.String(), Type.Null()]),
          until: Type.Union([Type.Integer(), Type.Null()], { description: 'ms since the epoch when sending resumes.' }),
          restrictions: Type.Integer({ description: 'Pauses in a row, each within a day of the previous (each doubles the pause).' }),
        },
      ),
    },
    {
      examples: [
        {
          instanceId: '3C4F9A1B2D8E7F6A5B4C3D2E1F0A9B8C',
          phone: '5511999999999',
          status: 'connected',
          since: 1764000000000,
          messages: {
            sent: 180,
            delivered: 171,
            read: 95,
            failed: 4,
            deliveredRatio: 0.95,
            readRatio: 0.528,
            failedRatio: 0.022,
            failures: [{ code: 'NOT_ON_WHATSAPP', count: 4, reason: 'the network refused the message (error 404)' }],
          },
          strangers: { lastDay: 42, perDay: [0, 0, 0, 0, 12, 30, 42], warmup: { day: 2, factor: 0.429, capPerDay: 64, capPerHour: 5 } },
          disconnections: { count: 1, reasons: [{ status: 'disconnected', reason: 'connection lost', count: 1, last: 1764050000000 }] },
          governor: { enabled: true, paused: false, reason: null, until: null, restrictions: 0 },
        },
      ],
    },
  ),
);

export function numberHealthRoutes(health: HealthService) {
  return async (base: FastifyInstance): Promise<void> => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/health',
      {
        schema: {
          tags: ['instance'],
          operationId: 'instance_health',
          'x-zapgate-scope': 'read',
          summary: "The number's health: delivery and failure ratios, first contacts, disconnections, the governor",
          description:
            'Rolling figures over the last day from what the network told the engine: messages sent, delivered, read and failed (with their reasons), first-contact sends per day against the warm-up\'s cap, disconnections with their reasons, and whether the anti-ban governor has paused the number (docs/contract.md §12). Not a liveness probe: the process\'s are /livez and /readyz. The same figures are Prometheus metrics per instance (zapgate_number_*).',
          response: { 200: NumberHealth, ...errorResponses() },
        },
      },
      async (request) => health.of(instanceOf(request).id),
    );
  };
}
