// loadConfig: the documented defaults, values parsed to their types, and a bad value rejected
// with an error that names the variable at fault.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  test('defaults (docs/contract.md §10) with an empty environment', () => {
    const c = loadConfig({});
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.port, 3000);
    assert.equal(c.dataDir, './data');
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.bootstrapClientToken, undefined);
    assert.equal(c.waUrl, undefined);
    assert.equal(c.waRootKey, undefined);
    assert.equal(c.webhookAllowHttp, false);
    assert.deepEqual(c.allowHosts, []);
    assert.equal(c.timeScale, 1);
    assert.equal(c.timeOrigin, undefined, 'a time-lapse clock starts with the process unless told');
    assert.equal(c.shutdownTimeoutMs, 25000, 'a SIGTERM drain is bounded (docs/cluster.md, Rolling deploys)');
    assert.equal(c.queueMaxDisconnected, 1000);
    assert.equal(c.rateLimitPerSecond, 100);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.commandTimeoutMs, 30_000);
    assert.equal(c.bodyLimit, 1024 * 1024);
    assert.equal(c.mediaBodyLimit, 16 * 1024 * 1024);
    assert.equal(c.pacing, true);
  });

  test('an empty string counts as unset', () => {
    const c = loadConfig({ ZAPGATE_PORT: '', ZAPGATE_LOG_LEVEL: '', ZAPGATE_CLIENT_TOKEN: '' });
    assert.equal(c.port, 3000);
    assert.equal(c.logLevel, 'info');
    assert.equal(c.bootstrapClientToken, undefined);
  });

  test('values are parsed to their types', () => {
    const c = loadConfig({
      ZAPGATE_HOST: '127.0.0.1',
      ZAPGATE_PORT: '0',
      ZAPGATE_DATA_DIR: '/var/lib/zapgate',
      ZAPGATE_DATABASE_URL: 'postgresql://u@db:5432/zap',
      ZAPGATE_CLIENT_TOKEN: 'A'.repeat(40),
      ZAPGATE_WA_URL: 'wss://127.0.0.1:9443/ws/chat',
      ZAPGATE_WA_ROOT_KEY: 'AAAA+/==',
      ZAPGATE_WEBHOOK_ALLOW_HTTP: 'true',
      ZAPGATE_ALLOW_HOSTS: ' 127.0.0.1, ,hooks.internal ,10.0.0.0/8',
      ZAPGATE_TIME_SCALE: '0.001',
      ZAPGATE_TIME_ORIGIN: '1700000000000',
      ZAPGATE_QUEUE_MAX_DISCONNECTED: '0',
      ZAPGATE_RATE_LIMIT: '0',
      ZAPGATE_LOG_LEVEL: 'trace',
      ZAPGATE_COMMAND_TIMEOUT_MS: '5000',
      ZAPGATE_SHUTDOWN_TIMEOUT_MS: '40000',
      ZAPGATE_BODY_LIMIT: '2048',
      ZAPGATE_MEDIA_BODY_LIMIT: '4096',
      ZAPGATE_PACING: 'off',
      UNRELATED: 'ignored',
    });
    assert.equal(c.host, '127.0.0.1');
    assert.equal(c.port, 0);
    assert.equal(c.dataDir, '/var/lib/zapgate');
    assert.equal(c.databaseUrl, 'postgresql://u@db:5432/zap');
    assert.equal(c.bootstrapClientToken, 'A'.repeat(40));
    assert.equal(c.waUrl, 'wss://127.0.0.1:9443/ws/chat');
    assert.equal(c.waRootKey, 'AAAA+/==');
    assert.equal(c.webhookAllowHttp, true);
    assert.deepEqual(c.allowHosts, ['127.0.0.1', 'hooks.internal', '10.0.0.0/8']);
    assert.equal(c.timeScale, 0.001);
    assert.equal(c.timeOrigin, 1_700_000_000_000);
    assert.equal(c.createGroupWaitMs, 5_000, 'a wait on the network is a guard: never scaled');
    assert.equal(c.queueMaxDisconnected, 0);
    assert.equal(c.rateLimitPerSecond, 0);
    assert.equal(c.logLevel, 'trace');
    assert.equal(c.commandTimeoutMs, 5000);
    assert.equal(c.shutdownTimeoutMs, 40000);
    assert.equal(c.bodyLimit, 2048);
    assert.equal(c.mediaBodyLimit, 4096);
    assert.equal(c.pacing, false);
  });

  test('the result is frozen', () => {
    const c = loadConfig({});
    assert.ok(Object.isFrozen(c));
    assert.ok(Object.isFrozen(c.allowHosts));
    assert.throws(() => {
      (c as { port: number }).port = 1;
    }, TypeError);
  });

  test('cluster mode: off without a secret; with one it needs PostgreSQL and names this node', () => {
    assert.equal(loadConfig({}).cluster, null);
    const pg = 'postgres://db/zap';
    const c = loadConfig({ ZAPGATE_DATABASE_URL: pg, ZAPGATE_CLUSTER_SECRET: 's'.repeat(32), ZAPGATE_PORT: '3100', ZAPGATE_NODE_ID: 'node-a', ZAPGATE_NODE_URL: 'http://10.0.0.5:3100/' });
    assert.deepEqual(c.cluster, { secret: 's'.repeat(32), nodeId: 'node-a', nodeUrl: 'http://10.0.0.5:3100', heartbeatMs: 3_000, leaseMs: 15_000 });
    const d = loadConfig({ ZAPGATE_DATABASE_URL: pg, ZAPGATE_CLUSTER_SECRET: 's'.repeat(32), ZAPGATE_PORT: '3100' });
    assert.match(d.cluster?.nodeId ?? '', /:3100$/, 'host name and port by default');
    const refused: [Record<string, string>, RegExp][] = [
      [{ ZAPGATE_CLUSTER_SECRET: 's'.repeat(32) }, /ZAPGATE_CLUSTER_SECRET: cluster mode needs PostgreSQL/],
      [{ ZAPGATE_NODE_ID: 'a' }, /ZAPGATE_NODE_ID: is a cluster setting/],
      [{ ZAPGATE_DATABASE_URL: pg, ZAPGATE_CLUSTER_SECRET: 'short' }, /ZAPGATE_CLUSTER_SECRET/],
      [{ ZAPGATE_DATABASE_URL: pg, ZAPGATE_CLUSTER_SECRET: 's'.repeat(32), ZAPGATE_CLUSTER_HEARTBEAT_MS: '3000', ZAPGATE_CLUSTER_LEASE_MS: '5000' }, /ZAPGATE_CLUSTER_LEASE_MS: must be at least 3 heartbeats/],
    ];
    for (const [env, message] of refused) assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && message.test(e.message), JSON.stringify(env));
    assert.throws(() => loadConfig({ ZAPGATE_DATABASE_URL: pg, ZAPGATE_CLUSTER_SECRET: 'x'.repeat(8) }), (e: unknown) => e instanceof ConfigError && !e.message.includes('x'.repeat(8)), 'the secret is never echoed');
  });

  test('a bad value throws ConfigError naming the variable', () => {
    const bad: [string, string][] = [
      ['ZAPGATE_PORT', 'abc'],
      ['ZAPGATE_PORT', '70000'],
      ['ZAPGATE_PORT', '-1'],
      ['ZAPGATE_DATABASE_URL', 'mysql://db/zap'],
      ['ZAPGATE_CLIENT_TOKEN', 'short'],
      ['ZAPGATE_WA_URL', 'https://web.whatsapp.com'],
      ['ZAPGATE_WA_ROOT_KEY', 'not base64!'],
      ['ZAPGATE_WEBHOOK_ALLOW_HTTP', 'yes'],
      ['ZAPGATE_TIME_SCALE', '0'],
      ['ZAPGATE_TIME_SCALE', 'fast'],
      ['ZAPGATE_TIME_SCALE', '-1'],
      ['ZAPGATE_TIME_ORIGIN', 'now'],
      ['ZAPGATE_TIME_ORIGIN', '-1'],
      ['ZAPGATE_QUEUE_MAX_DISCONNECTED', '-5'],
      ['ZAPGATE_RATE_LIMIT', '1.5'],
      ['ZAPGATE_LOG_LEVEL', 'loud'],
      ['ZAPGATE_COMMAND_TIMEOUT_MS', '30s'],
      ['ZAPGATE_SHUTDOWN_TIMEOUT_MS', '0'],
      ['ZAPGATE_BODY_LIMIT', '1MB'],
      ['ZAPGATE_MEDIA_BODY_LIMIT', 'big'],
      ['ZAPGATE_PACING', 'maybe'],
    ];
    for (const [variable, value] of bad) {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, `${variable}=${value}: ${String(err)}`);
          assert.equal(err.variable, variable);
          assert.match(err.message, new RegExp(`^${variable}: `));
          return true;
        },
        `${variable}=${value} was accepted`,
      );
    }
  });

  test('enumerated values say what is allowed', () => {
    assert.throws(() => loadConfig({ ZAPGATE_LOG_LEVEL: 'loud' }), /one of fatal, error, warn, info, debug, trace, silent/);
    assert.throws(() => loadConfig({ ZAPGATE_PACING: 'maybe' }), /one of on, off/);
  });
});

test('an invalid secret variable is named but its value is never echoed', () => {
  for (const [variable, value] of [
    ['ZAPGATE_CLIENT_TOKEN', 'short-secret'],
    ['ZAPGATE_DATABASE_URL', 'mysql://user:hunter2@db/x'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (err: Error) => err.message.includes(variable) && !err.message.includes(value) && !err.message.includes('hunter2'),
    );
  }
});

describe('loadConfig: HTTP connection limits', () => {
  test('defaults: headers 10 s, body 60 s, request 120 s, keep-alive 5 s, 1024 connections, 128 per address', () => {
    assert.deepEqual(
      { ...loadConfig({}).http },
      { headersTimeoutMs: 10_000, bodyTimeoutMs: 60_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000, maxConnections: 1024, maxConnectionsPerAddress: 128 },
    );
  });

  test('a headers timeout longer than the body timeout is refused, naming the variable', () => {
    assert.throws(
      () => loadConfig({ ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: '90000', ZAPGATE_HTTP_BODY_TIMEOUT_MS: '60000' }),
      (err: unknown) => err instanceof ConfigError && err.variable === 'ZAPGATE_HTTP_HEADERS_TIMEOUT_MS',
    );
    assert.throws(() => loadConfig({ ZAPGATE_HTTP_MAX_CONNECTIONS: '0' }), (err: unknown) => err instanceof ConfigError && err.variable === 'ZAPGATE_HTTP_MAX_CONNECTIONS');
  });
});

test('the media store: the data dir alone, PostgreSQL in cluster mode, the bucket when one is set; misconfigurations refused', () => {
  const pg = { ZAPGATE_DATABASE_URL: 'postgres://u@db/z' };
  const cluster = { ...pg, ZAPGATE_CLUSTER_SECRET: 'a-secret-of-sixteen+' };
  assert.deepEqual(loadConfig({}).mediaStore, { kind: 'directory' });
  assert.deepEqual(loadConfig(pg).mediaStore, { kind: 'directory' });
  assert.deepEqual(loadConfig(cluster).mediaStore, { kind: 'postgres' });
  assert.deepEqual(loadConfig({ ...cluster, ZAPGATE_MEDIA_STORE: 'directory' }).mediaStore, { kind: 'directory' });
  const s3 = loadConfig({ ...cluster, ZAPGATE_S3_BUCKET: 'media', ZAPGATE_S3_ENDPOINT: 'http://minio:9000/', ZAPGATE_S3_FORCE_PATH_STYLE: 'true', ZAPGATE_S3_ACCESS_KEY_ID: 'k', ZAPGATE_S3_SECRET_ACCESS_KEY: 's', ZAPGATE_S3_SSE: 'aws:kms', ZAPGATE_S3_SSE_KMS_KEY_ID: 'key-1' }).mediaStore;
  assert.deepEqual(s3, {
    kind: 's3',
    s3: { bucket: 'media', prefix: '', endpoint: 'http://minio:9000', forcePathStyle: true, region: 'us-east-1', credentials: { accessKeyId: 'k', secretAccessKey: 's' }, sse: 'aws:kms', sseKmsKeyId: 'key-1' },
  });
  assert.throws(() => loadConfig({ ZAPGATE_MEDIA_STORE: 'postgres' }), (e: unknown) => e instanceof ConfigError && e.variable === 'ZAPGATE_MEDIA_STORE');
  assert.throws(() => loadConfig({ ZAPGATE_MEDIA_STORE: 's3' }), (e: unknown) => e instanceof ConfigError && e.variable === 'ZAPGATE_S3_BUCKET');
  assert.throws(() => loadConfig({ ZAPGATE_S3_BUCKET: 'media', ZAPGATE_S3_ACCESS_KEY_ID: 'k' }), (e: unknown) => e instanceof ConfigError && e.variable === 'ZAPGATE_S3_ACCESS_KEY_ID');
  assert.throws(() => loadConfig({ ZAPGATE_MEDIA_STORE: 'bucket' }), (e: unknown) => e instanceof ConfigError && e.variable === 'ZAPGATE_MEDIA_STORE');
});
