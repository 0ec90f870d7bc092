// A live link's media access for received files (media-download.ts): the network's media host,
// and asking the sender's phone to upload a file again once its link expired.
import type { MediaNetwork } from './inbound-media.js';
import { sourceOf } from './incoming-media.js';
import type { LiveSession } from '../live-session.js';
import type { MediaSource } from './media-download.js';

/** The session's media access, or null while it has no open link. */
export function mediaNetworkOf(session: LiveSession): MediaNetwork | null {
  const sock = session.sock;
  if (!sock || !session.open) return null;
  return {
    mediaHost: async () => {
      const conn = await sock.refreshMediaConn(false);
      const host = conn.hosts[0]?.hostname;
      if (!host) throw new Error('the network named no media host');
      return host;
    },
    reupload: async (messageId: string, source: MediaSource) => {
      const stored = await session.memory.quoted(messageId);
      if (!stored) throw new Error('the message is no longer known: its media cannot be asked for again');
      const updated = await sock.updateMediaMessage(stored);
      const content = updated.message ? Object.values(updated.message).find((v) => (v as { directPath?: string } | null)?.directPath) : undefined;
      const fresh = content ? sourceOf(content as Parameters<typeof sourceOf>[0], source.mediaType) : null;
      if (!fresh) throw new Error('the sender\'s phone did not upload the file again');
      return fresh;
    },
  };
}
