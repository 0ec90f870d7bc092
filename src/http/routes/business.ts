// Tag "business", the profile and labels part of Z-API's business page: the business profile (read
// anyone's, change the account's own description, address, email, websites, categories and hours),
// the category directory, tags (WhatsApp's labels) with the chats they are on, and chat notes.
// These need an instance paired with a WhatsApp Business account (403 otherwise), except reading
// another business's profile and the colour table.
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_CATEGORIES, MAX_COLOR, MAX_NOTE, MAX_TAG_NAME, MAX_WEBSITES, TAG_COLORS, type BusinessService } from '../../services/business-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['business'];
const NOT_BUSINESS = ' Only on a WhatsApp Business account (403 `WhatsApp Business account required` on a personal one).';

const Success = named('BusinessSuccess', 'The change is made on the network (the business profile others see).', Type.Object({ success: Type.Boolean() }, { examples: [{ success: true }] }));
const TagSuccess = named('TagSuccess', 'The change is made on the account; the phone and other linked devices sync it.', Type.Object({ success: Type.Boolean() }, { examples: [{ success: true }] }));

const NoteSuccess = named('ChatNoteSuccess', 'The note is set on the account (its phone shows it).', Type.Object({ success: Type.Boolean() }, { examples: [{ success: true }] }));

const Category = Type.Object({
  displayName: Type.String({ description: 'The name people see.' }),
  label: Type.String({ description: 'Stable machine name.' }),
  id: Type.String({ description: "The network's category id." }),
});
const CATEGORY_EXAMPLE = { displayName: 'Other business', label: 'OTHER_COMPANIES', id: '629412378414563' };
const Days = Type.Union([
  Type.Literal('SUNDAY'),
  Type.Literal('MONDAY'),
  Type.Literal('TUESDAY'),
  Type.Literal('WEDNESDAY'),
  Type.Literal('THURSDAY'),
  Type.Literal('FRIDAY'),
  Type.Literal('SATURDAY'),
]);
const Mode = Type.Union([Type.Literal('specificHours'), Type.Literal('open24h'), Type.Literal('appointmentOnly')], { description: 'specificHours (default): open from openTime to closeTime on the days listed; open24h / appointmentOnly: on the days listed (every day when none).' });
const Day = Type.Object({
  dayOfWeek: Days,
  openTime: Type.Optional(Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM (specificHours).' })),
  closeTime: Type.Optional(Type.String({ pattern: '^\\d{2}:\\d{2}$', description: 'HH:MM, after openTime (specificHours).' })),
});
const HOURS_EXAMPLE = { timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'MONDAY', openTime: '08:00', closeTime: '18:00' }], mode: 'specificHours' };

const Profile = named(
  'BusinessProfile',
  "A WhatsApp Business account's public profile, as the network answers it.",
  Type.Object(
    {
      description: Type.String(),
      address: Type.String(),
      email: Type.String(),
      websites: Type.Array(Type.String()),
      categories: Type.Array(Category),
      businessHours: Type.Union([Type.Object({ timezone: Type.String(), days: Type.Array(Day), mode: Mode }), Type.Null()], { description: 'null when the business set no hours.' }),
      hasCoverPhoto: Type.Boolean(),
    },
    {
      examples: [
        {
          description: 'Fresh bread every morning',
          address: 'Rua das Flores 100, São Paulo',
          email: 'contact@example.com',
          websites: ['https://example.com'],
          categories: [CATEGORY_EXAMPLE],
          businessHours: HOURS_EXAMPLE,
          hasCoverPhoto: false,
        },
      ],
    },
  ),
);
const Categories = named('BusinessCategories', 'Categories a business may choose (POST /business/categories takes their id or label).', Type.Array(Category, { examples: [[CATEGORY_EXAMPLE]] }));
const Tag = Type.Object({ id: Type.String({ description: "WhatsApp's label id." }), name: Type.String(), color: Type.Integer({ description: 'Colour index (GET /business/tags/colors).' }) });
const TagList = named(
  'TagList',
  "The account's tags (WhatsApp's labels), as the phone last synced them, by id.",
  Type.Array(Tag, { examples: [[{ id: '1', name: 'New customer', color: 1 }, { id: '2', name: 'New order', color: 2 }]] }),
);
const TagCreated = named('TagCreated', 'The new tag\'s id.', Type.Object({ id: Type.String() }, { examples: [{ id: '10' }] }));
const TagColors = named(
  'TagColors',
  "WhatsApp's tag colours: index → hex colour (they look slightly different on Android and iPhone).",
  Type.Record(Type.String({ pattern: '^\\d+$' }), Type.String(), { examples: [{ 0: '#FF9485', 1: '#64C4FF', 2: '#FFD429' }] }),
);

const Value = (description: string, example: string) =>
  Type.Object({ value: Type.String({ maxLength: 512, description }) }, { examples: [{ value: example }] });
const TagBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: MAX_TAG_NAME, description: 'The tag\'s name.' }),
    color: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_COLOR, description: 'Colour index from GET /business/tags/colors (default 0 on create; kept on edit).' })),
  },
  { examples: [{ name: 'Pending payment', color: 1 }] },
);
const TagId = Type.String({ pattern: '^\\d{1,15}$', description: 'The tag id (GET /tags).', examples: ['1'] });
const ChatTagParams = Type.Object(
  {
    phone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat: a number with country code, or `<digits>-group`.', examples: ['5544999999999'] }),
    tag: TagId,
  },
  { additionalProperties: true, examples: [{ phone: '5544999999999', tag: '1' }] },
);

function profileChange(app: Parameters<FastifyPluginAsyncTypebox>[0], path: string, summary: string, example: string, set: (instanceId: string, value: string) => Promise<void>): void {
  app.post(
    path,
    {
      schema: {
        tags,
        'x-zapgate-scope': 'manage',
        operationId: `business_${path.split('/').pop()}`,
        summary,
        description: `Sets it on the business profile every WhatsApp user sees; an empty \`value\` removes it. Answers 201, as Z-API does.${NOT_BUSINESS}`,
        body: Value('The new text; empty to remove it.', example),
        response: { 201: Success, ...errorResponses(403, 409, 422, 504) },
      },
    },
    async (request, reply) => {
      await set(instanceOf(request).id, request.body.value);
      return reply.code(201).send({ success: true });
    },
  );
}

function businessRoutes(business: BusinessService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/business/profile',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'business_profile',
          summary: 'A business profile',
          description: `\`phone\`'s business profile, asked of the network: any account may read a business's profile (404 when the number is no business). Without \`phone\`, the account's own.${NOT_BUSINESS.replace('Only', 'The own profile only')}`,
          querystring: Type.Object(
            { phone: Type.Optional(Type.String({ maxLength: 64, description: 'The business\'s number with country code (default: this account).', examples: ['5544999999999'] })) },
            { examples: [{ phone: '5544999999999' }] },
          ),
          response: { 200: Profile, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.profile(instanceOf(request).id, request.query.phone),
    );

    profileChange(app, '/business/company-description', 'Set the company description', 'Fresh bread every morning', (id, v) => business.setDescription(id, v));
    profileChange(app, '/business/company-address', 'Set the company address', 'Rua das Flores 100, São Paulo', (id, v) => business.setAddress(id, v));
    profileChange(app, '/business/company-email', 'Set the company email', 'contact@example.com', (id, v) => business.setEmail(id, v));

    app.post(
      '/business/company-websites',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_company-websites',
          summary: 'Set the company websites',
          description: `Replaces the websites (at most ${MAX_WEBSITES}, http or https); an empty list removes them. Answers 201.${NOT_BUSINESS}`,
          body: Type.Object(
            { websites: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: MAX_WEBSITES, description: 'Website URLs; [] removes them.' }) },
            { examples: [{ websites: ['https://example.com', 'https://example2.org'] }] },
          ),
          response: { 201: Success, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request, reply) => {
        await business.setWebsites(instanceOf(request).id, request.body.websites);
        return reply.code(201).send({ success: true });
      },
    );

    app.post(
      '/business/categories',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_categories',
          summary: 'Set the company categories',
          description: `1 to ${MAX_CATEGORIES} categories, each by id or label from GET /business/available-categories (400 names one that is neither). Answers 201.${NOT_BUSINESS}`,
          body: Type.Object(
            { categories: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_CATEGORIES, description: 'Category ids or labels.' }) },
            { examples: [{ categories: ['RESTAURANT', '629412378414563'] }] },
          ),
          response: { 201: Success, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request, reply) => {
        await business.setCategories(instanceOf(request).id, request.body.categories);
        return reply.code(201).send({ success: true });
      },
    );

    app.get(
      '/business/available-categories',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'business_available-categories',
          summary: 'The categories a business may choose',
          description: `Asked of the network; \`query\` keeps those whose label or name contains it.${NOT_BUSINESS}`,
          querystring: Type.Object({ query: Type.Optional(Type.String({ maxLength: 100, description: 'Search text.', examples: ['rest'] })) }, { examples: [{ query: 'rest' }] }),
          response: { 200: Categories, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.availableCategories(instanceOf(request).id, request.query.query),
    );

    app.post(
      '/business/hours',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_hours',
          summary: 'Set the business hours',
          description: `Replaces the hours: \`timezone\` (IANA), \`mode\` and the \`days\` it applies to; days not listed are closed. Answers 201.${NOT_BUSINESS}`,
          body: Type.Object(
            { timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone.' }), mode: Type.Optional(Mode), days: Type.Optional(Type.Array(Day, { maxItems: 7 })) },
            { examples: [{ timezone: 'America/Sao_Paulo', days: [{ dayOfWeek: 'MONDAY', openTime: '08:00', closeTime: '12:00' }], mode: 'specificHours' }] },
          ),
          response: { 201: Success, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request, reply) => {
        await business.setHours(instanceOf(request).id, request.body);
        return reply.code(201).send({ success: true });
      },
    );

    app.get(
      '/tags',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'business_tags',
          summary: 'The account\'s tags',
          description: `WhatsApp's labels, kept up to date from the account's app-state sync (tags made on the phone are listed too).${NOT_BUSINESS}`,
          response: { 200: TagList, ...errorResponses(403, 409) },
        },
      },
      async (request) => business.tags(instanceOf(request).id),
    );

    app.post(
      '/business/create-tag',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_create-tag',
          summary: 'Create a tag',
          description: `A new label on the account (the phone shows it); answers its id.${NOT_BUSINESS}`,
          body: TagBody,
          response: { 200: TagCreated, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.createTag(instanceOf(request).id, request.body.name, request.body.color),
    );

    app.post(
      '/business/edit-tag/:tagId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_edit-tag',
          summary: 'Rename a tag or change its colour',
          description: `404 for an unknown tag.${NOT_BUSINESS}`,
          params: Type.Object({ tagId: TagId }, { additionalProperties: true, examples: [{ tagId: '1' }] }),
          body: TagBody,
          response: { 200: TagSuccess, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.editTag(instanceOf(request).id, request.params.tagId, request.body.name, request.body.color),
    );

    app.delete(
      '/business/tag/:tagId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'business_delete-tag',
          summary: 'Delete a tag',
          description: `The label is deleted on the account and taken off every chat. 404 for an unknown tag.${NOT_BUSINESS}`,
          params: Type.Object({ tagId: TagId }, { additionalProperties: true, examples: [{ tagId: '1' }] }),
          response: { 200: TagSuccess, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.deleteTag(instanceOf(request).id, request.params.tagId),
    );

    app.get(
      '/business/tags/colors',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'business_tags-colors',
          summary: 'Tag colours',
          description: 'The colour each index stands for (a fixed table; no network call).',
          response: { 200: TagColors, ...errorResponses() },
        },
      },
      async () => TAG_COLORS,
    );

    for (const [action, labeled] of [['add', true], ['remove', false]] as const) {
      app.put(
        `/chats/:phone/tags/:tag/${action}`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'send',
            operationId: `business_tags-${action}`,
            summary: labeled ? 'Put a tag on a chat' : 'Take a tag off a chat',
            description: `The phone and other linked devices sync it; a CHAT_LABEL_ASSOCIATION notification goes to the received webhook. 404 for an unknown tag.${NOT_BUSINESS}`,
            params: ChatTagParams,
            response: { 200: ValueTrue, ...errorResponses(403, 409, 422, 504) },
          },
        },
        async (request) => business.tagChat(instanceOf(request).id, request.params.phone, request.params.tag, labeled),
      );
    }

    app.post(
      '/chats/:phone/notes',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'send',
          operationId: 'business_chats-notes',
          summary: 'Set the note on a chat',
          description: `The business's own note on the chat (the customer never sees it); a second call replaces it. The phone and other linked devices sync it.${NOT_BUSINESS}`,
          params: Type.Object(
            { phone: Type.String({ minLength: 1, maxLength: 64, description: 'The chat: a number with country code, or `<digits>-group`.', examples: ['5544999999999'] }) },
            { additionalProperties: true, examples: [{ phone: '5544999999999' }] },
          ),
          body: Type.Object({ notes: Type.String({ minLength: 1, maxLength: MAX_NOTE, description: 'The note text.' }) }, { examples: [{ notes: 'Prefers delivery after 6 pm' }] }),
          response: { 200: NoteSuccess, ...errorResponses(403, 409, 422, 504) },
        },
      },
      async (request) => business.setNote(instanceOf(request).id, request.params.phone, request.body.notes),
    );
  };
}

/** The routes as one instance-scoped plugin (listed in routes/index.ts). */
export function businessRouteTree(business: BusinessService) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(businessRoutes(business));
  };
}
