// simnet's public entry: startSimnet() runs the offline WhatsApp network (websocket + admin API + media host) on loopback.
import { Simnet } from './server/simnet.js';
import { MediaHost } from './media/host.js';
import { makeAdminHandler } from './admin/http.js';
import { AdminApi } from './admin/api.js';
import type { SimnetOptions } from './config.js';
import type { SimnetInfo } from './admin/types.js';
import { TimeLapseClock, type SimClock } from './clock.js';

export type { SimnetOptions, ReceiptPolicy, SpamPolicy } from './config.js';
export { DEFAULT_AUTO_USER_PATTERN } from './config.js';
export { SimnetClient, SimnetError } from './admin/client.js';
export type * from './admin/types.js';
export { keyPairFromSeed } from './cert.js';
export { TimeLapseClock, type SimClock, type Cancel } from './clock.js';

export interface RunningSimnet extends SimnetInfo {
  /** The in-process network, for tests that want to reach inside (events, registry). */
  readonly net: Simnet;
  readonly admin: AdminApi;
  /** The clock the network keeps time by (the one passed in, or its time-lapse). */
  readonly clock: SimClock;
  /**
   * Where the time-lapse starts (ms since the epoch): a gateway talking to this network under the
   * same time scale needs it as its ZAPGATE_TIME_ORIGIN. Undefined when a clock was passed in.
   */
  readonly timeOrigin: number | undefined;
  /** The root public key as raw bytes (what WA_CERT_DETAILS.PUBLIC_KEY must hold). */
  readonly rootPublicKeyBytes: Buffer;
  close(): Promise<void>;
}

export async function startSimnet(opts: SimnetOptions = {}): Promise<RunningSimnet> {
  const net = new Simnet(opts);
  const media = new MediaHost(net.config.host, net.clock);
  await media.listen(net.config.mediaPort);
  net.media = media;
  let info: SimnetInfo | null = null;
  net.setAdminHandler(makeAdminHandler(net, () => info!));
  const port = await net.listen();
  const origin = `${net.config.host}:${port}`;
  info = {
    wsUrl: `ws://${origin}/ws/chat`,
    adminUrl: `http://${origin}/admin`,
    rootPublicKey: net.root.public.toString('base64'),
    mediaCaPem: media.caPem,
    mediaHost: media.hostname,
  };
  return {
    ...info,
    net,
    admin: new AdminApi(net),
    clock: net.clock,
    timeOrigin: net.clock instanceof TimeLapseClock ? net.clock.origin : undefined,
    rootPublicKeyBytes: Buffer.from(net.root.public),
    close: () => net.close(),
  };
}
