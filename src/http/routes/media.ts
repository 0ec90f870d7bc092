// Received media at signed links (no token: the link is the credential, like a presigned URL).
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { MediaService } from '../../services/media-service.js';
import { errorResponses } from '../schemas/common.js';

export function mediaRoutes(media: MediaService): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/media/:id',
      {
        schema: {
          tags: ['webhooks'],
          'x-zapgate-scope': 'public',
          operationId: 'media_get',
          summary: 'A received media file, at the signed link a webhook carried',
          description:
            'The links in `ReceivedCallback` payloads (`imageUrl`, `audioUrl`, `videoUrl`, `documentUrl`, `stickerUrl`, `thumbnailUrl`) point here. The link itself is the credential: it is signed by the gateway and expires with the file (ZAPGATE_RECEIVED_MEDIA_RETENTION_DAYS, 30 days by default, as Z-API). A changed or expired link answers 403, an unknown or deleted file 404. The link works as soon as the webhook is sent: when the download from WhatsApp has not finished it waits for it (up to 30 s), a failed download is tried again (asking the sender\'s phone to upload the file again when WhatsApp no longer has it), and 502 with `Retry-After` says the file cannot be had right now.',
          security: [],
          params: Type.Object({ id: Type.String({ maxLength: 300, description: 'From the link in the webhook.', examples: ['4f0c2a9e1b7d5c3a8e6f0b2d4c6a8e0f.jpg'] }) }),
          querystring: Type.Object({ exp: Type.Optional(Type.String({ maxLength: 20 })), sig: Type.Optional(Type.String({ maxLength: 100 })) }),
          response: {
            200: { description: 'The file, with its media type (and its name in `content-disposition` for documents).', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            ...errorResponses(403, 502),
          },
        },
      },
      async (request, reply) => {
        const file = await media.open(request.params.id, request.query.exp, request.query.sig);
        reply.header('content-type', file.mimetype).header('content-length', file.size).header('cache-control', 'private, max-age=86400');
        if (file.fileName) reply.header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
        return reply.send(file.stream);
      },
    );
  };
}
