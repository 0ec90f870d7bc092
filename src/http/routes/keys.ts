// Tag "api keys": an account's narrower keys (docs/api-keys.md). Created, listed (never the
// secret), rotated with an overlap, revoked: those routes need the `admin` scope. GET /keys/me, what
// the presented credential itself may do, is open to `any` credential of the account.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SCOPES } from '../../domain/api-key.js';
import type { ApiKeysService } from '../../services/api-keys-service.js';
import type { FastifyRequest } from 'fastify';
import { accountOf } from '../auth.js';
import { errorResponses, named } from '../schemas/common.js';

const tags = ['api keys'];
const Scope = Type.Union(SCOPES.map((s) => Type.Literal(s)));
const NullableList = (description: string) => Type.Union([Type.Array(Type.String(), { maxItems: 100 }), Type.Null()], { description });

const KEY_EXAMPLE = {
  id: '6f1f3c9e-2b7a-4d1e-9a3c-0d4b5e6f7a8b',
  name: 'support tool',
  prefix: 'zk_Q2hh',
  scopes: ['read'],
  instanceIds: null,
  cidrs: ['203.0.113.0/24'],
  rateLimit: 20,
  expiresAt: null,
  revokedAt: null,
  createdAt: 1767225600000,
};
const keyProps = {
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: 'The key\'s first characters, to tell keys apart (not a secret).' }),
  scopes: Type.Array(Scope),
  instanceIds: NullableList('The instances the key may reach; null: every instance of the account.'),
  cidrs: NullableList('The client address ranges the key may be used from; null: any.'),
  rateLimit: Type.Union([Type.Integer(), Type.Null()], { description: 'Requests per second for this key; null: the account\'s limit only.' }),
  expiresAt: Type.Union([Type.Number(), Type.Null()], { description: 'ms since the epoch; null: never.' }),
  revokedAt: Type.Union([Type.Number(), Type.Null()]),
  createdAt: Type.Number(),
};
const ApiKeyView = named('ApiKey', 'An API key as listings show it: never the secret.', Type.Object(keyProps, { examples: [KEY_EXAMPLE] }));
const CreatedApiKey = named(
  'CreatedApiKey',
  'A new key: `key` is shown only now (only its hash is stored). Present it as `Authorization: Bearer zk_…`, or as the `Client-Token` header.',
  Type.Object({ ...keyProps, key: Type.String() }, { examples: [{ ...KEY_EXAMPLE, key: 'zk_Q2hhbmdlIG1lOiB0aGlzIGlzIGFuIGV4YW1wbGU' }] }),
);
const KeyId = Type.Object({ keyId: Type.String({ maxLength: 64, description: 'The key\'s `id` from POST /keys or GET /keys.', examples: [KEY_EXAMPLE.id] }) });
const ApiKeyList = named('ApiKeyList', 'The account\'s keys, oldest first, never their secrets.', Type.Array(ApiKeyView, { examples: [[KEY_EXAMPLE]] }));
const RotatedApiKey = named(
  'RotatedApiKey',
  'The old key (its `expiresAt` now the end of the overlap) and the new one, whose `key` is shown only now.',
  Type.Object({ old: ApiKeyView, created: CreatedApiKey }, { examples: [{ old: { ...KEY_EXAMPLE, expiresAt: 1767229200000 }, created: { ...KEY_EXAMPLE, id: '0c2d4e6f-8a1b-4c3d-9e5f-7a6b5c4d3e2f', key: 'zk_TmV3IGtleTogYW4gZXhhbXBsZSBvbmx5IGhlcmU' } }] },
  ),
);

const Credential = named(
  'Credential',
  'What the credential this request came with may do: the Client-Token holds every scope on every instance; a key what it was given.',
  Type.Object(
    {
      kind: Type.Union([Type.Literal('client-token'), Type.Literal('api-key')]),
      id: Type.Union([Type.String(), Type.Null()], { description: 'The key\'s id; null for the Client-Token.' }),
      name: Type.Union([Type.String(), Type.Null()], { description: 'The key\'s name; null for the Client-Token.' }),
      scopes: Type.Array(Scope, { description: '`admin` holds every scope.' }),
      instanceIds: NullableList('The only instances it may reach; null: every instance of the account.'),
      expiresAt: Type.Union([Type.Number(), Type.Null()], { description: 'ms since the epoch; null: never.' }),
    },
    { examples: [{ kind: 'api-key', id: KEY_EXAMPLE.id, name: 'support tool', scopes: ['read'], instanceIds: null, expiresAt: null }] },
  ),
);

/** GET /keys/me: the request's own credential. */
function credentialOf(request: FastifyRequest) {
  accountOf(request);
  const k = request.apiKey;
  if (!k) return { kind: 'client-token' as const, id: null, name: null, scopes: ['admin' as const], instanceIds: null, expiresAt: null };
  return { kind: 'api-key' as const, id: k.id, name: k.name, scopes: [...k.scopes], instanceIds: k.instanceIds && [...k.instanceIds], expiresAt: k.expiresAt };
}

export function keyRoutes(keys: ApiKeysService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/keys',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'keys_create',
          summary: 'Create an API key (the secret is shown once)',
          description: 'Scopes: `read`, `send`, `manage`, `admin` (`admin` holds every scope). Optionally limited to some instances, some client address ranges (CIDR), a rate of its own, and an expiry.',
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 100 }),
              scopes: Type.Array(Scope, { minItems: 1, maxItems: 4 }),
              instanceIds: Type.Optional(NullableList('Limit the key to these instances of the account.')),
              cidrs: Type.Optional(NullableList('Limit the key to these client address ranges, e.g. 203.0.113.0/24.')),
              rateLimit: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000 }), Type.Null()])),
              expiresAt: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: 'ms since the epoch.' })),
            },
            { examples: [{ name: 'support tool', scopes: ['read'], cidrs: ['203.0.113.0/24'], rateLimit: 20 }] },
          ),
          response: { 201: CreatedApiKey, ...errorResponses() },
        },
      },
      async (request, reply) => reply.code(201).send(await keys.create(accountOf(request).id, request.body)),
    );

    app.get(
      '/keys',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'keys_list',
          summary: 'List the account\'s API keys (never their secrets)',
          description: 'Revoked and expired keys are listed too, with `revokedAt` / `expiresAt`.',
          response: { 200: ApiKeyList, ...errorResponses() },
        },
      },
      async (request) => keys.list(accountOf(request).id),
    );

    app.get(
      '/keys/me',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'any',
          operationId: 'keys_me',
          summary: 'What the credential of this request may do (any key, or the Client-Token)',
          description: 'Its scopes and instances, so a client (the dashboard) offers only what the key may use. Any live key of the account may ask, an instance-limited one too; the Client-Token answers `admin` on every instance.',
          response: { 200: Credential, ...errorResponses() },
        },
      },
      async (request) => credentialOf(request),
    );

    app.post(
      '/keys/:keyId/rotate',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'keys_rotate',
          summary: 'Replace a key: a new secret, the same settings; the old one works for the overlap',
          description: '`overlapSeconds` (default 0) is how long the old key keeps working, so clients can switch without a gap.',
          params: KeyId,
          body: Type.Optional(Type.Object({ overlapSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 86_400 })) }, { examples: [{ overlapSeconds: 3600 }] })),
          response: { 200: RotatedApiKey, ...errorResponses(409) },
        },
      },
      async (request) => keys.rotate(accountOf(request).id, request.params.keyId, request.body?.overlapSeconds ?? 0),
    );

    app.delete(
      '/keys/:keyId',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'keys_revoke',
          summary: 'Revoke a key: it stops working at once, on every node',
          description: 'Every node of a cluster refuses it within a poll of the account change log (100 ms). Revoking a revoked key changes nothing.',
          params: KeyId,
          response: { 200: ApiKeyView, ...errorResponses() },
        },
      },
      async (request) => keys.revoke(accountOf(request).id, request.params.keyId),
    );
  };
}
