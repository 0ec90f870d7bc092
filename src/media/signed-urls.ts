// Unguessable, expiring links to received media: `/media/<id>?exp=<unix s>&sig=<HMAC>`. The link
// is the credential (like a presigned object-store URL), so a webhook receiver can fetch the file
// without the instance's tokens; changing the id or the expiry breaks the signature.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class MediaUrlSigner {
  constructor(
    private readonly key: Buffer,
    /** The gateway's public base URL (no trailing slash), read when a link is made. */
    private readonly baseUrl: () => string,
  ) {}

  url(id: string, expiresAtMs: number): string {
    const exp = Math.floor(expiresAtMs / 1000);
    return `${this.baseUrl()}/media/${encodeURIComponent(id)}?exp=${exp}&sig=${this.sign(id, exp)}`;
  }

  /** 'ok', or why the link is refused. */
  check(id: string, exp: string | undefined, sig: string | undefined, nowMs: number): 'ok' | 'bad-signature' | 'expired' {
    if (!exp || !sig || !/^\d{1,12}$/.test(exp)) return 'bad-signature';
    const expected = Buffer.from(this.sign(id, Number(exp)));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
    return Number(exp) * 1000 <= nowMs ? 'expired' : 'ok';
  }

  private sign(id: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${id}\n${exp}`).digest('base64url');
  }
}
