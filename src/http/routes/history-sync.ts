// Tag "instance": history sync at pairing (zapgate's own; Z-API has no such setting). Whether the
// phone's history is imported into the stored copy (GET /chats, /chats/{phone}, /contacts) when
// the instance is paired, how many days of it, and whether imported messages go to the webhook.
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { HistorySyncService } from '../../services/history-sync-service.js';
import { HISTORY_DEFAULT_DAYS, HISTORY_MAX_DAYS } from '../../domain/history.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const tags = ['instance'];

const ABOUT = [
  'When a device is linked, WhatsApp has the phone send it the account\'s recent chats and messages (history sync). With `enabled`, zapgate imports them into its stored copy of the account: chats (name, unread count, archived, pinned, muted, disappearing timer), contacts (address-book names, push names) and the messages of the last `days` days (older ones, and any beyond the retention settings `ZAPGATE_CHAT_MESSAGES_RETENTION_DAYS` / `ZAPGATE_CHAT_MESSAGES_PER_CHAT`, are dropped). Chats with no message in the window are not listed.',
  'Off by default. Set it before pairing (a freshly created instance accepts it): the phone sends its history once, right after the QR code is scanned; changed later, it applies to the next pairing. The phone decides how far back its history reaches (about three months on WhatsApp).',
  'The import runs in the background and never replaces newer state from live messages. Imported media messages are listed without their files.',
  '`webhook`: imported messages also go to the received webhook as ReceivedCallback events carrying `"fromHistory": true` (your own messages only with notify-sent-by-me, as live ones). Off by default, so a pairing never floods a client with old messages.',
].join('\n\n');

const View = Type.Object({
  enabled: Type.Boolean({ description: 'Import the phone\'s history at pairing.' }),
  days: Type.Integer({ description: 'Days of messages imported, counted back from the pairing.' }),
  webhook: Type.Boolean({ description: 'Imported messages also go to the received webhook (marked `fromHistory: true`).' }),
});
const HistorySync = named('HistorySync', 'The instance\'s history-sync settings.', Type.Composite([View], { examples: [{ enabled: true, days: 7, webhook: false }] }));
const HistorySyncUpdated = named(
  'HistorySyncUpdated',
  'The settings as saved.',
  Type.Composite([Type.Object({ value: Type.Literal(true) }), View], { examples: [{ value: true, enabled: true, days: 7, webhook: false }] }),
);

function historySyncRoutes(history: HistorySyncService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/update-history-sync',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-history-sync',
          summary: 'Import the phone\'s chat history at pairing (opt-in)',
          description: `${ABOUT}\n\nOmitted \`days\` and \`webhook\` keep their values (defaults: ${HISTORY_DEFAULT_DAYS} days, no webhook). Answers the settings now stored.`,
          body: Type.Object(
            {
              enabled: Type.Boolean(),
              days: Type.Optional(Type.Integer({ minimum: 1, maximum: HISTORY_MAX_DAYS, description: `1 to ${HISTORY_MAX_DAYS}` })),
              webhook: Type.Optional(Type.Boolean()),
            },
            { examples: [{ enabled: true, days: 30, webhook: false }] },
          ),
          response: { 200: HistorySyncUpdated, ...errorResponses() },
        },
      },
      async (request) => ({ value: true as const, ...(await history.update(instanceOf(request).id, request.body)) }),
    );

    app.get(
      '/history-sync',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'instance_history-sync',
          summary: 'The instance\'s history-sync settings',
          description: ABOUT,
          response: { 200: HistorySync, ...errorResponses() },
        },
      },
      async (request) => history.get(instanceOf(request).id),
    );
  };
}

/** The routes as an instance-scoped plugin (listed in routes/index.ts). */
export function historySyncRouteTree(history: HistorySyncService) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(historySyncRoutes(history));
  };
}
