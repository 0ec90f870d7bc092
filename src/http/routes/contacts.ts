// Tag "contacts": which numbers exist on the network.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MAX_PHONES_PER_BATCH, type ContactsService } from '../../services/contacts-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const tags = ['contacts'];
const Lid = Type.Union([Type.String({ description: 'the LID as an address, `<digits>@lid`' }), Type.Null()]);
const PhoneCheck = Type.Object({ exists: Type.Boolean(), inputPhone: Type.String(), outputPhone: Type.String(), lid: Lid });
const PhoneChecks = named(
  'PhoneChecks',
  'One answer per number, in input order: `exists` on WhatsApp, the number as given and as WhatsApp knows it (`outputPhone`, e.g. with the 9th digit settled), and its LID when known.',
  Type.Array(PhoneCheck, { examples: [[{ exists: true, inputPhone: '5511999999999', outputPhone: '5511999999999', lid: '123456789012345@lid' }, { exists: false, inputPhone: '5511988888888', outputPhone: '5511988888888', lid: null }]] }),
);
const PhoneExists = named(
  'PhoneExists',
  'Whether the number is on WhatsApp, the number as WhatsApp knows it, and its LID when known.',
  Type.Object({ exists: Type.Boolean(), phone: Type.String(), lid: Lid }, { examples: [{ exists: true, phone: '5511999999999', lid: '123456789012345@lid' }] }),
);

const ReportResult = named('ReportContactResult', 'Z-API\'s answer to a report (never given by zapgate: see 422).', Type.Object({ success: Type.Boolean() }, { examples: [{ success: true }] }));

/** Registered once on the server (see server.ts): the 202 answer and the poll's answer. */
export const PhoneCheckJobSchema = Type.Object(
  {
    jobId: Type.String(),
    status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
    total: Type.Integer(),
    done: Type.Integer(),
    results: Type.Optional(Type.Array(PhoneCheck)),
    error: Type.Optional(Type.String()),
  },
  {
    $id: 'PhoneCheckJob',
    description: 'A batch check running in the background: `done` of `total` numbers checked; once `status` is `done`, `results` in input order.',
    examples: [{ jobId: '0b6a5d7e-3f0c-4c1a-9d55-2f1e8c7a9b10', status: 'running', total: 20000, done: 3500 }] },
);

export function contactRoutes(contacts: ContactsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/phone-exists-batch',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'contacts_phone-exists-batch',
          summary: 'Check up to 50,000 numbers; results in input order',
          description:
            'Numbers checked in the last 24 h answer from the cache; the rest are asked of the network in small, paced chunks (about 100 numbers a second, so a burst does not get the number banned). ' +
            'When more than ZAPGATE_PHONE_CHECK_SYNC_MAX numbers (default 1,000) need the network, or the request asks for it (`?async=true` or `Prefer: respond-async`), the answer is 202 with a job: poll `GET …/phone-exists-batch/{jobId}` until `status` is `done`; its `results` are this answer. ' +
            'A malformed entry fails the whole call with 400 naming it.',
          querystring: Type.Object({ async: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: '`true`: answer with a job (202) whatever the batch size' })) }),
          body: Type.Object(
            { phones: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: MAX_PHONES_PER_BATCH }) },
            { examples: [{ phones: ['5511999999999', '5511988888888'] }] },
          ),
          response: {
            200: PhoneChecks,
            202: Type.Ref('PhoneCheckJob'),
            ...errorResponses(409, 504),
          },
        },
      },
      async (request, reply) => {
        const preferAsync = request.query.async === 'true' || /\brespond-async\b/i.test(String(request.headers.prefer ?? ''));
        const answer = await contacts.existsBatchOrJob(instanceOf(request).id, request.body.phones, preferAsync);
        if (answer.kind === 'now') return answer.results;
        return reply.code(202).header('location', `${request.url.split('?')[0]}/${answer.job.jobId}`).send(answer.job);
      },
    );

    app.get(
      '/phone-exists-batch/:jobId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'contacts_phone-exists-batch-job',
          summary: 'A phone-exists-batch job: progress, then the answers',
          description: 'While `status` is `running`, `done` of `total` numbers are checked. Once `done`, `results` holds the batch answer in input order; `failed` gives `error` (numbers checked before the failure are cached: a new batch answers them at once). Finished jobs are kept 24 h.',
          params: Type.Object({ jobId: Type.String({ minLength: 1, maxLength: 64, examples: ['0b6a5d7e-3f0c-4c1a-9d55-2f1e8c7a9b10'] }) }),
          response: { 200: Type.Ref('PhoneCheckJob'), ...errorResponses() },
        },
      },
      async (request) => contacts.job(instanceOf(request).id, request.params.jobId),
    );

    app.post(
      '/contacts/:phone/report',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'contacts_report',
          summary: 'Report a contact (Z-API; not available: 422)',
          description:
            'Z-API reports the number to WhatsApp as spam. zapgate\'s engine (Baileys 7) has no way to send WhatsApp\'s spam report, so the phone is checked (400 for a bad one) and the answer is always 422 `Unable to process request` with code `NOT_SUPPORTED` and the reason; nothing is sent. `contacts/modify-blocked` blocks the number instead. The 200 below is Z-API\'s shape, never given here (docs/contract.md §7).',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64, examples: ['5511999999999'] }) }),
          response: { 200: ReportResult, ...errorResponses(422) },
        },
      },
      async (request) => contacts.report(request.params.phone),
    );

    app.get(
      '/phone-exists/:phone',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'contacts_phone-exists',
          summary: 'Check one number',
          description: 'Asks the network whether the number has WhatsApp (answered from a 24 h cache when checked recently). Needs a connected instance (409 otherwise).',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64, examples: ['5511999999999'] }) }, { additionalProperties: true }),
          response: { 200: PhoneExists, ...errorResponses(409, 504) },
        },
      },
      async (request) => contacts.exists(instanceOf(request).id, request.params.phone),
    );
  };
}
