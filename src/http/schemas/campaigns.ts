// Tag "campaigns": a campaign's body, its view with progress, and the per-recipient outcomes (docs/contract.md §12).
import { Type } from '@sinclair/typebox';
import { named } from './common.js';
import { EXAMPLE_PHONE } from './examples.js';

const CAMPAIGN_ID = '01JDX3N8W4M9Q2R7T5V6Y8Z0AB';

export const NewCampaignBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    message: Type.String({ minLength: 1, maxLength: 65536, description: 'The text; `{{var}}` is replaced by the recipient\'s variable (`{{phone}}` always exists).' }),
    instanceIds: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 50, description: "The account's instances that send; each recipient is served by one of them, always the same." }),
    recipients: Type.Optional(
      Type.Array(Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32 }), vars: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 4096 }))) }), { minItems: 1, maxItems: 100000 }),
    ),
    recipientsCsv: Type.Optional(Type.String({ minLength: 1, description: 'Instead of `recipients`: CSV with a header row naming a `phone` column; the other columns are the variables.' })),
    timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA zone for quiet hours and the daily cap\'s days (default UTC).' })),
    startAt: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Integer()], { description: 'Not before (ISO 8601 with an offset, or epoch ms).' })),
    endAt: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Integer()], { description: 'Nothing more is queued after this; the campaign is then done.' })),
    quietHours: Type.Optional(Type.Object({ from: Type.String({ pattern: '^\\d{2}:\\d{2}$' }), to: Type.String({ pattern: '^\\d{2}:\\d{2}$' }) }, { description: 'Local times between which nothing is queued (may wrap midnight).' })),
    dailyCap: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, description: 'Messages per number per local day (default 200).' })),
    paceSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 86400, description: 'At least this long between two of the campaign\'s messages from one number, on top of the lane\'s pacing and the anti-ban strategy (default 0).' })),
  },
  {
    examples: [
      {
        name: 'January reminder',
        message: 'Hi {{name}}, your appointment is on {{date}}. Reply STOP to opt out.',
        instanceIds: [CAMPAIGN_ID],
        recipientsCsv: `phone,name,date\n${EXAMPLE_PHONE},Ana,31/01\n`,
        timeZone: 'America/Sao_Paulo',
        quietHours: { from: '21:00', to: '08:00' },
        dailyCap: 200,
      },
    ],
  },
);

const Progress = Type.Object(
  {
    pending: Type.Integer({ description: 'Not queued yet.' }),
    queued: Type.Integer({ description: 'Queued, not yet sent.' }),
    sent: Type.Integer({ description: 'Sent (delivered and read ones included).' }),
    delivered: Type.Integer({ description: 'Delivered (read ones included).' }),
    read: Type.Integer(),
    failed: Type.Integer(),
    skipped: Type.Integer({ description: 'Opted out: never sent.' }),
    cancelled: Type.Integer({ description: 'Taken out of the queue by a cancel.' }),
  },
  { additionalProperties: false },
);

const CampaignObject = Type.Object({
  id: Type.String(),
  name: Type.String(),
  state: Type.Union(['draft', 'running', 'paused', 'done', 'cancelled'].map((s) => Type.Literal(s))),
  message: Type.String(),
  instanceIds: Type.Array(Type.String()),
  settings: Type.Object({}, { additionalProperties: true }),
  created: Type.Integer(),
  started: Type.Union([Type.Integer(), Type.Null()]),
  recipients: Type.Integer(),
  progress: Progress,
});

const EXAMPLE_CAMPAIGN = {
  id: CAMPAIGN_ID,
  name: 'January reminder',
  state: 'running',
  message: 'Hi {{name}}, your appointment is on {{date}}.',
  instanceIds: [CAMPAIGN_ID],
  settings: { timeZone: 'America/Sao_Paulo', startAt: null, endAt: null, quietHours: { from: '21:00', to: '08:00' }, dailyCap: 200, paceMs: 0 },
  created: 1735689600000,
  started: 1735689600000,
  recipients: 3,
  progress: { pending: 1, queued: 1, sent: 1, delivered: 1, read: 0, failed: 0, skipped: 0, cancelled: 0 },
};

export const Campaign = named('Campaign', 'A campaign, its state and its progress.', Type.Object(CampaignObject.properties, { examples: [EXAMPLE_CAMPAIGN] }));

export const CampaignList = named('CampaignList', "The account's campaigns, oldest first.", Type.Array(CampaignObject, { examples: [[EXAMPLE_CAMPAIGN]] }));

export const CampaignRecipients = named(
  'CampaignRecipients',
  'Each recipient\'s outcome, by position; pass `next` as `after` for the following page (null at the end).',
  Type.Object(
    {
      recipients: Type.Array(
        Type.Object({
          position: Type.Integer(),
          phone: Type.String(),
          instanceId: Type.String(),
          outcome: Type.String({ description: 'pending, queued, sent, delivered, read, failed, skipped or cancelled' }),
          messageId: Type.Union([Type.String(), Type.Null()]),
          queuedAt: Type.Union([Type.Integer(), Type.Null()]),
          sentAt: Type.Union([Type.Integer(), Type.Null()]),
          error: Type.Union([Type.String(), Type.Null()]),
          errorCode: Type.Union([Type.String(), Type.Null()]),
        }),
      ),
      next: Type.Union([Type.Integer(), Type.Null()]),
    },
    { examples: [{ recipients: [{ position: 1, phone: EXAMPLE_PHONE, instanceId: CAMPAIGN_ID, outcome: 'delivered', messageId: '3EB0A7C2F5D1E8B94C6A', queuedAt: 1735689600000, sentAt: 1735689603000, error: null, errorCode: null }], next: null }] },
  ),
);

export const CampaignIdParams = Type.Object({ campaignId: Type.String({ minLength: 1, maxLength: 64, examples: [CAMPAIGN_ID] }) });
