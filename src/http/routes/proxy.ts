// Tag "instance": the instance's proxy — zapgate's update-proxy / proxy and Z-API's integrator/configure-proxy.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ProxyService } from '../../services/proxy-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, named, ValueTrue, PARTNER_SECURITY } from '../schemas/common.js';

const tags = ['instance'];

const ABOUT = [
  'The instance\'s WebSocket to WhatsApp and its media uploads and downloads go through the proxy (WhatsApp refuses logins from many datacenter addresses).',
  'Accepted: `http://[user:pass@]host:port` (HTTP CONNECT), `socks5://[user:pass@]host:port` (the gateway resolves the far end) and `socks5h://[user:pass@]host:port` (the proxy resolves it); the port is required; percent-encode `@ : /` in credentials.',
  'The proxy host must pass the address guard, like a webhook URL (loopback and private ranges only through `ZAPGATE_ALLOW_HOSTS`), when set and again at every connection. Any other scheme, a missing port or a refused host is a 400 and nothing changes.',
  'A change restarts the instance\'s link (as `/restart` does); a paired device stays paired. If the proxy fails the instance does not fall back to a direct connection: it keeps retrying with backoff and `GET /status` names the proxy and the error in `statusReason`.',
  'Credentials are never answered or logged: every answer shows them as `****`.',
].join('\n\n');

const ProxyUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'http://, socks5:// or socks5h://[user:pass@]host:port' });

const ProxyView = named(
  'ProxyView',
  "The instance's proxy, credentials masked.",
  Type.Object(
    {
      value: Type.Union([Type.String(), Type.Null()], { description: 'The proxy URL with user name and password shown as `****`; null when none is set.' }),
      enabled: Type.Boolean({ description: 'Whether the instance\'s connections use it.' }),
    },
    { examples: [{ value: 'socks5://****:****@proxy.example.com:1080', enabled: true }] },
  ),
);
const ProxySet = named(
  'ProxySet',
  'The proxy now in use (credentials masked), or null: the instance reconnects through it.',
  Type.Object(
    {
      value: Type.Boolean(),
      proxy: Type.Union([Type.String(), Type.Null()], { description: 'The proxy now in use, credentials shown as `****`; null for none.' }),
    },
    { examples: [{ value: true, proxy: null }] },
  ),
);

function proxyRoutes(proxies: ProxyService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/update-proxy',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-proxy',
          summary: 'Set or clear the instance\'s proxy',
          description: `${ABOUT}\n\n\`{"value": null}\` clears the proxy: the instance reconnects directly.`,
          body: Type.Object(
            { value: Type.Union([ProxyUrl, Type.Null()]) },
            // The first example (direct, no proxy) works as pressed; the second shows the form (with your own proxy).
            { examples: [{ value: null }, { value: 'socks5://user:secret@proxy.example.com:1080' }] },
          ),
          response: {
            200: ProxySet,
            ...errorResponses(),
          },
        },
      },
      async (request) => {
        const view = await proxies.set(instanceOf(request).id, request.body.value);
        return { value: true, proxy: view.value };
      },
    );

    app.get(
      '/proxy',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_proxy',
          summary: 'The instance\'s proxy, credentials masked',
          description: ABOUT,
          response: { 200: ProxyView, ...errorResponses() },
        },
      },
      async (request) => proxies.get(instanceOf(request).id),
    );

    app.put(
      '/integrator/configure-proxy',
      {
        config: { partner: true },
        schema: {
          security: PARTNER_SECURITY,
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_integrator-configure-proxy',
          summary: 'Configure the proxy (Z-API partner route)',
          description: [
            'Z-API\'s partner route: the account\'s token as `Client-Token`, or as the Partner-Token in `Authorization: Bearer <token>` as Z-API\'s partner API sends it.',
            'An omitted or empty `proxyUrl` clears the URL; an omitted or null `enable` is false; without a URL `enable` has no effect.',
            'With `enable: true` the proxy must accept a TCP connection within 5 s, else 400 with the message "proxyUrl: Proxy is not reachable (…)".',
            'Unlike Z-API, a proxy that later fails is not abandoned for a direct connection after 3 attempts (that would expose the address the proxy hides): the instance keeps retrying through it.',
            '',
            ABOUT,
          ].join('\n'),
          body: Type.Object(
            {
              proxyUrl: Type.Optional(Type.Union([Type.String({ maxLength: 2048 }), Type.Null()], { description: 'http://, socks5:// or socks5h://[user:pass@]host:port; "" clears it.' })),
              enable: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
            },
            { examples: [{ proxyUrl: '', enable: false }, { proxyUrl: 'socks5://user:password123@proxy.example.com:1080', enable: true }] },
          ),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await proxies.configure(instanceOf(request).id, request.body.proxyUrl, request.body.enable);
        return { value: true };
      },
    );
  };
}

/** The routes as an instance-scoped plugin (listed in routes/index.ts). */
export function proxyRouteTree(proxies: ProxyService) {
  return async (base: FastifyInstance): Promise<void> => {
    await base.withTypeProvider<TypeBoxTypeProvider>().register(proxyRoutes(proxies));
  };
}
