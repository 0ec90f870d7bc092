// Tag "communities", Z-API's community page: create, list, metadata, link and unlink groups, who may
// add groups, deactivate and the description. A community is named by its digits (Z-API's
// communityId). Members, admins and the invitation link go through the group routes with
// `communityId` (add-participant, remove-participant, add-admin, remove-admin, redefine-invitation-link).
import type { FastifyInstance } from 'fastify';
import { Type, type FastifyPluginAsyncTypebox, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { MAX_COMMUNITY_GROUPS, type CommunityService } from '../../services/community-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue } from '../schemas/common.js';

const tags = ['communities'];
const COMMUNITY = '120363019502650977';
const ANNOUNCEMENTS = '120363019502650978-group';
const GROUP = '120363019502650979-group';

export const CommunityId = Type.String({ minLength: 1, maxLength: 64, description: 'The community\'s id: its digits, as GET /communities lists them.', examples: [COMMUNITY] });
const GroupsPhones = Type.Array(Type.String({ minLength: 1, maxLength: 64, description: '`<digits>-group`' }), {
  minItems: 1,
  maxItems: MAX_COMMUNITY_GROUPS,
  description: `The groups (\`<digits>-group\`), at most ${MAX_COMMUNITY_GROUPS}.`,
});

const SubGroup = Type.Object({
  name: Type.String(),
  phone: Type.String({ description: '`<digits>-group`: send to it like any group.' }),
  isGroupAnnouncement: Type.Boolean({ description: 'The announcement group: every member of the community is in it; admins post.' }),
});

const Created = named(
  'CommunityCreated',
  'The community\'s id and its groups: the announcement group, named like the community.',
  Type.Object({ id: Type.String(), subGroups: Type.Array(SubGroup) }, { examples: [{ id: COMMUNITY, subGroups: [{ name: 'Neighbours', phone: ANNOUNCEMENTS, isGroupAnnouncement: true }] }] }),
);
const List = named(
  'CommunityList',
  'A page of the communities the number is in, by name.',
  Type.Array(Type.Object({ name: Type.String(), id: Type.String() }), { examples: [[{ name: 'Neighbours', id: COMMUNITY }]] }),
);
const Metadata = named(
  'CommunityMetadata',
  'The community: name, description and its groups (the announcement group among them).',
  Type.Object(
    { name: Type.String(), id: Type.String(), description: Type.String(), subGroups: Type.Array(SubGroup) },
    {
      examples: [
        {
          name: 'Neighbours',
          id: COMMUNITY,
          description: 'Everything about the building',
          subGroups: [
            { name: 'Neighbours', phone: ANNOUNCEMENTS, isGroupAnnouncement: true },
            { name: 'Parking', phone: GROUP, isGroupAnnouncement: false },
          ],
        },
      ],
    },
  ),
);
const LinkChange = named(
  'CommunityGroupsChange',
  '`success` is true when every group was linked (or unlinked); `errors` lists the groups the network refused, with its reason.',
  Type.Object(
    { success: Type.Boolean(), errors: Type.Array(Type.Object({ phone: Type.String(), error: Type.String() }), { description: 'zapgate: the groups refused.' }) },
    { examples: [{ success: true, errors: [] }] },
  ),
);
const SuccessTrue = named('SuccessTrue', 'The change was made (`success` is `true`).', Type.Object({ success: Type.Literal(true) }, { examples: [{ success: true }] }));

const Paging = Type.Object(
  {
    page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', description: 'Page number, from 1 (default 1).', examples: ['1'] })),
    pageSize: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', description: 'Rows per page, 1–1000 (default 100).', examples: ['20'] })),
  },
  { examples: [{ page: '1', pageSize: '20' }] },
);

function communityRoutes(communities: CommunityService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/communities',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'communities_list',
          summary: 'The communities the number is in',
          description: 'Asked of the network; sorted by name, paged (at most 1000 per page).',
          querystring: Paging,
          response: { 200: List, ...errorResponses(409, 504) },
        },
      },
      async (request) => communities.list(instanceOf(request).id, Number(request.query.page ?? '1'), Number(request.query.pageSize ?? '100')),
    );

    app.post(
      '/communities',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'communities_create',
          summary: 'Create a community',
          description: 'The network creates the community and its announcement group (same name); the number is their owner. Link groups with POST /communities/link.',
          body: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 100 }), description: Type.Optional(Type.String({ maxLength: 2048 })) },
            { examples: [{ name: 'Neighbours', description: 'Everything about the building' }] },
          ),
          response: { 200: Created, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => communities.create(instanceOf(request).id, request.body.name, request.body.description ?? ''),
    );

    app.get(
      '/communities-metadata/:communityId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'communities_metadata',
          summary: 'A community\'s name, description and groups',
          description: 'Asked of the network. An id that is not a community the number is in is 422.',
          params: Type.Object({ communityId: CommunityId }, { additionalProperties: true, examples: [{ communityId: COMMUNITY }] }),
          response: { 200: Metadata, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => communities.metadata(instanceOf(request).id, request.params.communityId),
    );

    app.post(
      '/communities/settings',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'communities_settings',
          summary: 'Who may add groups to the community',
          description: '`admins`: only community admins link groups; `all`: every member may. Admins only.',
          body: Type.Object(
            { communityId: CommunityId, whoCanAddNewGroups: Type.Union([Type.Literal('admins'), Type.Literal('all')]) },
            { examples: [{ communityId: COMMUNITY, whoCanAddNewGroups: 'admins' }] },
          ),
          response: { 200: SuccessTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await communities.settings(instanceOf(request).id, request.body.communityId, request.body.whoCanAddNewGroups);
        return { success: true as const };
      },
    );

    for (const [path, verb, text] of [
      ['link', 'Link groups to the community', 'Their members join the community and its announcement group. You must be an admin of the community (or members may add groups) and of each group; a group already in a community is refused (the others are still linked).'],
      ['unlink', 'Unlink groups from the community', 'The groups stay; their members who are in no other group of the community leave it. Community admins only.'],
    ] as const) {
      app.post(
        `/communities/${path}`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `communities_${path}`,
            summary: verb,
            description: `${text} One query per group: \`errors\` lists those the network refused, with its reason. A malformed or repeated group refuses the whole call (400) before anything is sent.`,
            body: Type.Object({ communityId: CommunityId, groupsPhones: GroupsPhones }, { examples: [{ communityId: COMMUNITY, groupsPhones: [GROUP] }] }),
            response: { 200: LinkChange, ...errorResponses(409, 422, 504) },
          },
        },
        async (request) => {
          const id = instanceOf(request).id;
          const { communityId, groupsPhones } = request.body;
          return path === 'link' ? communities.link(id, communityId, groupsPhones) : communities.unlink(id, communityId, groupsPhones);
        },
      );
    }

    app.delete(
      '/communities/:communityId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'communities_deactivate',
          summary: 'Deactivate a community',
          description: 'The owner only. The linked groups are not deleted: they are unlinked and go on as groups; the community and its announcement group end.',
          params: Type.Object({ communityId: CommunityId }, { additionalProperties: true, examples: [{ communityId: COMMUNITY }] }),
          response: { 200: SuccessTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await communities.deactivate(instanceOf(request).id, request.params.communityId);
        return { success: true as const };
      },
    );

    app.post(
      '/update-community-description',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'communities_update-community-description',
          summary: 'Change the community\'s description',
          description: 'Admins only. An empty description removes it.',
          body: Type.Object(
            { communityId: CommunityId, communityDescription: Type.String({ maxLength: 2048 }) },
            { examples: [{ communityId: COMMUNITY, communityDescription: 'Everything about the building' }] },
          ),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await communities.setDescription(instanceOf(request).id, request.body.communityId, request.body.communityDescription);
        return { value: true };
      },
    );
  };
}

/** The routes as one instance-scoped plugin (listed in routes/index.ts). */
export function communityRouteTree(communities: CommunityService) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(communityRoutes(communities));
  };
}
