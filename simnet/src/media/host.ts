// The HTTPS media host: clients upload encrypted media (POST /mms/<type>/<hash>) and download it by direct path.
// Blobs remember who uploaded them, so per-uploader download faults (delay, HTTP status, expiry) can be injected.
import { createServer, type Server } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mediaCerts } from './certs.js';
import type { Cancel, SimClock } from '../clock.js';

/** Caps stored media so a runaway test cannot eat the machine. */
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const MAX_UPLOAD = 100 * 1024 * 1024;

/** What GETs of blobs uploaded by one phone get instead of the bytes. */
export type MediaFault =
  /** Hold the response for `ms`, a guard on the host's clock (other downloads are not held). */
  | { kind: 'delay'; ms: number }
  /** Answer this HTTP status with no body. */
  | { kind: 'status'; code: number }
  /** 404, as WhatsApp's CDN answers for media past its retention; re-uploads (media retry) are exempt. */
  | { kind: 'expired' };

interface Blob {
  data: Buffer;
  /** Phone that uploaded it (a contact sending media); absent for uploads by linked devices. */
  uploader?: string;
  /** Uploaded again on a media-retry request: an 'expired' fault no longer applies to it. */
  reupload?: boolean;
}

export interface PutOptions {
  uploader?: string;
  reupload?: boolean;
}

export class MediaHost {
  private readonly blobs = new Map<string, Blob>();
  private readonly faults = new Map<string, MediaFault>();
  /** Downloads held by a delay fault: close() cancels them. */
  private readonly held = new Set<Cancel>();
  private total = 0;
  private server: Server | null = null;
  port = 0;
  readonly caPem: string;
  readonly auth = randomBytes(16).toString('base64url');

  /** `clock` times delay faults: a guard (clock.ts), how long this host makes a client wait. */
  constructor(
    private readonly host: string,
    private readonly clock: Pick<SimClock, 'setGuard'>,
  ) {
    this.caPem = mediaCerts().caPem;
  }

  /** host:port as media_conn advertises it (Baileys builds https://<hostname><path>). */
  get hostname(): string {
    return `${this.host}:${this.port}`;
  }

  async listen(port: number): Promise<void> {
    const certs = mediaCerts();
    const server = createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
      const url = new URL(req.url ?? '/', `https://${this.hostname}`);
      // Product images go to /product/image/<hash> (Baileys' MEDIA_PATH_MAP), the rest to /mms/<type>/<hash>.
      const upload = url.pathname.startsWith('/mms/') ? url.pathname.split('/')[2] : url.pathname.startsWith('/product/') ? 'product' : undefined;
      if (req.method === 'POST' && upload) {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_UPLOAD) req.destroy();
          else chunks.push(c);
        });
        req.on('end', () => {
          const directPath = this.put(Buffer.concat(chunks), upload || 'file');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ url: `https://${this.hostname}${directPath}`, direct_path: directPath }));
        });
        return;
      }
      if (req.method === 'GET') {
        const blob = this.blobs.get(url.pathname);
        const fault = blob?.uploader ? this.faults.get(blob.uploader) : undefined;
        const serve = () => {
          if (!blob) return void res.writeHead(404).end();
          res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.data.length });
          res.end(blob.data);
        };
        if (!fault) return serve();
        switch (fault.kind) {
          case 'expired':
            if (blob?.reupload) return serve();
            return void res.writeHead(404).end();
          case 'status':
            return void res.writeHead(fault.code).end();
          case 'delay': {
            const cancel = this.clock.setGuard(fault.ms, () => {
              this.held.delete(cancel);
              serve();
            });
            this.held.add(cancel);
            res.on('close', () => {
              cancel();
              this.held.delete(cancel);
            });
            return;
          }
        }
      }
      res.writeHead(405).end();
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
  }

  /** Stores an encrypted blob and returns its direct path. */
  put(data: Buffer, kind: string, opts: PutOptions = {}): string {
    const path = `/v/t62.${kind}-24/${randomBytes(12).toString('hex')}.enc`;
    this.total += data.length;
    // Oldest blobs go first when the cap is reached.
    while (this.total > MAX_TOTAL_BYTES && this.blobs.size) {
      const [k, v] = this.blobs.entries().next().value as [string, Blob];
      this.blobs.delete(k);
      this.total -= v.data.length;
    }
    this.blobs.set(path, { data, uploader: opts.uploader, reupload: opts.reupload });
    return path;
  }

  /** Finds a blob by direct path or full URL (faults do not apply: this is simnet reading its own store). */
  get(pathOrUrl: string): Buffer | undefined {
    const path = pathOrUrl.startsWith('http') ? new URL(pathOrUrl).pathname : pathOrUrl.split('?')[0]!;
    return this.blobs.get(path)?.data;
  }

  /** Sets (or clears, with null) the fault that downloads of `uploader`'s blobs get. */
  setFault(uploader: string, fault: MediaFault | null): void {
    if (fault) this.faults.set(uploader, fault);
    else this.faults.delete(uploader);
  }

  fault(uploader: string): MediaFault | undefined {
    return this.faults.get(uploader);
  }

  async close(): Promise<void> {
    for (const cancel of this.held) cancel();
    this.held.clear();
    const s = this.server;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
