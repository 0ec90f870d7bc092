// Tag "contacts": which numbers exist on the network.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_PHONES_PER_BATCH, type ContactsService } from '../../services/contacts-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses } from '../schemas/common.js';

const tags = ['contacts'];
const Lid = Type.Union([Type.String(), Type.Null()]);

export function contactRoutes(contacts: ContactsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/phone-exists-batch',
      {
        schema: {
          tags,
          operationId: 'contacts_phone-exists-batch',
          summary: 'Check up to 50,000 numbers; results in input order',
          description: 'Results are cached and queried from the network in small, paced chunks. A malformed entry fails the whole call with 400 naming it.',
          body: Type.Object({
            phones: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_PHONES_PER_BATCH }),
          }),
          response: {
            200: Type.Array(
              Type.Object({ exists: Type.Boolean(), inputPhone: Type.String(), outputPhone: Type.String(), lid: Lid }),
            ),
            ...errorResponses(409, 504),
          },
        },
      },
      async (request) => contacts.existsBatch(instanceOf(request).id, request.body.phones),
    );

    app.get(
      '/phone-exists/:phone',
      {
        schema: {
          tags,
          operationId: 'contacts_phone-exists',
          summary: 'Check one number',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: true }),
          response: { 200: Type.Object({ exists: Type.Boolean(), phone: Type.String(), lid: Lid }), ...errorResponses(409, 504) },
        },
      },
      async (request) => contacts.exists(instanceOf(request).id, request.params.phone),
    );
  };
}
