// Tag "groups": asynchronous creation, settings, and metadata by id or invitation link.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { GroupsService } from '../../services/groups-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['groups'];
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const GroupSchema = Type.Object(
  {
    phone: Type.String({ description: '<digits>-group' }),
    owner: Type.String(),
    subject: Type.String(),
    description: Type.String(),
    creation: Type.Integer({ description: 'ms since the epoch' }),
    invitationLink: Nullable(Type.String()),
    contactsCount: Type.Integer(),
    participantsCount: Type.Integer(),
    participants: Type.Array(
      Type.Object({
        phone: Type.String({ description: 'The member\'s number, or `<digits>@lid` when WhatsApp hides it' }),
        lid: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'The member\'s LID (`<digits>@lid`) when known (docs/contract.md §5)' })),
        isAdmin: Type.Boolean(),
        isSuperAdmin: Type.Boolean(),
      }),
    ),
    adminOnlyMessage: Type.Boolean(),
    adminOnlySettings: Type.Boolean(),
    requireAdminApproval: Type.Boolean(),
    isGroupAnnouncement: Type.Boolean(),
    subjectTime: Type.Integer({ description: 'ms since the epoch' }),
    subjectOwner: Type.String(),
    communityId: Nullable(Type.String()),
  },
  {
    $id: 'Group',
    description: "A group's metadata as WhatsApp holds it (Z-API's fields); times in ms since the epoch.",
    examples: [
      {
        phone: '120363019502650977-group',
        owner: '5511999999999',
        subject: 'Sales team',
        description: 'Orders and deliveries',
        creation: 1764000000000,
        invitationLink: null,
        contactsCount: 0,
        participantsCount: 2,
        participants: [
          { phone: '5511999999999', lid: '81896604192873@lid', isAdmin: true, isSuperAdmin: true },
          { phone: '5511988888888', lid: '20443156720015@lid', isAdmin: false, isSuperAdmin: false },
        ],
        adminOnlyMessage: false,
        adminOnlySettings: false,
        requireAdminApproval: false,
        isGroupAnnouncement: false,
        subjectTime: 1764000000000,
        subjectOwner: '5511999999999',
        communityId: null,
      },
    ],
  },
);

const PENDING_ID = 'pending-0b6a5d7e-3f0c-4c1a-9d55-2f1e8c7a9b10';
const GroupCreation = named(
  'GroupCreation',
  'The creation is recorded durably: `groupId` is a pending id to poll (`GET …/groups/{pendingId}`); `phone`, `invitationLink` and `phonesNotAdded` come with it when the network made the group within ZAPGATE_CREATE_GROUP_WAIT_MS.',
  Type.Object(
    {
      groupId: Type.String({ description: '`pending-<uuid>`: the durable id of the request (GET /groups/{pendingId}).' }),
      inviteLink: Type.Null(),
      phone: Type.Optional(Type.String({ description: 'Z-API: the group\'s `<digits>-group` id, when the network made it within ZAPGATE_CREATE_GROUP_WAIT_MS (default 5 s).' })),
      invitationLink: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Z-API: the invitation link, with `phone`.' })),
      phonesNotAdded: Type.Optional(Type.Array(Type.String(), { description: 'With `phone`: numbers the network would not add.' })),
    },
    {
      examples: [
        { groupId: PENDING_ID, inviteLink: null, phone: '120363019502650977-group', invitationLink: 'https://chat.whatsapp.com/Fk3q9ZrX1bC2dE4fG5hI6j', phonesNotAdded: [] },
      ],
    },
  ),
);
const GroupCreationOutcome = named(
  'GroupCreationOutcome',
  'Where a group creation stands: `pending`, `created` (with the group id in `phone`, the invite link and the numbers that could not be added) or `failed` (with `error`).',
  Type.Object(
    {
      groupId: Type.String(),
      status: Type.Union([Type.Literal('pending'), Type.Literal('created'), Type.Literal('failed')]),
      phone: Nullable(Type.String()),
      inviteLink: Nullable(Type.String()),
      phonesNotAdded: Type.Array(Type.String()),
      error: Type.Optional(Type.String()),
    },
    {
      examples: [
        { groupId: PENDING_ID, status: 'created', phone: '120363019502650977-group', inviteLink: 'https://chat.whatsapp.com/Fk3q9ZrX1bC2dE4fG5hI6j', phonesNotAdded: [] },
      ],
    },
  ),
);

export function groupRoutes(groups: GroupsService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/create-group',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_create-group',
          summary: 'Create a group (asynchronous: answers a durable pending id)',
          description:
            'Answers the pending id, and Z-API\'s `phone`, `invitationLink` and `phonesNotAdded` when the network makes the group within ZAPGATE_CREATE_GROUP_WAIT_MS (default 5 s). Otherwise poll `GET /groups/{pendingId}` for the outcome; a ReceivedCallback with notification GROUP_CREATE carries both ids either way. With autoInvite, numbers that could not be added get the invite link privately.',
          body: Type.Object(
            {
              groupName: Type.String({ minLength: 1, maxLength: 100 }),
              phones: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: 1024 }),
              autoInvite: Type.Optional(Type.Boolean()),
            },
            { examples: [{ groupName: 'Sales team', phones: ['5511988888888'], autoInvite: true }] },
          ),
          response: {
            200: GroupCreation,
            ...errorResponses(409, 422, 504),
          },
        },
      },
      async (request) => {
        const b = request.body;
        return groups.create(instanceOf(request).id, { groupName: b.groupName, phones: b.phones, autoInvite: b.autoInvite ?? false });
      },
    );

    app.get(
      '/groups/:pendingId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'groups_pending',
          summary: 'Outcome of a group creation',
          description: 'Poll it with the pending id create-group answered. A creation cut short by a restart finishes afterwards without making a second group. 404 for an unknown id.',
          params: Type.Object({ pendingId: Type.String({ pattern: '^pending-[0-9a-f-]{36}$', examples: [PENDING_ID] }) }, { additionalProperties: true }),
          response: {
            200: GroupCreationOutcome,
            ...errorResponses(),
          },
        },
      },
      async (request) => groups.pending(instanceOf(request).id, request.params.pendingId),
    );

    app.post(
      '/update-group-settings',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_update-group-settings',
          summary: 'Change group settings (at least one)',
          description:
            '`adminOnlyMessage`: only admins send messages. `adminOnlySettings`: only admins edit the subject, picture and description. `requireAdminApproval`: admins approve who joins by link. `adminOnlyAddMember`: only admins add participants. The instance must be an admin of the group (422 otherwise).',
          body: Type.Object({
            phone: Type.String({ minLength: 1, maxLength: 64, description: '<digits>-group or a created pending id' }),
            adminOnlyMessage: Type.Optional(Type.Boolean()),
            adminOnlySettings: Type.Optional(Type.Boolean()),
            requireAdminApproval: Type.Optional(Type.Boolean()),
            adminOnlyAddMember: Type.Optional(Type.Boolean()),
          }, { examples: [{ phone: '120363019502650977-group', adminOnlyMessage: true }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        const { phone, adminOnlyMessage, adminOnlySettings, requireAdminApproval, adminOnlyAddMember } = request.body;
        await groups.updateSettings(instanceOf(request).id, phone, { adminOnlyMessage, adminOnlySettings, requireAdminApproval, adminOnlyAddMember });
        return { value: true };
      },
    );

    app.get(
      '/group-invitation-metadata',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'groups_group-invitation-metadata',
          summary: 'Group metadata from an invitation link',
          description: 'Reads a group by its invitation link (`https://chat.whatsapp.com/<code>`) without joining it. 422 when the link is invalid or revoked.',
          querystring: Type.Object({ url: Type.String({ minLength: 1, maxLength: 200, examples: ['https://chat.whatsapp.com/Fk3q9ZrX1bC2dE4fG5hI6j'] }) }),
          response: { 200: Type.Ref('Group'), ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => groups.invitationMetadata(instanceOf(request).id, request.query.url),
    );

    app.get(
      '/group-metadata/:groupId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'groups_group-metadata',
          summary: 'Metadata of a group the instance is in',
          description: 'Subject, description, participants and admins, settings, invitation link. `groupId` is `<digits>-group` (the `phone` of a group in webhooks).',
          params: Type.Object({ groupId: Type.String({ minLength: 1, maxLength: 64, examples: ['120363019502650977-group'] }) }, { additionalProperties: true }),
          response: { 200: Type.Ref('Group'), ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => groups.metadata(instanceOf(request).id, request.params.groupId),
    );
  };
}
