// Tag "newsletters": Z-API's channel pages — create, delete, metadata, the account's channels,
// search, follow/unfollow, mute/unmute, name/description/picture, settings, admin invites (send,
// accept, revoke), removing an admin and transferring ownership. Channel ids are `<digits>@newsletter`;
// posting to a channel is the ordinary send endpoints with that id as `phone`.
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DIRECTORY_VIEWS, MAX_DESCRIPTION, MAX_NAME, MAX_SEARCH_LIMIT, type NewsletterService } from '../../services/newsletter-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, SendResult, ValueTrue } from '../schemas/common.js';
import { EXAMPLE_IMAGE } from '../schemas/examples.js';

const tags = ['newsletters'];
const CHANNEL = '120363166555745933@newsletter';
const ChannelId = Type.String({ minLength: 1, maxLength: 64, description: 'Channel id `<digits>@newsletter`.', examples: [CHANNEL] });
const ChannelParams = Type.Object({ newsletterId: ChannelId }, { additionalProperties: true, examples: [{ newsletterId: CHANNEL }] });
const IdBody = Type.Object({ id: ChannelId }, { examples: [{ id: CHANNEL }] });
const PhoneBody = Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32, description: 'Number with country code.' }) }, { examples: [{ phone: '5511999999999' }] });

const CHANNEL_EXAMPLE = {
  id: CHANNEL,
  creationTime: 1695124988,
  state: 'ACTIVE',
  name: 'Channel name',
  description: 'Description',
  subscribersCount: '150',
  inviteLink: 'https://whatsapp.com/channel/0029Va4K0PZ5a245NkngBA2M',
  verification: 'UNVERIFIED',
  picture: 'https://mmg.whatsapp.net/v/t61.24694-24/123.jpg',
  preview: 'https://mmg.whatsapp.net/v/t61.24694-24/123.jpg',
  viewMetadata: { mute: 'OFF', role: 'OWNER' },
};

const ChannelFields = Type.Object({
  id: Type.String({ description: '`<digits>@newsletter`' }),
  creationTime: Type.Integer({ description: 'Seconds since the epoch.' }),
  state: Type.Union([Type.Literal('ACTIVE'), Type.Literal('NON_EXISTING')]),
  name: Type.String(),
  description: Type.String(),
  subscribersCount: Type.String({ description: 'Followers, as a string (as Z-API sends it).' }),
  inviteLink: Type.String(),
  verification: Type.Union([Type.Literal('VERIFIED'), Type.Literal('UNVERIFIED')]),
  picture: Type.Union([Type.String(), Type.Null()], { description: 'URL of the picture; null when none.' }),
  preview: Type.Union([Type.String(), Type.Null()], { description: 'URL of the preview; null when none.' }),
  viewMetadata: Type.Object({
    mute: Type.Union([Type.Literal('ON'), Type.Literal('OFF')]),
    role: Type.Union([Type.Literal('OWNER'), Type.Literal('ADMIN'), Type.Literal('SUBSCRIBER'), Type.Literal('GUEST')], { description: 'The instance\'s role; GUEST when it does not follow.' }),
  }),
});
const Channel = named('Newsletter', 'A channel as the network describes it to this instance.', Type.Composite([ChannelFields], { examples: [CHANNEL_EXAMPLE] }));
const ChannelList = named('NewsletterList', 'Channels as the network describes them to this instance.', Type.Array(ChannelFields, { examples: [[CHANNEL_EXAMPLE]] }));
const Created = named('NewsletterCreated', 'The new channel\'s id.', Type.Object({ id: Type.String() }, { examples: [{ id: CHANNEL }] }));

function newsletterRoutes(channels: NewsletterService, mediaBodyLimit: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/create-newsletter',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_create-newsletter',
          summary: 'Create a channel',
          description: 'The instance owns the new channel. A picture cannot be set at creation: use update-newsletter-picture afterwards. Answers 201 with the id.',
          body: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: MAX_NAME }), description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION })) },
            { examples: [{ name: 'Channel name', description: 'Channel description' }] },
          ),
          response: { 201: Created, ...errorResponses(409, 422, 504) },
        },
      },
      async (request, reply) => reply.code(201).send(await channels.create(instanceOf(request).id, request.body.name, request.body.description)),
    );

    app.delete(
      '/delete-newsletter',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_delete-newsletter',
          summary: 'Delete a channel',
          description: 'Owner only (422 otherwise). The channel stops existing for its followers.',
          body: IdBody,
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await channels.delete(instanceOf(request).id, request.body.id);
        return { value: true };
      },
    );

    app.get(
      '/newsletter/metadata/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'newsletters_newsletter-metadata',
          summary: 'A channel\'s metadata',
          description: 'Asked of the network, with the instance\'s view of it (mute and role). An unknown or deleted channel is 404.',
          params: ChannelParams,
          response: { 200: Channel, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => channels.metadata(instanceOf(request).id, request.params.newsletterId),
    );

    app.get(
      '/newsletter',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'newsletters_newsletter',
          summary: 'The channels the instance owns, runs or follows',
          description: 'Asked of the network.',
          response: { 200: ChannelList, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => channels.list(instanceOf(request).id),
    );

    app.post(
      '/search-newsletter',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'newsletters_search-newsletter',
          summary: 'Search the channel directory',
          description: `With \`searchText\`, channels whose name or description has it; without, the directory's \`view\` (default RECOMMENDED). \`filters.countryCodes\` keeps channels of those countries. At most ${MAX_SEARCH_LIMIT} rows.`,
          body: Type.Object(
            {
              limit: Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT }),
              filters: Type.Object({ countryCodes: Type.Optional(Type.Array(Type.String({ minLength: 2, maxLength: 2 }), { maxItems: 50, description: 'ISO country codes.' })) }),
              view: Type.Optional(Type.String({ description: DIRECTORY_VIEWS.join(', ') })),
              searchText: Type.Optional(Type.String({ maxLength: 100 })),
            },
            { examples: [{ limit: 50, view: 'TRENDING', filters: { countryCodes: ['BR', 'AF', 'CA'] }, searchText: 'Z-API' }] },
          ),
          response: { 200: ChannelList, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => channels.search(instanceOf(request).id, request.body),
    );

    const toggle = (path: string, summary: string, description: string, run: (instanceId: string, id: string) => Promise<void>) =>
      app.put(
        path,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `newsletters_${path.slice(1)}`,
            summary,
            description,
            body: IdBody,
            response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
          },
        },
        async (request) => {
          await run(instanceOf(request).id, request.body.id);
          return { value: true };
        },
      );
    toggle('/follow-newsletter', 'Follow a channel', 'The instance becomes a follower: the channel\'s posts arrive as ReceivedCallback with `isNewsletter: true`.', (i, id) => channels.follow(i, id, true));
    toggle('/unfollow-newsletter', 'Unfollow a channel', 'The channel\'s posts stop arriving. The owner cannot unfollow its channel (422).', (i, id) => channels.follow(i, id, false));
    toggle('/mute-newsletter', 'Mute a channel', 'Its posts arrive without notifying on the phone.', (i, id) => channels.mute(i, id, true));
    toggle('/unmute-newsletter', 'Unmute a channel', 'Undoes mute-newsletter.', (i, id) => channels.mute(i, id, false));

    const update = (path: string, summary: string, field: 'name' | 'description', max: number, example: string, run: (instanceId: string, id: string, value: string) => Promise<void>) =>
      app.post(
        path,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `newsletters_${path.slice(1)}`,
            summary,
            description: 'Owner or admins only (422 otherwise). Answers 201.',
            body: Type.Object({ id: ChannelId, [field]: Type.String({ minLength: field === 'name' ? 1 : 0, maxLength: max }) }, { examples: [{ id: CHANNEL, [field]: example }] }),
            response: { 201: ValueTrue, ...errorResponses(409, 422, 504) },
          },
        },
        async (request, reply) => {
          const body = request.body as { id: string } & Record<string, string>;
          await run(instanceOf(request).id, body.id, body[field] ?? '');
          return reply.code(201).send({ value: true });
        },
      );
    update('/update-newsletter-name', 'Rename a channel', 'name', MAX_NAME, 'New channel name', (i, id, v) => channels.setName(i, id, v));
    update('/update-newsletter-description', 'Change a channel\'s description', 'description', MAX_DESCRIPTION, 'New channel description', (i, id, v) => channels.setDescription(i, id, v));

    app.post(
      '/update-newsletter-picture',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_update-newsletter-picture',
          summary: 'Change a channel\'s picture',
          description: 'An https URL or a data URI of an image (checked like every outgoing image: real type, size and pixel limits; a URL passes the address guard). Owner or admins only. Answers 201.',
          body: Type.Object({ id: ChannelId, pictureUrl: Type.String({ minLength: 1, description: 'Image URL or data URI.' }) }, { examples: [{ id: CHANNEL, pictureUrl: EXAMPLE_IMAGE }] }),
          response: { 201: ValueTrue, ...errorResponses(409, 413, 422, 504) },
        },
      },
      async (request, reply) => {
        await channels.setPicture(instanceOf(request).id, request.body.id, request.body.pictureUrl);
        return reply.code(201).send({ value: true });
      },
    );

    app.post(
      '/newsletter/settings/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_newsletter-settings',
          summary: 'Change a channel\'s settings',
          description: 'Which reactions followers may use: `basic` (a few standard ones) or `all`. Owner or admins only. Answers 201.',
          params: ChannelParams,
          body: Type.Object({ reactionCodes: Type.String({ description: '`basic` or `all`.' }) }, { examples: [{ reactionCodes: 'basic' }] }),
          response: { 201: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request, reply) => {
        await channels.settings(instanceOf(request).id, request.params.newsletterId, request.body.reactionCodes);
        return reply.code(201).send({ value: true });
      },
    );

    app.post(
      '/newsletter/accept-admin-invite/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_accept-admin-invite',
          summary: 'Accept an invite to be a channel admin',
          description: 'The instance must have a pending invite from the channel\'s owner (422 otherwise); it becomes an admin. Answers 201.',
          params: ChannelParams,
          response: { 201: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request, reply) => {
        await channels.acceptAdminInvite(instanceOf(request).id, request.params.newsletterId);
        return reply.code(201).send({ value: true });
      },
    );

    app.post(
      '/newsletter/revoke-admin-invite/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_revoke-admin-invite',
          summary: 'Revoke an admin invite',
          description: 'Owner only. The invite sent to `phone` no longer works; 422 when there is none. Answers 201.',
          params: ChannelParams,
          body: PhoneBody,
          response: { 201: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request, reply) => {
        await channels.revokeAdminInvite(instanceOf(request).id, request.params.newsletterId, request.body.phone);
        return reply.code(201).send({ value: true });
      },
    );

    app.post(
      '/newsletter/remove-admin/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_remove-admin',
          summary: 'Remove a channel admin',
          description: 'Owner only; `phone` goes back to being a follower (and hears NEWSLETTER_ADMIN_DEMOTE). An admin may remove itself with its own number. Answers 201.',
          params: ChannelParams,
          body: PhoneBody,
          response: { 201: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request, reply) => {
        await channels.removeAdmin(instanceOf(request).id, request.params.newsletterId, request.body.phone);
        return reply.code(201).send({ value: true });
      },
    );

    app.post(
      '/newsletter/transfer-ownership/:newsletterId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_transfer-ownership',
          summary: 'Transfer a channel\'s ownership',
          description: 'Owner only; `phone` must already be an admin of the channel. The instance stays an admin unless `quitAdmin: true`.',
          params: ChannelParams,
          body: Type.Object(
            { phone: Type.String({ minLength: 1, maxLength: 32, description: 'The new owner\'s number.' }), quitAdmin: Type.Optional(Type.Boolean({ description: 'Stop being an admin after the transfer.' })) },
            { examples: [{ phone: '5511999999999', quitAdmin: true }] },
          ),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await channels.transferOwnership(instanceOf(request).id, request.params.newsletterId, request.body.phone, request.body.quitAdmin ?? false);
        return { value: true };
      },
    );

    app.post(
      '/send-newsletter-admin-invite',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'newsletters_send-newsletter-admin-invite',
          summary: 'Invite someone to be a channel admin',
          description: 'Owner only. The invite is made on the network at once (422 when refused), then the invitation message is queued for `phone` like any other message; the person accepts it from their phone (or accept-admin-invite).',
          body: Type.Object(
            {
              phone: Type.String({ minLength: 1, maxLength: 32, description: 'Number with country code.' }),
              adminInviteMessage: Type.Object({ newsletterId: ChannelId, caption: Type.String({ minLength: 1, maxLength: 1024 }) }),
            },
            { examples: [{ phone: '5511999999999', adminInviteMessage: { newsletterId: CHANNEL, caption: 'I want to invite you to be an admin of my WhatsApp channel.' } }] },
          ),
          response: { 200: SendResult, ...errorResponses(409, 422, 429, 504) },
        },
      },
      async (request) => channels.sendAdminInvite(instanceOf(request), request.body.phone, request.body.adminInviteMessage),
    );
  };
}

/** The routes as one instance-scoped plugin (listed in routes/index.ts). */
export function newsletterRouteTree(channels: NewsletterService, mediaBodyLimit: number) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(newsletterRoutes(channels, mediaBodyLimit));
  };
}
