// Tag "privacy": who sees last seen, photo, about and online; who may add the account to groups;
// read receipts; the default disappearing timer; the "all contacts except…" lists.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { PrivacyService, VisibilitySetting } from '../../services/privacy-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const tags = ['privacy'];
const Success = named('PrivacySuccess', 'The setting changed on the account (the phone shows it too).', Type.Object({ success: Type.Boolean() }, { examples: [{ success: true }] }));
const DisallowedContacts = named(
  'DisallowedContacts',
  'The numbers on this setting\'s "all contacts except…" list, with country code.',
  Type.Object({ disallowedContacts: Type.Array(Type.String()) }, { examples: [{ disallowedContacts: ['5511988888888'] }] }),
);

const BlacklistChanges = Type.Array(
  Type.Object({ action: Type.Union([Type.Literal('add'), Type.Literal('remove')]), phone: Type.String({ minLength: 1, maxLength: 64 }) }),
  {
    maxItems: 1000,
    description: 'Changes to this setting\'s own "all contacts except…" list (only with CONTACT_BLACKLIST; each setting has its own list). Send only what changes.',
  },
);

const FourTypes = Type.Union([Type.Literal('ALL'), Type.Literal('NONE'), Type.Literal('CONTACTS'), Type.Literal('CONTACT_BLACKLIST')]);

export function privacyRoutes(privacy: PrivacyService): FastifyPluginAsyncTypebox {
  return async (app) => {
    const visibility = (setting: Exclude<VisibilitySetting, 'group-add' | 'online'>, summary: string, path: string = setting, note = '') =>
      app.post(
        `/privacy/${path}`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `privacy_${path}`,
            summary,
            description: `\`ALL\` everyone, \`NONE\` no one, \`CONTACTS\` contacts only, \`CONTACT_BLACKLIST\` contacts except those on this setting's list.${note}`,
            body: Type.Object(
              { visualizationType: FourTypes, contactsBlacklist: Type.Optional(BlacklistChanges) },
              { examples: [{ visualizationType: 'CONTACT_BLACKLIST', contactsBlacklist: [{ action: 'add', phone: '554411111111' }] }] },
            ),
            response: { 200: Success, ...errorResponses(409, 422, 504) },
          },
        },
        async (request) => {
          await privacy.setVisibility(instanceOf(request).id, setting, request.body.visualizationType, request.body.contactsBlacklist);
          return { success: true };
        },
      );
    visibility('last-seen', 'Who can see your last seen');
    visibility('photo-visualization', 'Who can see your profile photo');
    // Some Z-API SDKs call the photo setting by this shorter path (docs/contract.md §4).
    visibility('photo-visualization', 'Who can see your profile photo (alias of photo-visualization)', 'photo', ' The same setting as `privacy/photo-visualization`, under the shorter path some Z-API SDKs call.');
    visibility('description', 'Who can see your profile description');

    app.post(
      '/privacy/group-add',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'privacy_group-add',
          summary: 'Who can add you to groups',
          description: '`ALL`, `CONTACTS`, or `CONTACT_BLACKLIST` (contacts except those on the group-add list). Someone not allowed must send an invite instead.',
          body: Type.Object(
            {
              type: Type.Union([Type.Literal('ALL'), Type.Literal('CONTACTS'), Type.Literal('CONTACT_BLACKLIST')]),
              contactsBlacklist: Type.Optional(BlacklistChanges),
            },
            { examples: [{ type: 'CONTACTS' }] },
          ),
          response: { 200: Success, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await privacy.setVisibility(instanceOf(request).id, 'group-add', request.body.type, request.body.contactsBlacklist);
        return { success: true };
      },
    );

    app.post(
      '/privacy/online',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'privacy_online',
          summary: 'Who can see when you are online',
          description: '`ALL` everyone, or `SAME_LAST_SEEN` the same people as last seen.',
          body: Type.Object({ visualizationType: Type.Union([Type.Literal('ALL'), Type.Literal('SAME_LAST_SEEN')]) }, { examples: [{ visualizationType: 'SAME_LAST_SEEN' }] }),
          response: { 200: Success, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await privacy.setVisibility(instanceOf(request).id, 'online', request.body.visualizationType);
        return { success: true };
      },
    );

    app.post(
      '/privacy/read-receipts',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'privacy_read-receipts',
          summary: 'Send read receipts or not (not for groups)',
          description: 'Query `value`: `enable` or `disable`. Disabled, you no longer see whether your own messages were read either.',
          querystring: Type.Object({ value: Type.Union([Type.Literal('enable'), Type.Literal('disable')], { examples: ['disable'] }) }, { examples: [{ value: 'disable' }] }),
          response: { 200: Success, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await privacy.setReadReceipts(instanceOf(request).id, request.query.value);
        return { success: true };
      },
    );

    app.post(
      '/privacy/messages-duration',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'privacy_messages-duration',
          summary: 'Default disappearing-messages timer for new chats',
          description: 'Query `value`: `days90`, `days7`, `hours24` or `disable`. Applies to new 1:1 chats only.',
          querystring: Type.Object(
            { value: Type.Union([Type.Literal('days90'), Type.Literal('days7'), Type.Literal('hours24'), Type.Literal('disable')], { examples: ['days7'] }) },
            { examples: [{ value: 'days7' }] },
          ),
          response: { 200: Success, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await privacy.setMessagesDuration(instanceOf(request).id, request.query.value);
        return { success: true };
      },
    );

    app.get(
      '/privacy/disallowed-contacts',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'privacy_disallowed-contacts',
          summary: 'The "all contacts except…" list of one setting',
          description: 'Query `type`: `lastSeen`, `photo`, `description` or `groupAdd`. Phones with country code.',
          querystring: Type.Object(
            { type: Type.Union([Type.Literal('lastSeen'), Type.Literal('photo'), Type.Literal('description'), Type.Literal('groupAdd')], { examples: ['lastSeen'] }) },
            { examples: [{ type: 'lastSeen' }] },
          ),
          response: { 200: DisallowedContacts, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => privacy.disallowedContacts(instanceOf(request).id, request.query.type),
    );
  };
}
