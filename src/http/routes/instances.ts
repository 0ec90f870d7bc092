// Tag "instance": create and list instances, pair them, control their session and settings.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InstancesService } from '../../services/instances-service.js';
import type { PartnerService } from '../../services/partner-service.js';
import { accountOf, instanceOf } from '../auth.js';
import { LIST_MODES } from '../../domain/instance.js';
import { errorResponses, ValueTrue, PARTNER_SECURITY } from '../schemas/common.js';
import { EXAMPLE_PHONE } from '../schemas/examples.js';
import {
  AntibanSetting,
  CreatedInstance,
  InstanceList,
  InstanceStatus,
  Name,
  NewInstanceToken,
  OnDemandBody,
  OnDemandInstance,
  PairingCode,
  QrValue,
} from '../schemas/instances.js';

const tags = ['instance'];

export function accountInstanceRoutes(instances: InstancesService, partner: PartnerService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/instances',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'instance_create',
          summary: 'Create an instance',
          description: 'An account may have `ZAPGATE_MAX_INSTANCES_PER_ACCOUNT` instances (default 1000); one more is a 403 `instance limit reached`.',
          body: Type.Object({ name: Name }, { examples: [{ name: 'sales' }] }),
          response: {
            201: CreatedInstance,
            ...errorResponses(403),
          },
        },
      },
      async (request, reply) => {
        const created = await instances.create(accountOf(request).id, request.body.name);
        return reply.code(201).send(created);
      },
    );

    app.post(
      '/instances/integrator/on-demand',
      {
        config: { partner: true },
        schema: {
          security: PARTNER_SECURITY,
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'instance_create-on-demand',
          summary: 'Create an instance with its webhooks and settings (Z-API integrator)',
          description:
            'Z-API\'s partner call, authenticated with the account\'s Client-Token, or with it as the Partner-Token in `Authorization: Bearer <token>` as Z-API\'s partner API sends it. The callback URLs set the webhooks (`receivedAndDeliveryCallbackUrl` both received and delivery); `callRejectAuto`, `callRejectMessage`, `autoReadMessage`, `autoReadStatus` and `disableEnqueueWhenDisconnected` the settings. Every URL is checked first: a refused one is a 400 naming the field and no instance is made. `due` is 253402300799000 (9999-12-31T23:59:59Z, ms): a self-hosted instance does not expire.',
          body: OnDemandBody,
          response: {
            200: OnDemandInstance,
            ...errorResponses(403),
          },
        },
      },
      async (request) => partner.createOnDemand(accountOf(request).id, request.body),
    );

    app.get(
      '/instances',
      {
        config: { partner: true },
        schema: {
          security: PARTNER_SECURITY,
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'instance_list',
          summary: "List this account's instances (never their tokens)",
          description:
            'Without `page`/`pageSize`: every instance as `[{instanceId, name, status, phone}]`. With them (Z-API\'s partner listing): `{total, totalPage, pageSize, page, content}` with Z-API\'s row fields, oldest first; `query` matches the name or id. Like Z-API\'s partner listing, the account\'s token may come as `Authorization: Bearer <token>` instead of `Client-Token`.',
          querystring: Type.Object(
            {
              page: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$', examples: ['1'] })),
              pageSize: Type.Optional(Type.String({ pattern: '^([1-9][0-9]{0,2}|1000)$', examples: ['15'] })),
              query: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the name or id.', examples: ['sales'] })),
              middleware: Type.Optional(Type.String({ maxLength: 10, description: 'Accepted; every zapgate instance is `web`.' })),
            },
            { examples: [{ page: '1', pageSize: '15' }] },
          ),
          response: {
            200: InstanceList,
            400: Type.Ref('ErrorBody'),
            401: Type.Ref('ErrorBody'),
            429: Type.Ref('ErrorBody'),
          },
        },
      },
      async (request) => {
        const q = request.query;
        if (q.page === undefined && q.pageSize === undefined && q.query === undefined) return instances.list(accountOf(request).id);
        return partner.list(accountOf(request).id, Number(q.page ?? '1'), Number(q.pageSize ?? '100'), q.query);
      },
    );
  };
}

/** Routes under /instances/{instanceId}/token/{instanceToken}. */
export function instanceRoutes(instances: InstancesService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.delete(
      '',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'instance_delete',
          summary: 'Unlink the device if paired and delete the instance with all its data',
          description:
            'The phone loses the linked device; the instance is deleted with everything stored for it (queue, webhook settings and deliveries, stored chats, keys). Cannot be undone.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.delete(instanceOf(request).id);
        return { value: true };
      },
    );

    app.post(
      '/rotate-token',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'admin',
          operationId: 'instance_rotate-token',
          summary: 'Replace the instanceToken (the old one stops working at once)',
          description: 'Use it when a token leaked. The session, pairing and queue are untouched; only the token in the path changes.',
          response: { 200: NewInstanceToken, ...errorResponses() },
        },
      },
      async (request) => ({ instanceToken: await instances.rotateToken(instanceOf(request).id) }),
    );

    app.get(
      '/status',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'instance_status',
          summary: 'Connection status',
          description:
            'Works whether or not a session runs. `statusReason` says why the instance is not connected (e.g. the proxy error, `logged out from the phone`); `since` is when the status last changed.',
          response: {
            200: InstanceStatus,
            ...errorResponses(),
          },
        },
      },
      async (request) => instances.status(instanceOf(request).id),
    );

    app.get(
      '/qr-code/image',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_qr-code-image',
          summary: 'Current QR code as a PNG (JSON data URI when Accept: application/json)',
          description:
            'Starts a pairing session when none is live and waits up to 10 s for the first QR. 404 when connected or when no QR can be produced.',
          response: {
            200: {
              description: 'PNG image, or `{value: "data:image/png;base64,…"}` for JSON clients',
              content: {
                'image/png': { schema: { type: 'string', format: 'binary' } },
                'application/json': { schema: QrValue },
              },
            },
            ...errorResponses(),
          },
        },
      },
      async (request, reply) => {
        const png = await instances.qrPng(instanceOf(request).id);
        const wantsJson = /application\/json/i.test(request.headers.accept ?? '') && !/image\/png/i.test(request.headers.accept ?? '');
        if (wantsJson) return reply.type('application/json').send({ value: `data:image/png;base64,${png.toString('base64')}` });
        return reply.type('image/png').send(png);
      },
    );

    app.get(
      '/qr-code',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_qr-code',
          summary: 'Current raw QR string',
          description:
            'The string to render as a QR code yourself (it changes while the pairing waits: ask again when it expired). Starts a pairing session when none is live, like qr-code/image; 404 when connected.',
          response: { 200: QrValue, ...errorResponses() },
        },
      },
      async (request) => ({ value: await instances.qr(instanceOf(request).id) }),
    );

    app.get(
      '/phone-code/:phone',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_phone-code',
          summary: 'Pair by code: the 8-character code to type on the phone',
          description:
            'Instead of scanning a QR: `phone` is the number being linked (country code and digits). On that phone open WhatsApp → Linked devices → Link a device → Link with phone number instead, and type the code. 409 when the instance is already connected.',
          params: Type.Object({ phone: Type.String({ minLength: 1, maxLength: 32, examples: [EXAMPLE_PHONE] }) }, { additionalProperties: true }),
          response: { 200: PairingCode, ...errorResponses(409, 504) },
        },
      },
      async (request) => ({ value: await instances.pairingCode(instanceOf(request).id, request.params.phone) }),
    );

    for (const method of ['GET', 'POST'] as const) {
      app.route({
        method,
        url: '/restart',
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          // A change although Z-API makes it a GET too: audited either way.
          'x-zapgate-audit': true,
          operationId: `instance_restart${method === 'POST' ? '-post' : ''}`,
          summary: 'Reconnect without a new QR',
          description: 'Closes the WhatsApp connection and opens it again with the stored credentials; a paired device stays paired and the queue resumes. GET and POST do the same.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
        handler: async (request) => {
          await instances.restart(instanceOf(request).id);
          return { value: true };
        },
      });
      app.route({
        method,
        url: '/disconnect',
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          // A change although Z-API makes it a GET too: audited either way.
          'x-zapgate-audit': true,
          operationId: `instance_disconnect${method === 'POST' ? '-post' : ''}`,
          summary: 'Log out: unlink the device and wipe its credentials',
          description:
            'The phone loses the linked device and the instance goes back to `disconnected`; pair it again with a new QR. The instance, its token, settings and queue are kept. GET and POST do the same.',
          response: { 200: ValueTrue, ...errorResponses() },
        },
        handler: async (request) => {
          await instances.disconnect(instanceOf(request).id);
          return { value: true };
        },
      });
    }

    app.put(
      '/update-name',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-name',
          summary: 'Rename the instance',
          description: 'The name is a label for you (GET /instances); WhatsApp does not see it (the profile name is `profile-name`).',
          body: Type.Object({ value: Name }, { examples: [{ value: 'support' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.rename(instanceOf(request).id, request.body.value);
        return { value: true };
      },
    );

    app.put(
      '/update-antiban',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-antiban',
          summary: 'Enable or disable the anti-ban strategy',
          description: [
            '`workerSynced` is true when the running session applied the change before this response; false when no session runs now (it applies at next start).',
            '',
            'Off: the queue goes out in FIFO order with Z-API gaps (random 1–3 s, or `delayMessage` exactly). On, additionally, without ever changing your content:',
            'a human "thinking" gap before each message (ZAPGATE_ANTIBAN_MIN_GAP_MS/MAX_GAP_MS, default 3–8 s; a longer `delayMessage` is honoured) and "typing…" for as long as the text takes to type (ZAPGATE_ANTIBAN_TYPING_CPS, default 6 chars/s, at most ZAPGATE_ANTIBAN_MAX_TYPING_MS; `delayTyping` wins when given);',
            'first messages to strangers (numbers that never wrote to the instance and were never written to) spaced by at least ZAPGATE_ANTIBAN_STRANGER_GAP_MS (60 s, jittered up to twice) and capped per hour and per day (ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR 12, _PER_DAY 150);',
            'the same content to more than ZAPGATE_ANTIBAN_IDENTICAL_PER_HOUR (8) recipients in an hour waits;',
            'a newly paired number starts at ZAPGATE_ANTIBAN_WARMUP_START (0.2) of the stranger caps and reaches them after ZAPGATE_ANTIBAN_WARMUP_DAYS (7);',
            'a restriction signal from the network (nacks 463/475, rate-overlimit, 403) pauses sending for ZAPGATE_ANTIBAN_PAUSE_MS (30 min), doubling for each further one within a day, visible as `antiban` in GET /status and reported on the received webhook as a ReceivedCallback with `notification: "ANTIBAN_PAUSED"` and `notificationParameters: [reason, untilMs]`;',
            'so does the governor when ZAPGATE_ANTIBAN_MAX_FAILURE_RATIO (0.3) of the last ZAPGATE_ANTIBAN_FAILURE_WINDOW (20) sends were refused by the network, and the number\'s running campaigns pause with it (`CAMPAIGN_AUTO_PAUSED`). GET …/health shows the figures (docs/contract.md §12).',
            'The queue stays FIFO: a message held by a cap holds the ones behind it.',
          ].join('\n'),
          body: Type.Object({ value: Type.Boolean() }, { examples: [{ value: true }] }),
          response: {
            200: AntibanSetting,
            ...errorResponses(),
          },
        },
      },
      async (request) => instances.setAntiban(instanceOf(request).id, request.body.value),
    );

    app.put(
      '/update-list-mode',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-list-mode',
          summary: 'How option and button lists are delivered',
          description: '`poll` (default: renders on every client, answers map back to option ids), `text` (numbered text; a reply "2" maps the same way) or `native` (interactive message; experimental).',
          body: Type.Object({ value: Type.Union(LIST_MODES.map((m) => Type.Literal(m))) }, { examples: [{ value: 'poll' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { listMode: request.body.value });
        return { value: true };
      },
    );

    // send-kinds: the wording of numbered-text lists.
    app.put(
      '/update-list-reply-hint',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-list-reply-hint',
          summary: 'The closing line of lists and buttons rendered as numbered text',
          description:
            'Lists, buttons and the REPLY buttons of send-button-actions and send-carousel rendered as numbered text (list mode `text`) end with this line, in italics. ' +
            'Default: "Reply with the number of your choice." — send `""` to restore it.',
          body: Type.Object({ value: Type.String({ maxLength: 200 }) }, { examples: [{ value: 'Responda com o número da opção.' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await instances.updateSettings(instanceOf(request).id, { listReplyHint: request.body.value.trim() });
        return { value: true };
      },
    );
  };
}
