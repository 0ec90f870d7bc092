// The HTTPS media host: clients upload encrypted media (POST /mms/<type>/<hash>) and download it by direct path.
import { createServer, type Server } from 'node:https';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { mediaCerts } from './certs.js';

/** Caps stored media so a runaway test cannot eat the machine. */
const MAX_TOTAL_BYTES = 512 * 1024 * 1024;
const MAX_UPLOAD = 100 * 1024 * 1024;

export class MediaHost {
  private readonly blobs = new Map<string, Buffer>();
  private total = 0;
  private server: Server | null = null;
  port = 0;
  readonly caPem: string;
  readonly auth = randomBytes(16).toString('base64url');

  constructor(private readonly host: string) {
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
      if (req.method === 'POST' && url.pathname.startsWith('/mms/')) {
        const chunks: Buffer[] = [];
        let size = 0;
        req.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_UPLOAD) req.destroy();
          else chunks.push(c);
        });
        req.on('end', () => {
          const directPath = this.put(Buffer.concat(chunks), url.pathname.split('/')[2] ?? 'file');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ url: `https://${this.hostname}${directPath}`, direct_path: directPath }));
        });
        return;
      }
      if (req.method === 'GET') {
        const blob = this.blobs.get(url.pathname);
        if (!blob) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length });
        res.end(blob);
        return;
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
  put(data: Buffer, kind: string): string {
    const path = `/v/t62.${kind}-24/${randomBytes(12).toString('hex')}.enc`;
    this.total += data.length;
    // Oldest blobs go first when the cap is reached.
    while (this.total > MAX_TOTAL_BYTES && this.blobs.size) {
      const [k, v] = this.blobs.entries().next().value as [string, Buffer];
      this.blobs.delete(k);
      this.total -= v.length;
    }
    this.blobs.set(path, data);
    return path;
  }

  /** Finds a blob by direct path or full URL. */
  get(pathOrUrl: string): Buffer | undefined {
    const path = pathOrUrl.startsWith('http') ? new URL(pathOrUrl).pathname : pathOrUrl.split('?')[0]!;
    return this.blobs.get(path);
  }

  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    s.closeAllConnections?.();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
