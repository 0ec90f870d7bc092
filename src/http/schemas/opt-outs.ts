// Tag "campaigns", opt-out part: the account's list of numbers that asked to hear no more, and its
// settings (docs/contract.md §12).
import { Type } from '@sinclair/typebox';
import { named } from './common.js';
import { EXAMPLE_PHONE } from './examples.js';

const Keyword = Type.String({ minLength: 1, maxLength: 60 });

export const OptOutSettingsModel = named(
  'OptOutSettings',
  "The account's opt-out settings: the keywords a whole received message is matched against (case, accents, spaces and punctuation ignored), the confirmation sent once, and strict mode.",
  Type.Object(
    {
      keywords: Type.Array(Type.String()),
      defaultKeywords: Type.Boolean({ description: 'Whether `keywords` are the defaults (Portuguese, Spanish and English).' }),
      confirmation: Type.String({ description: "Sent once to a number that opted out by keyword; '' = nothing is sent." }),
      strict: Type.Boolean({ description: 'true: direct sends to an opted-out number are refused (403 `RECIPIENT_OPTED_OUT`) too; false: only scheduled sends and campaigns skip them.' }),
    },
    { examples: [{ keywords: ['sair', 'parar', 'stop', 'baja', 'cancelar', 'unsubscribe'], defaultKeywords: false, confirmation: 'Ok, you will not hear from us again.', strict: false }] },
  ),
);

export const OptOutSettingsBody = Type.Object(
  {
    keywords: Type.Optional(Type.Union([Type.Array(Keyword, { minItems: 1, maxItems: 200 }), Type.Null()], { description: 'null restores the defaults.' })),
    confirmation: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()], { description: "null restores the default; '' sends nothing." })),
    strict: Type.Optional(Type.Boolean()),
  },
  { examples: [{ keywords: ['sair', 'parar', 'stop', 'baja', 'cancelar', 'unsubscribe'], confirmation: 'Ok, you will not hear from us again.', strict: false }] },
);

const OptOutItem = Type.Object({
  phone: Type.String(),
  source: Type.Union([Type.Literal('keyword'), Type.Literal('api')]),
  instanceId: Type.Union([Type.String(), Type.Null()], { description: 'The instance the keyword came to (null: added through the API).' }),
  keyword: Type.Union([Type.String(), Type.Null()], { description: 'The message as the person wrote it.' }),
  created: Type.Integer({ description: 'ms since the epoch' }),
});

export const OptOutPage = named(
  'OptOutPage',
  'A page of the opt-out list, by phone; pass `next` as `after` for the following page (null at the end).',
  Type.Object(
    { optOuts: Type.Array(OptOutItem), next: Type.Union([Type.String(), Type.Null()]) },
    { examples: [{ optOuts: [{ phone: EXAMPLE_PHONE, source: 'keyword', instanceId: '01JDX3N8W4M9Q2R7T5V6Y8Z0AB', keyword: 'Parar', created: 1735689600000 }], next: null }] },
  ),
);

export const OptOutAdd = Type.Object(
  { phones: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, maxItems: 10000 }) },
  { examples: [{ phones: [EXAMPLE_PHONE] }] },
);

export const OptOutAdded = named('OptOutAdded', 'How many of the numbers were not on the list before.', Type.Object({ added: Type.Integer() }, { examples: [{ added: 1 }] }));

export const OptOutCsv = named('OptOutCsv', 'CSV with a header row: phone, source, instanceId, keyword, created (ISO 8601).', Type.String({ examples: ['phone,source,instanceId,keyword,created\n5511999999999,api,,,2025-01-01T00:00:00.000Z\n'] }));
