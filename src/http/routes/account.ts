// Tag "instance", the account as the phone sees it: instance data, the connected device, the
// profile (name, about, picture) and the instance's reactions (auto-read, call rejection).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AccountService, ReactionSetting } from '../../services/account-service.js';
import { instanceOf } from '../auth.js';
import { errorResponses, EXAMPLE_IMAGE, named, ValueTrue } from '../schemas/common.js';

const tags = ['instance'];

const InstanceDataFields = Type.Object({
  id: Type.String(),
  token: Type.String({ description: 'The instanceToken of this request (only its hash is stored).' }),
  name: Type.String(),
  due: Type.Number({ description: 'When the instance expires (ms): always 253402300799000 (9999-12-31T23:59:59Z), since a self-hosted instance does not expire.' }),
  connected: Type.Boolean(),
  paymentStatus: Type.String({ description: 'Always "ACTIVE" (self-hosted).' }),
  created: Type.String({ description: 'ISO 8601 creation time.' }),
  connectedCallbackUrl: Type.String(),
  deliveryCallbackUrl: Type.String(),
  disconnectedCallbackUrl: Type.String(),
  messageStatusCallbackUrl: Type.String(),
  presenceChatCallbackUrl: Type.String(),
  receivedCallbackUrl: Type.String(),
  receiveCallbackSentByMe: Type.Boolean(),
  callRejectAuto: Type.Boolean(),
  callRejectMessage: Type.String(),
  autoReadMessage: Type.Boolean(),
  autoReadStatus: Type.Boolean(),
  initialDataCallbackUrl: Type.String({ description: 'Always "" (no initial-data webhook).' }),
  proxyUrl: Type.String({ description: 'The proxy (integrator/configure-proxy, update-proxy) with its credentials shown as `****`; "" when none.' }),
  useProxy: Type.Boolean({ description: 'Whether the instance\'s connections go through the proxy.' }),
});
const InstanceData = named('InstanceData', "Z-API's instance data: webhook URLs and the instance's settings.", InstanceDataFields);

const Device = named('Device', 'The phone this instance is linked to, as WhatsApp describes it.', Type.Object({
  phone: Type.String(),
  imgUrl: Type.String({ description: 'The account\'s profile picture URL, "" when it has none.' }),
  about: Type.String(),
  name: Type.String({ description: 'The push name contacts see.' }),
  device: Type.Object({ sessionName: Type.String(), device_model: Type.String() }),
  originalDevice: Type.String({ description: 'The phone\'s platform: "android", "iphone", "smba" or "smbi" (business).' }),
  sessionId: Type.Number({ description: 'This linked device\'s number on the account.' }),
  isBusiness: Type.Boolean(),
}, {
  examples: [
    {
      phone: '5511999999999',
      imgUrl: '',
      about: 'Open 9am–6pm, Mon–Fri',
      name: 'Acme Support',
      device: { sessionName: 'zapgate', device_model: 'Desktop' },
      originalDevice: 'android',
      sessionId: 3,
      isBusiness: false,
    },
  ],
}));

export function accountRoutes(account: AccountService, mediaBodyLimit: number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/me',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'instance_me',
          summary: 'Instance data and settings',
          description: 'Z-API\'s instance data: webhook URLs, sent-by-me notification, auto-read and call rejection settings. Works connected or not.',
          response: { 200: InstanceData, ...errorResponses() },
        },
      },
      async (request) => account.me(instanceOf(request).id, (request.params as { instanceToken: string }).instanceToken),
    );

    app.get(
      '/device',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'read',
          operationId: 'instance_device',
          summary: 'The connected phone: number, name, about, picture, platform',
          description: 'Asks the network for the account\'s picture and about text; 409 when the instance is not connected.',
          response: { 200: Device, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => account.device(instanceOf(request).id),
    );

    app.put(
      '/profile-name',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_profile-name',
          summary: 'Change the WhatsApp profile (push) name',
          description: 'The name contacts see beside your messages (WhatsApp allows 25 characters). Synced to the phone and its other devices.',
          body: Type.Object({ value: Type.String({ minLength: 1, maxLength: 25 }) }, { examples: [{ value: 'Acme Support' }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await account.setProfileName(instanceOf(request).id, request.body.value);
        return { value: true };
      },
    );

    app.put(
      '/profile-description',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_profile-description',
          summary: 'Change the profile description ("about")',
          description: 'WhatsApp allows 139 characters; `""` clears it.',
          body: Type.Object({ value: Type.String({ maxLength: 139 }) }, { examples: [{ value: 'Open 9am–6pm, Mon–Fri' }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 422, 504) },
        },
      },
      async (request) => {
        await account.setProfileDescription(instanceOf(request).id, request.body.value);
        return { value: true };
      },
    );

    app.put(
      '/profile-picture',
      {
        bodyLimit: mediaBodyLimit,
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_profile-picture',
          summary: 'Change the profile picture',
          description:
            '`value`: an https URL (fetched under the address guard, with the media size and time limits) or a base64 data URI. The image is decoded within the pixel limit and sent as a 640×640 JPEG. Not an image → 400; a URL that fails → 422 with the reason.',
          body: Type.Object({ value: Type.String({ minLength: 1 }) }, { examples: [{ value: EXAMPLE_IMAGE }] }),
          response: { 200: ValueTrue, ...errorResponses(409, 413, 422, 504) },
        },
      },
      async (request) => {
        await account.setProfilePicture(instanceOf(request).id, request.body.value);
        return { value: true };
      },
    );

    /** The three on/off settings share one shape: `{value: boolean}` → `{value: true}`. */
    const flag = (path: string, summary: string, description: string, toSetting: (value: boolean) => ReactionSetting) =>
      app.put(
        `/${path}`,
        {
          schema: {
            tags,
            'x-zapgate-scope': 'manage',
            operationId: `instance_${path}`,
            summary,
            description,
            body: Type.Object({ value: Type.Boolean() }, { examples: [{ value: true }] }),
            response: { 200: ValueTrue, ...errorResponses() },
          },
        },
        async (request) => {
          await account.updateReaction(instanceOf(request).id, toSetting(request.body.value));
          return { value: true };
        },
      );

    flag(
      'update-auto-read-message',
      'Mark every received message read',
      'Read receipts go to the sender as soon as the message is recorded (with read receipts disabled in privacy, only your own devices see it read). Stored per instance; applies from the next message.',
      (value) => ({ autoReadMessage: value }),
    );
    flag('update-auto-read-status', 'Mark every received status post read', 'Needs update-auto-read-message on too, as in Z-API.', (value) => ({ autoReadStatus: value }));
    flag(
      'update-call-reject-auto',
      'Reject incoming calls',
      'Every incoming call is rejected as it rings; the caller then gets the message of update-call-reject-message, if any (queued like any message). CALL_RECEIVED is still reported.',
      (value) => ({ callRejectAuto: value }),
    );

    app.put(
      '/update-call-reject-message',
      {
        schema: {
          tags,
          'x-zapgate-scope': 'manage',
          operationId: 'instance_update-call-reject-message',
          summary: 'The message sent to a caller after a rejected call',
          description: 'Sent only while update-call-reject-auto is on; `""` sends none.',
          body: Type.Object({ value: Type.String({ maxLength: 4096 }) }, { examples: [{ value: 'Sorry, we cannot take calls. Please send a message.' }] }),
          response: { 200: ValueTrue, ...errorResponses() },
        },
      },
      async (request) => {
        await account.updateReaction(instanceOf(request).id, { callRejectMessage: request.body.value });
        return { value: true };
      },
    );
  };
}
