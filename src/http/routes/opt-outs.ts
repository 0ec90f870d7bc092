// Tag "campaigns", opt-out part (account scope): the suppression list and its settings (docs/contract.md §12).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { OptOutsService } from '../../services/opt-outs-service.js';
import { accountOf } from '../auth.js';
import { errorResponses, ValueTrue } from '../schemas/common.js';
import { OptOutAdd, OptOutAdded, OptOutCsv, OptOutPage, OptOutSettingsBody, OptOutSettingsModel } from '../schemas/opt-outs.js';

const tags = ['campaigns'];
const accountErrors = () => {
  const { 404: _instanceNotFound, ...rest } = errorResponses();
  return rest;
};

export function optOutRoutes(optOuts: OptOutsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/opt-outs',
      {
        schema: {
          tags,
          operationId: 'opt-outs_list', 'x-zapgate-scope': 'read',
          summary: "List the account's opted-out numbers (paged)",
          description:
            'Numbers that replied an opt-out keyword to any of the account\'s instances, or were added here. Scheduled sends and campaigns skip them (a DeliveryCallback with `errorCode: "OPTED_OUT"`); direct sends too when the settings are strict. `pageSize` 1–1000 (default 100); `after`: the `next` of the previous page.',
          querystring: Type.Object({
            pageSize: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$|^1000$' })),
            after: Type.Optional(Type.String({ maxLength: 32 })),
          }),
          response: { 200: OptOutPage, ...accountErrors() },
        },
      },
      async (request) => optOuts.list(accountOf(request).id, Number(request.query.pageSize ?? 100), request.query.after ?? null),
    );

    app.post(
      '/opt-outs',
      {
        schema: {
          tags,
          operationId: 'opt-outs_add', 'x-zapgate-scope': 'manage',
          summary: 'Add numbers to the opt-out list',
          description: 'Numbers with country code (as `phone` in the sends). No confirmation is sent to them. Answers how many were new.',
          body: OptOutAdd,
          response: { 200: OptOutAdded, ...accountErrors() },
        },
      },
      async (request) => ({ added: await optOuts.add(accountOf(request).id, request.body.phones) }),
    );

    app.delete(
      '/opt-outs/:phone',
      {
        schema: {
          tags,
          operationId: 'opt-outs_remove', 'x-zapgate-scope': 'manage',
          summary: 'Take a number off the opt-out list',
          description: 'The number may be messaged by scheduled sends and campaigns again (it opted back in). 404 when it is not on the list. Replying a keyword again opts it out again, with the confirmation.',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32, examples: ['5511999999999'] }) }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await optOuts.remove(accountOf(request).id, request.params.phone);
        return { value: true };
      },
    );

    app.get(
      '/opt-outs/export',
      {
        schema: {
          tags,
          operationId: 'opt-outs_export', 'x-zapgate-scope': 'read',
          summary: 'Export the opt-out list as CSV',
          description: 'The whole list, by phone, as `text/csv` with a header row (`phone,source,instanceId,keyword,created`); a cell that a spreadsheet would read as a formula is prefixed with `\'`.',
          produces: ['text/csv'],
          response: { 200: OptOutCsv, ...accountErrors() },
        },
      },
      async (request, reply) => {
        let csv = '';
        for await (const chunk of optOuts.csv(accountOf(request).id)) csv += chunk;
        return reply.type('text/csv; charset=utf-8').header('content-disposition', 'attachment; filename="opt-outs.csv"').send(csv);
      },
    );

    app.get(
      '/opt-out-settings',
      {
        schema: {
          tags,
          operationId: 'opt-outs_settings', 'x-zapgate-scope': 'read',
          summary: "The account's opt-out settings",
          description: 'The keywords (defaults in Portuguese, Spanish and English until the account sets its own), the confirmation sent once to a number that opts out, and strict mode.',
          response: { 200: OptOutSettingsModel, ...accountErrors() },
        },
      },
      async (request) => optOuts.settings(accountOf(request).id),
    );

    app.put(
      '/opt-out-settings',
      {
        schema: {
          tags,
          operationId: 'opt-outs_update-settings', 'x-zapgate-scope': 'manage',
          summary: "Change the account's opt-out settings",
          description:
            'Each field is optional. A received 1:1 text opts its sender out when the whole message, ignoring case, accents, spaces and punctuation, is one of `keywords`; the sender then gets `confirmation` once. `strict: true` also refuses direct sends to opted-out numbers (403 `RECIPIENT_OPTED_OUT`).',
          body: OptOutSettingsBody,
          response: { 200: OptOutSettingsModel, ...accountErrors() },
        },
      },
      async (request) => optOuts.updateSettings(accountOf(request).id, request.body),
    );
  };
}
