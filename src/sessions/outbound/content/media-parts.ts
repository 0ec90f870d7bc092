// Media: images, stickers, voice notes, videos, PTVs, GIFs and documents. Everything Baileys would
// otherwise compute from the media itself (thumbnail, size, length, waveform) is given here, from
// the bounded conversions of the media pipeline: the engine never decodes user media.
import type { AnyMessageContent } from 'baileys';
import type { PreparedImage } from '../../../convert/image.js';
import type { PreparedVideo } from '../../../convert/av.js';
import { mimetypeOfExtension } from '../../../convert/document.js';
import type { MediaOutgoingContent, OutgoingContent } from '../../../domain/outgoing.js';
import { sendFailures } from '../../../domain/send-failure.js';
import type { MediaPipeline } from '../media.js';
import type { ContentInput, SendPart } from './parts.js';

type MediaContent = Extract<OutgoingContent, { type: 'image' | 'sticker' }> | MediaOutgoingContent;

export async function mediaParts(c: MediaContent, { messageId, mention, ctx }: ContentInput): Promise<SendPart[]> {
  switch (c.type) {
    case 'image': {
      const content = {
        ...imageContent(await ctx.media.image(c.image)),
        ...(c.caption ? { caption: c.caption } : {}),
        ...(c.viewOnce ? { viewOnce: true } : {}),
        ...mention,
      };
      return [{ messageId, content: { ...content } as AnyMessageContent }];
    }
    case 'sticker': {
      const webp = await ctx.media.sticker(c.sticker);
      return [{ messageId, content: { sticker: webp, mimetype: 'image/webp', width: 512, height: 512, ...mention } as AnyMessageContent }];
    }
    default:
      return [{ messageId, content: { ...(await mediaContent(c, ctx.media)), ...mention } as AnyMessageContent }];
  }
}

export function imageContent(img: PreparedImage): Record<string, unknown> {
  return { image: img.data, mimetype: img.mimetype, width: img.width, height: img.height, jpegThumbnail: img.thumbnail.toString('base64') };
}

export function videoContent(v: PreparedVideo): Record<string, unknown> {
  return {
    video: v.data,
    mimetype: v.mimetype,
    width: v.width,
    height: v.height,
    seconds: v.seconds,
    // An empty string still tells Baileys not to run its own ffmpeg for a thumbnail.
    jpegThumbnail: v.thumbnail ? v.thumbnail.toString('base64') : '',
  };
}

async function mediaContent(c: MediaOutgoingContent, media: MediaPipeline): Promise<Record<string, unknown>> {
  switch (c.type) {
    case 'audio': {
      const a = await media.voiceNote(c.audio);
      return {
        audio: a.data,
        mimetype: a.mimetype,
        ptt: true,
        seconds: a.seconds,
        // Without a waveform WhatsApp draws a flat line; `waveform: false` asks for exactly that.
        waveform: c.waveform === false ? new Uint8Array(0) : a.waveform,
        ...(c.viewOnce ? { viewOnce: true } : {}),
      };
    }
    case 'video':
      return { ...videoContent(await media.video(c.video, 'video')), ...(c.caption ? { caption: c.caption } : {}), ...(c.viewOnce ? { viewOnce: true } : {}) };
    case 'ptv':
      return { ...videoContent(await media.video(c.video, 'ptv')), ptv: true };
    case 'gif':
      return { ...videoContent(await media.video(c.gif, 'gif')), gifPlayback: true, ...(c.caption ? { caption: c.caption } : {}) };
    case 'document':
      return {
        document: await media.load(c.document, 'document'),
        mimetype: mimetypeOfExtension(c.extension),
        fileName: c.fileName ?? `file.${c.extension}`,
        ...(c.caption ? { caption: c.caption } : {}),
      };
  }
}

/** True when sending this content downloads, converts or uploads media. */
export function carriesMedia(c: OutgoingContent): boolean {
  switch (c.type) {
    case 'image':
    case 'sticker':
    case 'audio':
    case 'video':
    case 'ptv':
    case 'gif':
    case 'document':
      return true;
    case 'button-list':
      return c.image !== undefined || c.video !== undefined;
    case 'product':
      return true;
    default:
      return false;
  }
}

/**
 * The engine's failures that are about media, in the sender's terms: Baileys reports a media
 * host that did not take the upload as a link-like 500, which must not read as "not connected".
 */
export function asSendFailure(err: unknown): unknown {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 3; e = e.cause, depth++) {
    if (/media upload failed/i.test(e.message)) return sendFailures.uploadFailed('media upload to the network failed', err);
  }
  return err;
}
