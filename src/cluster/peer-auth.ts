// How nodes prove a forwarded request comes from another node of the cluster: an HMAC of the
// method, the path and a timestamp under ZAPGATE_CLUSTER_SECRET. A forwarded request is handled
// where it lands, never forwarded again (no loops while ownership moves).
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a forwarded request's timestamp may be from this node's clock. */
const MAX_SKEW_MS = 60_000;

export class PeerAuth {
  constructor(
    private readonly secret: string,
    /** The gateway's clock (nodes of one cluster share its origin, so their times agree). */
    private readonly now: () => number,
  ) {}

  sign(method: string, path: string, now = this.now()): string {
    return `${now}.${this.mac(method, path, now)}`;
  }

  verify(header: string | undefined, method: string, path: string, now = this.now()): boolean {
    if (!header) return false;
    const dot = header.indexOf('.');
    const at = Number(header.slice(0, dot));
    if (dot <= 0 || !Number.isSafeInteger(at) || Math.abs(now - at) > MAX_SKEW_MS) return false;
    const given = Buffer.from(header.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.mac(method, path, at), 'utf8');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(method: string, path: string, at: number): string {
    return createHmac('sha256', this.secret).update(`${method.toUpperCase()}\n${path}\n${at}`).digest('base64url');
  }
}
