// A real S3-protocol server (s3rver) on loopback, in a temp dir, for the S3 media store's tests:
// the store talks to it with the AWS SDK exactly as it would to a bucket elsewhere.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3Settings } from '../../src/config.js';

export interface TestS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** The settings a gateway (or an S3MediaStore) needs to use the bucket, under `prefix`. */
  settings(prefix?: string): S3Settings;
  /** The environment a gateway process needs to keep its media in the bucket. */
  env(prefix?: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'zapgate-media'): Promise<TestS3> {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    settings: (prefix = 'media/') => ({
      bucket,
      prefix,
      endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      // s3rver's fixed credentials.
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      sse: 'AES256',
      sseKmsKeyId: undefined,
    }),
    env: (prefix = 'media/') => ({
      ZAPGATE_MEDIA_STORE: 's3',
      ZAPGATE_S3_BUCKET: bucket,
      ZAPGATE_S3_PREFIX: prefix,
      ZAPGATE_S3_ENDPOINT: endpoint,
      ZAPGATE_S3_FORCE_PATH_STYLE: 'true',
      ZAPGATE_S3_ACCESS_KEY_ID: 'S3RVER',
      ZAPGATE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      ZAPGATE_S3_SSE: 'AES256',
    }),
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
