// Where history-sync blobs are downloaded from. Baileys fetches them (inside its message handling)
// from WhatsApp's media host by path, https://mmg.whatsapp.net/<directPath>, with Node's fetch and
// the socket's `options.dispatcher`. A test network (ZAPGATE_WA_MEDIA_HOST) serves them elsewhere,
// with its own CA: this dispatcher sends those requests there. With neither set, none is made and
// Baileys' download is untouched.
import { Agent, type Dispatcher } from 'undici';

/** The host Baileys builds history-blob URLs with (Baileys' DEF_MEDIA_HOST). */
const WHATSAPP_MEDIA_ORIGIN = 'https://mmg.whatsapp.net';

export interface HistoryDownloadSettings {
  /** `host[:port]` of the network's media host (ZAPGATE_WA_MEDIA_HOST); WhatsApp's when unset. */
  mediaHost?: string | undefined;
  /** Extra CA the media host's certificate chains to (a test network's). */
  ca?: string | Buffer | readonly (string | Buffer)[] | undefined;
}

/** One per process (a pool of connections), or undefined when Baileys' default fetch will do. */
export function historyDispatcher(settings: HistoryDownloadSettings): Dispatcher | undefined {
  if (!settings.mediaHost && settings.ca === undefined) return undefined;
  const agent = new Agent({ connections: 4, ...(settings.ca === undefined ? {} : { connect: { ca: settings.ca as string | Buffer | (string | Buffer)[] } }) });
  const origin = settings.mediaHost ? `https://${settings.mediaHost}` : undefined;
  if (!origin) return agent;
  return agent.compose((dispatch) => (opts, handler) => dispatch(String(opts.origin) === WHATSAPP_MEDIA_ORIGIN ? { ...opts, origin } : opts, handler));
}
