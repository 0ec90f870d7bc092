// Tag "contacts", what the account sees of a contact and does to one: the profile picture, and
// blocking. (Number checks are in contacts.ts.)
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccountService } from '../../services/account-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['contacts'];

const ProfilePictureLink = named(
  'ProfilePictureLink',
  "The contact's picture URL (WhatsApp's link, valid for a limited time), or null.",
  Type.Object({ link: Type.Union([Type.String(), Type.Null()]) }, { examples: [{ link: 'https://pps.whatsapp.net/v/t61.24694-24/123_456_n.jpg?oh=…&oe=…' }] }),
);

export function contactProfileRoutes(account: AccountService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/profile-picture',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'contacts_profile-picture',
          summary: 'A contact\'s current profile picture URL',
          description: '`link` is null when the contact has no picture or hides it from you. WhatsApp\'s links expire: ask again rather than storing one.',
          querystring: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64, examples: ['5511999999999'] }) }, { examples: [{ phone: '5511999999999' }] }),
          response: { 200: ProfilePictureLink, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => account.contactPicture(instanceOf(request).id, request.query.phone),
    );

    app.post(
      '/send-chat-expiration',
      {
        schema: {
          tags: ['chats'],
          'x-zapgate-scope': 'send',
          operationId: 'chats_send-chat-expiration',
          summary: "Set a chat's disappearing messages",
          description: 'In a 1:1 chat, for both sides (the contact is told); in a group, the group setting (admins only: others get 422). `chatExpiration`: `24_HOURS`, `7_DAYS`, `90_DAYS` or `OFF`.',
          body: Type.Object(
            {
              phone: Type.String({ minLength: 1, maxLength: 64, description: 'A phone with country code, `<digits>-group` or `<digits>@lid`.' }),
              chatExpiration: Type.Union([Type.Literal('24_HOURS'), Type.Literal('7_DAYS'), Type.Literal('90_DAYS'), Type.Literal('OFF')]),
            },
            { examples: [{ phone: '554497050785', chatExpiration: '90_DAYS' }] },
          ),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await account.setChatExpiration(instanceOf(request).id, request.body.phone, request.body.chatExpiration);
        return { value: true };
      },
    );

    app.post(
      '/contacts/modify-blocked',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'contacts_modify-blocked',
          summary: 'Block or unblock a contact',
          description: 'A blocked contact\'s messages and calls no longer reach the instance; unblocking lets new ones through.',
          body: Type.Object(
            { phone: Type.String({ minLength: 1, maxLength: 64 }), action: Type.Union([Type.Literal('block'), Type.Literal('unblock')]) },
            { examples: [{ phone: '5544999999999', action: 'block' }] },
          ),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await account.modifyBlocked(instanceOf(request).id, request.body.phone, request.body.action);
        return { value: true };
      },
    );
  };
}
