// The media store in an S3-compatible bucket (AWS S3, MinIO, R2, Ceph…), shared by every node of a
// cluster: objects `<prefix><2 hex>/<sha256>`, content-addressed like the directory store, uploaded
// streamed from the local temp file (one PUT, the length known, nothing held in memory) and read
// streamed. The bucket needs no public access: the gateway serves its own signed links
// (media/signed-urls.ts) from whichever node a request reaches (docs/cluster.md).
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client, type ServerSideEncryption } from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.js';
import type { MediaStore } from './store.js';
import { SHA } from './store.js';
import { Staging } from './staging.js';

export class S3MediaStore implements MediaStore {
  private readonly client: S3Client;
  private readonly staging: Staging;

  constructor(
    private readonly s3: S3Settings,
    /** Local directory for downloads being received (emptied at start). */
    tempDir: string,
  ) {
    this.staging = new Staging(tempDir);
    this.client = new S3Client({
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
      ...(s3.credentials ? { credentials: { ...s3.credentials } } : {}),
      // Checksums only where the API requires them: a streamed body would otherwise be sent with
      // trailing checksums (aws-chunked), which several S3-compatible services do not accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private key(sha256: string): string {
    if (!SHA.test(sha256)) throw new Error(`not a content address: ${sha256}`);
    return `${this.s3.prefix}${sha256.slice(0, 2)}/${sha256}`;
  }

  private encryption(): { ServerSideEncryption?: ServerSideEncryption; SSEKMSKeyId?: string } {
    return {
      ...(this.s3.sse ? { ServerSideEncryption: this.s3.sse as ServerSideEncryption } : {}),
      ...(this.s3.sseKmsKeyId ? { SSEKMSKeyId: this.s3.sseKmsKeyId } : {}),
    };
  }

  tempPath(): Promise<string> {
    return this.staging.path();
  }

  /** The stored object's size, or null when there is none. */
  async size(sha256: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.s3.bucket, Key: this.key(sha256) }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async adopt(tempPath: string, sha256: string): Promise<void> {
    try {
      if ((await this.size(sha256)) !== null) return; // content-addressed: the copy there is the same file
      const { size } = await stat(tempPath);
      await this.client.send(
        new PutObjectCommand({ Bucket: this.s3.bucket, Key: this.key(sha256), Body: createReadStream(tempPath), ContentLength: size, ...this.encryption() }),
      );
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  /** An object is whole once the PUT answers: `durable` needs nothing more. */
  async put(bytes: Buffer, options: { sha256?: string; durable?: boolean } = {}): Promise<string> {
    const sha256 = options.sha256 ?? createHash('sha256').update(bytes).digest('hex');
    await this.client.send(new PutObjectCommand({ Bucket: this.s3.bucket, Key: this.key(sha256), Body: bytes, ContentLength: bytes.length, ...this.encryption() }));
    return sha256;
  }

  async read(sha256: string): Promise<Buffer | null> {
    const file = await this.open(sha256);
    if (!file) return null;
    const parts: Buffer[] = [];
    for await (const chunk of file.stream) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  }

  async open(sha256: string): Promise<{ stream: Readable; size: number } | null> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.s3.bucket, Key: this.key(sha256) }));
      return { stream: r.Body as Readable, size: r.ContentLength ?? 0 };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async remove(sha256: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.s3.bucket, Key: this.key(sha256) }));
  }

  async list(): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.s3.bucket, Prefix: this.s3.prefix, ...(token ? { ContinuationToken: token } : {}) }));
      for (const o of page.Contents ?? []) {
        const rest = o.Key?.slice(this.s3.prefix.length) ?? '';
        // Only our own layout: anything else under the prefix is not ours to sweep.
        if (/^[0-9a-f]{2}\/[0-9a-f]{64}$/.test(rest) && rest.slice(0, 2) === rest.slice(3, 5)) out.push(rest.slice(3));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  close(): void {
    this.client.destroy();
  }
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
}
