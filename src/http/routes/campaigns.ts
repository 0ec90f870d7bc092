// Tag "campaigns" (account scope): create, start, pause, resume, cancel, progress and outcomes (docs/contract.md §12).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CampaignsService } from '../../services/campaigns-service.js';
import { accountOf } from '../auth.js';
import { errorResponses } from '../schemas/common.js';
import { Campaign, CampaignIdParams, CampaignList, CampaignRecipients, NewCampaignBody } from '../schemas/campaigns.js';

const tags = ['campaigns'];

export function campaignRoutes(campaigns: CampaignsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/campaigns',
      {
        schema: {
          tags,
          operationId: 'campaigns_create', 'x-zapgate-scope': 'send',
          summary: 'Create a campaign (a draft: POST …/start runs it)',
          description:
            'One text to many recipients, `{{var}}` filled per recipient, from one or more of the account\'s instances (each recipient always served by the same one). Recipients as JSON or as CSV with a header row (`phone` and the variables); a number listed twice gets one message. It runs inside `startAt`–`endAt`, outside `quietHours` in `timeZone`, at most `dailyCap` messages per number per local day, one message of the campaign waiting per number at a time (the lane\'s pacing and the anti-ban strategy apply), and never to an opted-out number (skipped).',
          body: NewCampaignBody,
          response: { 200: Campaign, ...errorResponses() },
        },
      },
      async (request) => campaigns.create(accountOf(request).id, request.body),
    );

    app.get(
      '/campaigns',
      { schema: { tags, operationId: 'campaigns_list', 'x-zapgate-scope': 'read', summary: "The account's campaigns", description: 'Every campaign with its state and progress, oldest first.', response: { 200: CampaignList, ...errorResponses() } } },
      async (request) => campaigns.list(accountOf(request).id),
    );

    app.get(
      '/campaigns/:campaignId',
      {
        schema: {
          tags,
          operationId: 'campaigns_get', 'x-zapgate-scope': 'read',
          summary: 'A campaign and its progress',
          description: '`progress` counts recipients: pending, queued, sent (delivered and read included), delivered (read included), read, failed, skipped (opted out), cancelled.',
          params: CampaignIdParams,
          response: { 200: Campaign, ...errorResponses() },
        },
      },
      async (request) => campaigns.get(accountOf(request).id, request.params.campaignId),
    );

    app.get(
      '/campaigns/:campaignId/recipients',
      {
        schema: {
          tags,
          operationId: 'campaigns_recipients', 'x-zapgate-scope': 'read',
          summary: "Each recipient's outcome (paged)",
          description: 'By position in the list; `pageSize` 1–1000 (default 100), `after` the previous page\'s `next`.',
          params: CampaignIdParams,
          querystring: Type.Object({ pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$|^1000$' })), after: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })) }),
          response: { 200: CampaignRecipients, ...errorResponses() },
        },
      },
      async (request) => campaigns.recipients(accountOf(request).id, request.params.campaignId, Number(request.query.pageSize ?? 100), Number(request.query.after ?? 0)),
    );

    const action = (verb: 'start' | 'pause' | 'resume' | 'cancel', text: string): void => {
      app.post(
        `/campaigns/:campaignId/${verb}`,
        {
          // Starting and stopping a campaign is audited, though its scope is `send` (docs/api-keys.md).
          schema: { tags, operationId: `campaigns_${verb}`, 'x-zapgate-scope': 'send', 'x-zapgate-audit': true, summary: `${verb[0]!.toUpperCase()}${verb.slice(1)} a campaign`, description: text, params: CampaignIdParams, response: { 200: Campaign, ...errorResponses(409) } },
        },
        async (request) => campaigns[verb](accountOf(request).id, request.params.campaignId),
      );
    };
    action('start', 'A draft starts running; 409 otherwise.');
    action('pause', 'Nothing more is queued; the one message per number already waiting may still leave (within one pacing step). 409 unless running.');
    action('resume', 'A paused campaign runs again from where it stopped. 409 unless paused.');
    action('cancel', 'Stops for good: nothing more is queued and its messages not yet being sent leave the queue. 409 when done or cancelled.');
  };
}
