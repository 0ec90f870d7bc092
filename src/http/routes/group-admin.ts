// Tag "groups", the rest of Z-API's group page: the groups the account is in, light metadata, the
// invitation link (get, redefine, accept), leaving, subject/description/photo, participants, admins
// and join requests. Ids are `<digits>-group` (or a finished create-group pending id).
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_PHONES_PER_CHANGE, type GroupAdminService } from '../../services/group-admin-service.js';
import type { JoinRequestAction, ParticipantAction } from '../../domain/groups.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';
import { EXAMPLE_IMAGE } from '../schemas/examples.js';
import type { CommunityService } from '../../services/community-service.js';
import { errors } from '../../errors.js';
import { CommunityId } from './communities.js';

const tags = ['groups'];
const GROUP = '120363019502650977-group';
const GroupId = Type.String({ minLength: 1, maxLength: 64, description: '`<digits>-group`, or the pending id create-group answered once the group exists.', examples: [GROUP] });
const Phones = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: MAX_PHONES_PER_CHANGE, description: 'Numbers with country code.' });
const GroupParams = Type.Object({ groupId: GroupId }, { additionalProperties: true, examples: [{ groupId: GROUP }] });

const ParticipantsFields = Type.Object({
  value: Type.Boolean({ description: 'true when the network applied the change for every phone.' }),
  errors: Type.Array(Type.Object({ phone: Type.String(), error: Type.String() }), { description: 'zapgate: the phones the network refused, with its reason.' }),
});
const ParticipantsAnswer = named(
  'ParticipantsChange',
  'The change is applied for every phone but those in `errors` (with the reason the network gave).',
  Type.Composite([ParticipantsFields], { examples: [{ value: true, errors: [] }] }),
);
const AddAnswer = named(
  'ParticipantsAdded',
  'Who was added: every phone but those in `errors`; `phonesNotAdded` are the ones whose privacy did not let them be added (with autoInvite they got the link).',
  Type.Composite(
    [ParticipantsFields, Type.Object({ phonesNotAdded: Type.Array(Type.String(), { description: 'zapgate: phones not added (with autoInvite they were sent the link).' }) })],
    { examples: [{ value: true, errors: [], phonesNotAdded: [] }] },
  ),
);
const InvitationLink = named(
  'GroupInvitationLink',
  "The group's current invitation link.",
  Type.Object({ phone: Type.String(), invitationLink: Type.String() }, { examples: [{ phone: GROUP, invitationLink: 'https://chat.whatsapp.com/Fk3q9ZrX1bC2dE4fG5hI6j' }] }),
);
const NewInvitationLink = named(
  'NewGroupInvitationLink',
  'The new invitation link; the old one no longer works.',
  Type.Object({ invitationLink: Type.String() }, { examples: [{ invitationLink: 'https://chat.whatsapp.com/Hq2w8ErT5yU7iO9pA1sD3f' }] }),
);
const Joined = named(
  'GroupJoined',
  "Joined: Z-API's `success`, and the group's `phone` (`<digits>-group`).",
  Type.Object({ success: Type.Literal(true), phone: Type.String() }, { examples: [{ success: true, phone: GROUP }] }),
);

const GroupRow = Type.Object({
  isGroup: Type.Literal(true),
  name: Type.String(),
  phone: Type.String({ description: '`<digits>-group`' }),
  unread: Type.String(),
  messagesUnread: Type.String(),
  lastMessageTime: Type.String({ description: 'ms since the epoch of the last stored message; "0" when none.' }),
  isMuted: Type.Union([Type.Literal('0'), Type.Literal('1')]),
  muteEndTime: Type.Union([Type.Integer(), Type.Null()]),
  isMarkedSpam: Type.Literal('false'),
  archived: Type.Union([Type.Literal('true'), Type.Literal('false')]),
  pinned: Type.Union([Type.Literal('true'), Type.Literal('false')]),
});

const GroupList = named(
  'GroupList',
  'A page of the groups the account is in, the most recent conversation first, with what the stored chats know of them.',
  Type.Array(GroupRow, {
    examples: [[{ isGroup: true, name: 'Sales team', phone: GROUP, unread: '0', messagesUnread: '0', lastMessageTime: '1764000000000', isMuted: '0', muteEndTime: null, isMarkedSpam: 'false', archived: 'false', pinned: 'false' }]],
  }),
);

/** Members and admins of a community go through the group routes, with `communityId` instead of `groupId` (Z-API's community pages). */
type CommunityParticipants = Pick<CommunityService, 'participants'>;
const COMMUNITY_TEXT = ' For a community, send `communityId` instead of `groupId`: the change applies to the whole community (remove takes the person out of every group of it).';

/** Exactly one of groupId and communityId. */
function targetOf(body: { groupId?: string | undefined; communityId?: string | undefined }): { groupId: string } | { communityId: string } {
  if ((body.groupId === undefined) === (body.communityId === undefined)) throw errors.invalidInput('body: give groupId (a group) or communityId (a community), not both');
  return body.communityId !== undefined ? { communityId: body.communityId } : { groupId: body.groupId! };
}

function participantRoute(app: Parameters<FastifyPluginAsyncTypebox>[0], groups: GroupAdminService, communities: CommunityParticipants, path: string, action: ParticipantAction, summary: string, description: string): void {
  app.post(
    path,
    {
      schema: {
        tags,
        'x-zapgate-scope': 'manage',
        operationId: `groups_${path.slice(1)}`,
        summary,
        description: `${description} Answers \`value: true\` when every phone was changed; \`errors\` lists the ones the network refused, with its reason. At most ${MAX_PHONES_PER_CHANGE} phones; a malformed or repeated phone refuses the whole call (400) before anything is sent.${COMMUNITY_TEXT}`,
        body: Type.Object({ groupId: Type.Optional(GroupId), communityId: Type.Optional(CommunityId), phones: Phones }, { examples: [{ groupId: GROUP, phones: ['5544999999999', '5544888888888'] }] }),
        response: { 200: ParticipantsAnswer, ...errorResponses(409, 422, 504) },
      },
    },
    async (request) => {
      const target = targetOf(request.body);
      if ('communityId' in target) return communities.participants(instanceOf(request), target.communityId, request.body.phones, action);
      return groups.participants(instanceOf(request), target.groupId, request.body.phones, action);
    },
  );
}

function joinRequestRoute(app: Parameters<FastifyPluginAsyncTypebox>[0], groups: GroupAdminService, path: string, action: JoinRequestAction, summary: string): void {
  app.post(
    path,
    {
      schema: {
        tags,
        'x-zapgate-scope': 'manage',
        operationId: `groups_${path.slice(1)}`,
        summary,
        description: `For groups that require admin approval: the people who asked to join (by link). Admins only. \`errors\` lists phones that had no pending request or that the network refused.`,
        body: Type.Object({ groupId: GroupId, phones: Phones }, { examples: [{ groupId: GROUP, phones: ['5544999999999'] }] }),
        response: { 200: ParticipantsAnswer, ...errorResponses(409, 422, 504) },
      },
    },
    async (request) => groups.joinRequests(instanceOf(request).id, request.body.groupId, request.body.phones, action),
  );
}

function groupAdminRoutes(groups: GroupAdminService, communities: CommunityParticipants, mediaBodyLimit: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/groups',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'groups_list',
          summary: 'The groups the account is in',
          description: 'Asked of the network (every group the number participates in), with unread counts, mute, archive and pin from the stored chats; the most recent conversation first. At most 1000 rows per page.',
          querystring: Type.Object(
            {
              page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', description: 'Page number, from 1 (default 1).', examples: ['1'] })),
              pageSize: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Rows per page, 1–1000 (default 100).', examples: ['20'] })),
            },
            { examples: [{ page: '1', pageSize: '20' }] },
          ),
          response: { 200: GroupList, ...errorResponses(409, 504) },
        },
      },
      async (request) => groups.list(instanceOf(request).id, Number(request.query.page ?? '1'), Number(request.query.pageSize ?? '100')),
    );

    app.get(
      '/light-group-metadata/:groupId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'groups_light-group-metadata',
          summary: 'A group\'s metadata without its invitation link',
          description: 'As group-metadata, with `invitationLink: null` (one network query fewer).',
          params: GroupParams,
          response: { 200: Type.Ref('Group'), ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => groups.lightMetadata(instanceOf(request).id, request.params.groupId),
    );

    app.get(
      '/group-invitation-link/:groupId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_group-invitation-link',
          summary: 'The group\'s invitation link',
          description: 'Admins only (422 otherwise).',
          params: GroupParams,
          response: { 200: InvitationLink, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => groups.invitationLink(instanceOf(request).id, request.params.groupId),
    );

    app.post(
      '/redefine-invitation-link/:groupId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_redefine-invitation-link',
          summary: 'Revoke the invitation link and make a new one',
          description: 'Admins only. The old link stops working at once (group-invitation-metadata answers 422 for it). A community\'s link too: give its id (digits).',
          params: GroupParams,
          response: { 200: NewInvitationLink, ...errorResponses(409, 422, 504) },
        },
      },
      // A community is named by its digits; its link is its parent group's.
      async (request) => groups.redefineInvitationLink(instanceOf(request).id, request.params.groupId.replace(/^(\d+)$/, '$1-group')),
    );

    app.get(
      '/accept-invite-group',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          // Joins a group although Z-API makes it a GET: audited.
          'x-zapgate-audit': true,
          operationId: 'groups_accept-invite-group',
          summary: 'Join a group by its invitation link',
          description: 'Answers Z-API\'s `{success: true}` and, zapgate, the group\'s `phone`. A revoked or unknown link is 422.',
          querystring: Type.Object({ url: Type.String({ minLength: 1, maxLength: 256, description: 'https://chat.whatsapp.com/<code>', examples: ['https://chat.whatsapp.com/C1adgkdEGki7554BWDdMkd'] }) }, { examples: [{ url: 'https://chat.whatsapp.com/C1adgkdEGki7554BWDdMkd' }] }),
          response: { 200: Joined, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => groups.acceptInvite(instanceOf(request).id, request.query.url),
    );

    app.post(
      '/leave-group',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_leave-group',
          summary: 'Leave a group',
          description: 'The instance leaves the group; the other participants see it leave.',
          body: Type.Object({ groupId: GroupId }, { examples: [{ groupId: GROUP }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await groups.leave(instanceOf(request).id, request.body.groupId);
        return { value: true };
      },
    );

    app.post(
      '/update-group-name',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_update-group-name',
          summary: 'Change the group\'s subject',
          description: 'Admins only when the group\'s info is locked to admins.',
          body: Type.Object({ groupId: GroupId, groupName: Type.String({ minLength: 1, maxLength: 100 }) }, { examples: [{ groupId: GROUP, groupName: 'Sales team' }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await groups.setName(instanceOf(request).id, request.body.groupId, request.body.groupName);
        return { value: true };
      },
    );

    app.post(
      '/update-group-description',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_update-group-description',
          summary: 'Change the group\'s description',
          description: 'An empty description removes it. Admins only when the group\'s info is locked to admins.',
          body: Type.Object({ groupId: GroupId, groupDescription: Type.String({ maxLength: 2048 }) }, { examples: [{ groupId: GROUP, groupDescription: 'Orders and deliveries' }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await groups.setDescription(instanceOf(request).id, request.body.groupId, request.body.groupDescription);
        return { value: true };
      },
    );

    app.post(
      '/update-group-photo',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_update-group-photo',
          summary: 'Change the group\'s picture',
          description: 'An https URL or a data URI of an image (checked like every outgoing image: real type, size and pixel limits; a URL passes the address guard). A payload that is not an image is 400; a URL that cannot be fetched is 422.',
          body: Type.Object({ groupId: GroupId, groupPhoto: Type.String({ minLength: 1, description: 'Image URL or data URI.' }) }, { examples: [{ groupId: GROUP, groupPhoto: EXAMPLE_IMAGE }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 413, 422, 504) },
        },
      },
      async (request) => {
        await groups.setPhoto(instanceOf(request).id, request.body.groupId, request.body.groupPhoto);
        return { value: true };
      },
    );

    app.post(
      '/add-participant',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'groups_add-participant',
          summary: 'Add participants',
          description: `Admins only (or everyone when the group lets members add). People whose privacy settings do not let you add them are listed in \`phonesNotAdded\`; with \`autoInvite: true\` they are sent the group's invitation link as a private message, through the queue. At most ${MAX_PHONES_PER_CHANGE} phones.${COMMUNITY_TEXT}`,
          body: Type.Object(
            { groupId: Type.Optional(GroupId), communityId: Type.Optional(CommunityId), phones: Phones, autoInvite: Type.Optional(Type.Boolean({ description: 'Send the link to those who cannot be added.' })) },
            { examples: [{ autoInvite: true, groupId: GROUP, phones: ['5544999999999', '5544888888888'] }] },
          ),
          response: { 200: AddAnswer, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        const target = targetOf(request.body);
        const autoInvite = request.body.autoInvite ?? false;
        const r =
          'communityId' in target
            ? await communities.participants(instanceOf(request), target.communityId, request.body.phones, 'add', autoInvite)
            : await groups.participants(instanceOf(request), target.groupId, request.body.phones, 'add', autoInvite);
        return { ...r, phonesNotAdded: r.phonesNotAdded ?? [] };
      },
    );

    participantRoute(app, groups, communities, '/remove-participant', 'remove', 'Remove participants', 'Admins only.');
    participantRoute(app, groups, communities, '/add-admin', 'promote', 'Make participants admins', 'Admins only; the phones must be participants.');
    participantRoute(app, groups, communities, '/remove-admin', 'demote', 'Take admin rights away', 'Admins only.');
    joinRequestRoute(app, groups, '/approve-participant', 'approve', 'Approve requests to join');
    joinRequestRoute(app, groups, '/reject-participant', 'reject', 'Reject requests to join');
  };
}

/** The routes as one instance-scoped plugin (listed in routes/index.ts). */
export function groupAdminRouteTree(groups: GroupAdminService, communities: CommunityParticipants, mediaBodyLimit: number) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(groupAdminRoutes(groups, communities, mediaBodyLimit));
  };
}
