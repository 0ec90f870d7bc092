// The only reader of process.env: one schema, validated at boot, frozen.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { hostname } from 'node:os';
import type { MediaLimits } from './convert/limits.js';


/** Environment variables zapgate reads, with their allowed values and defaults. */
const EnvSchema = Type.Object({
  ZAPGATE_HOST: Type.String({ default: '0.0.0.0', minLength: 1 }),
  ZAPGATE_PORT: Type.String({ default: '3000', pattern: '^[0-9]{1,5}$' }),
  ZAPGATE_DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  ZAPGATE_DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  ZAPGATE_CLIENT_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  ZAPGATE_WA_URL: Type.Optional(Type.String({ pattern: '^wss?://' })),
  ZAPGATE_WA_ROOT_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]+={0,2}$' })),
  ZAPGATE_WA_MEDIA_HOST: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9.-]+(:[0-9]{1,5})?$' })),
  ZAPGATE_WEBHOOK_ALLOW_HTTP: Type.String({ default: 'false', enum: ['true', 'false'] }),
  ZAPGATE_ALLOW_HOSTS: Type.String({ default: '' }),
  ZAPGATE_TIME_SCALE: Type.String({ default: '1', pattern: '^[0-9]*\\.?[0-9]+$' }),
  // Where a time-lapse clock (ZAPGATE_TIME_SCALE below 1) starts, in ms since the epoch; processes
  // that share data (a restart, a cluster, the CLI) must share it. Default: this process's start.
  ZAPGATE_TIME_ORIGIN: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
  ZAPGATE_QUEUE_MAX_DISCONNECTED: Type.String({ default: '1000', pattern: '^[0-9]+$' }),
  ZAPGATE_RATE_LIMIT: Type.String({ default: '100', pattern: '^[0-9]+$' }),
  // Days the audit trail keeps its entries (docs/api-keys.md).
  ZAPGATE_AUDIT_RETENTION_DAYS: Type.String({ default: '365', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_LOG_LEVEL: Type.String({
    default: 'info',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  }),
  ZAPGATE_COMMAND_TIMEOUT_MS: Type.String({ default: '30000', pattern: '^[0-9]+$' }),
  // The most a SIGTERM/SIGINT shutdown may take before the process exits anyway (docs/cluster.md, "Rolling deploys").
  ZAPGATE_SHUTDOWN_TIMEOUT_MS: Type.String({ default: '25000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_BODY_LIMIT: Type.String({ default: '1048576', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_BODY_LIMIT: Type.String({ default: '16777216', pattern: '^[0-9]+$' }),
  ZAPGATE_PACING: Type.String({ default: 'on', enum: ['on', 'off'] }),
  ZAPGATE_SQLITE_THREAD: Type.String({ default: 'main', enum: ['main', 'worker'] }),
  ZAPGATE_PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' })),
  // Received media (downloaded from the network, served at signed links).
  ZAPGATE_RECEIVED_MEDIA_RETENTION_DAYS: Type.String({ default: '30', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_RECEIVED_MEDIA_MAX_BYTES: Type.String({ default: '104857600', pattern: '^[0-9]+$' }),
  ZAPGATE_RECEIVED_MEDIA_DOWNLOAD_TIMEOUT_MS: Type.String({ default: '60000', pattern: '^[0-9]+$' }),
  ZAPGATE_RECEIVED_MEDIA_DOWNLOADS_PER_INSTANCE: Type.String({ default: '2', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_RECEIVED_MEDIA_DOWNLOADS: Type.String({ default: '8', pattern: '^[1-9][0-9]*$' }),
  // Where received media is kept (docs/cluster.md): the data dir, an S3-compatible bucket, or PostgreSQL.
  ZAPGATE_MEDIA_STORE: Type.Optional(Type.String({ enum: ['directory', 's3', 'postgres'] })),
  ZAPGATE_S3_BUCKET: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._-]{3,255}$' })),
  ZAPGATE_S3_PREFIX: Type.String({ default: '', pattern: '^[^\\s]{0,512}$' }),
  ZAPGATE_S3_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+/?$' })),
  ZAPGATE_S3_FORCE_PATH_STYLE: Type.String({ default: 'false', enum: ['true', 'false'] }),
  ZAPGATE_S3_REGION: Type.String({ default: 'us-east-1', pattern: '^[a-z0-9-]{1,64}$' }),
  ZAPGATE_S3_ACCESS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  ZAPGATE_S3_SECRET_ACCESS_KEY: Type.Optional(Type.String({ minLength: 1 })),
  ZAPGATE_S3_SSE: Type.Optional(Type.String({ enum: ['AES256', 'aws:kms', 'aws:kms:dsse'] })),
  ZAPGATE_S3_SSE_KMS_KEY_ID: Type.Optional(Type.String({ minLength: 1 })),
  // The stored copy of chats and messages (GET /chats): how long messages stay, how many per chat.
  ZAPGATE_CHAT_MESSAGES_RETENTION_DAYS: Type.String({ default: '90', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_CHAT_MESSAGES_PER_CHAT: Type.String({ default: '1000', pattern: '^[0-9]+$' }),
  // The anti-ban strategy (docs/design.md); durations are protocol milliseconds (the gateway's clock: docs/design.md, "Time through one clock").
  ZAPGATE_ANTIBAN_MIN_GAP_MS: Type.String({ default: '3000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_MAX_GAP_MS: Type.String({ default: '8000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_TYPING_CPS: Type.String({ default: '6', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_ANTIBAN_MAX_TYPING_MS: Type.String({ default: '15000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_STRANGER_GAP_MS: Type.String({ default: '60000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR: Type.String({ default: '12', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_STRANGERS_PER_DAY: Type.String({ default: '150', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_IDENTICAL_PER_HOUR: Type.String({ default: '8', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_WARMUP_DAYS: Type.String({ default: '7', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_ANTIBAN_WARMUP_START: Type.String({ default: '0.2', pattern: '^(0?\\.[0-9]+|1|1\\.0+|0)$' }),
  ZAPGATE_ANTIBAN_PAUSE_MS: Type.String({ default: '1800000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_MAX_PAUSE_MS: Type.String({ default: '86400000', pattern: '^[0-9]+$' }),
  ZAPGATE_ANTIBAN_MAX_FAILURE_RATIO: Type.String({ default: '0.3', pattern: '^(0?\\.[0-9]+|1|1\\.0+|0)$' }),
  ZAPGATE_ANTIBAN_FAILURE_WINDOW: Type.String({ default: '20', pattern: '^[0-9]+$' }),
  // Outgoing media (src/convert/limits.ts says what each bounds).
  ZAPGATE_MEDIA_MAX_BYTES: Type.String({ default: '16777216', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_MAX_PIXELS: Type.String({ default: '50000000', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_IMAGE_MAX_SIDE: Type.String({ default: '1600', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_VIDEO_MAX_SIDE: Type.String({ default: '1280', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_MAX_SECONDS: Type.String({ default: '900', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_FETCH_TIMEOUT_MS: Type.String({ default: '30000', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_CONVERT_TIMEOUT_MS: Type.String({ default: '120000', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_CONVERT_MEMORY_MB: Type.String({ default: '1024', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_CONVERSIONS: Type.String({ default: '2', pattern: '^[0-9]+$' }),
  ZAPGATE_FFMPEG_PATH: Type.Optional(Type.String({ minLength: 1 })),
  ZAPGATE_FFPROBE_PATH: Type.Optional(Type.String({ minLength: 1 })),
  // HTTP connections: every phase is timed and connections are counted (src/http/connection-limits.ts).
  ZAPGATE_HTTP_HEADERS_TIMEOUT_MS: Type.String({ default: '10000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_HTTP_BODY_TIMEOUT_MS: Type.String({ default: '60000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_HTTP_REQUEST_TIMEOUT_MS: Type.String({ default: '120000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_HTTP_KEEPALIVE_TIMEOUT_MS: Type.String({ default: '5000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_HTTP_MAX_CONNECTIONS: Type.String({ default: '1024', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_HTTP_MAX_CONNECTIONS_PER_ADDRESS: Type.String({ default: '128', pattern: '^[1-9][0-9]*$' }),
  // Per-account quotas; 0 = no cap.
  ZAPGATE_MAX_INSTANCES_PER_ACCOUNT: Type.String({ default: '1000', pattern: '^[0-9]+$' }),
  ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT: Type.String({ default: '1073741824', pattern: '^[0-9]+$' }),
  // phone-exists-batch: more numbers than this needing the network make a job (202) instead of a wait.
  ZAPGATE_PHONE_CHECK_SYNC_MAX: Type.String({ default: '1000', pattern: '^[0-9]+$' }),
  // create-group: how long the request waits for the network's group before answering the pending id alone.
  ZAPGATE_CREATE_GROUP_WAIT_MS: Type.String({ default: '5000', pattern: '^[0-9]{1,6}$' }),
  // The live event stream (GET /events): how long events stay resumable, streams per account.
  ZAPGATE_EVENT_STREAM_RETENTION_HOURS: Type.String({ default: '24', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_EVENT_STREAMS_PER_ACCOUNT: Type.String({ default: '10', pattern: '^[1-9][0-9]*$' }),
  // Broker sinks every instance publishes to unless it or its account sets its own (docs/contract.md §5b).
  ZAPGATE_SINK_RABBITMQ_URL: Type.Optional(Type.String({ pattern: '^amqps?://[^\\s]+$' })),
  ZAPGATE_SINK_RABBITMQ_EXCHANGE: Type.String({ default: 'zapgate', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
  ZAPGATE_SINK_RABBITMQ_PREFIX: Type.String({ default: 'zapgate', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
  ZAPGATE_SINK_NATS_URL: Type.Optional(Type.String({ pattern: '^(nats|tls)://[^\\s]+$' })),
  ZAPGATE_SINK_NATS_PREFIX: Type.String({ default: 'zapgate', pattern: '^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$' }),
  // Cluster mode (docs/cluster.md): several nodes on one PostgreSQL, enabled by the shared secret.
  ZAPGATE_CLUSTER_SECRET: Type.Optional(Type.String({ minLength: 16 })),
  ZAPGATE_NODE_ID: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{1,100}$' })),
  ZAPGATE_NODE_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+/?$' })),
  ZAPGATE_CLUSTER_HEARTBEAT_MS: Type.String({ default: '3000', pattern: '^[1-9][0-9]*$' }),
  ZAPGATE_CLUSTER_LEASE_MS: Type.String({ default: '15000', pattern: '^[1-9][0-9]*$' }),
});

export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly bootstrapClientToken: string | undefined;
  readonly waUrl: string | undefined;
  readonly waRootKey: string | undefined;
  /** `host[:port]` of the network's media host for downloads by path (history sync); WhatsApp's when unset. */
  readonly waMediaHost: string | undefined;
  readonly webhookAllowHttp: boolean;
  readonly allowHosts: readonly string[];
  /** The gateway's clock (src/clock.ts): 1 is the wall clock; below 1 a time-lapse from `timeOrigin`. */
  readonly timeScale: number;
  /** Ms since the epoch a time-lapse clock starts from (undefined: when the process makes its clock). */
  readonly timeOrigin: number | undefined;
  readonly queueMaxDisconnected: number;
  readonly rateLimitPerSecond: number;
  /** Days audit entries are kept (ZAPGATE_AUDIT_RETENTION_DAYS). */
  readonly auditRetentionDays: number;
  readonly logLevel: string;
  readonly commandTimeoutMs: number;
  /** Real ms a shutdown may take before the process exits anyway (ZAPGATE_SHUTDOWN_TIMEOUT_MS). */
  readonly shutdownTimeoutMs: number;
  readonly bodyLimit: number;
  readonly mediaBodyLimit: number;
  /** Benchmark-only: `off` removes every pacing gap in the sender. */
  readonly pacing: boolean;
  readonly antiban: AntibanSettings;
  /** Where SQLite runs: this thread, or a worker thread (commits and their fsync off the event loop). */
  readonly sqliteThread: 'main' | 'worker';
  /** Base of the links in webhooks (received media); the listen address when unset. */
  readonly publicUrl: string | undefined;
  readonly receivedMedia: ReceivedMediaSettings;
  /** Where received media is kept (media/select.ts); with the bucket's settings for `s3`. */
  readonly mediaStore: MediaStoreSettings;
  /** The stored copy of messages: max age (ms, 0 = keep) and max per chat (0 = no cap). */
  readonly chatRetention: { readonly maxAgeMs: number; readonly maxPerChat: number };
  /** Bounds of outgoing media: bytes, pixels, seconds, conversion time, memory and concurrency. */
  readonly media: MediaLimits;
  readonly http: HttpLimits;
  /** Per-account quotas: instances (403 past it) and bytes of queued messages and media (429); 0 = no cap. */
  readonly quotas: QuotaSettings;
  /** phone-exists-batch: unchecked numbers a request waits for; more make a job. */
  readonly phoneCheckSyncMax: number;
  /** create-group: ms the answer waits for the group to exist (Z-API's `phone`, `invitationLink`); 0 answers at once. A guard: never scaled. */
  readonly createGroupWaitMs: number;
  /** The event stream: protocol ms events stay resumable (0 = stream only what webhooks take), open streams per account. */
  readonly eventStream: { readonly retentionMs: number; readonly maxPerAccount: number };
  /** Cluster mode (PostgreSQL and a shared secret); null = one node (docs/cluster.md). */
  readonly cluster: ClusterSettings | null;
  /** The environment's default broker sinks (ZAPGATE_SINK_*); absent when its URL is unset. */
  readonly sinks: { readonly rabbitmq?: BrokerDefault; readonly nats?: BrokerDefault };
}

/** A broker sink set by the environment: the connection URL (may hold credentials), exchange, prefix. */
export interface BrokerDefault {
  readonly url: string;
  readonly exchange: string;
  readonly prefix: string;
}

export interface ClusterSettings {
  /** Shared by every node: authenticates forwarded requests. */
  readonly secret: string;
  /** This node's name (host name and port by default); unique in the cluster. */
  readonly nodeId: string;
  /** Where the other nodes reach this one (forwarded requests). */
  readonly nodeUrl: string;
  /** Real ms between lease renewals. */
  readonly heartbeatMs: number;
  /** Real ms a node's lease lasts: a node that has not renewed it for this long is dead. */
  readonly leaseMs: number;
}

interface QuotaSettings {
  readonly maxInstancesPerAccount: number;
  readonly maxQueuedBytesPerAccount: number;
}

/** How long each phase of an HTTP exchange may take, and how many connections may be open. */
export interface HttpLimits {
  /** From a connection's (or a request's) first byte to the end of its headers; also a silent new connection. */
  readonly headersTimeoutMs: number;
  /** The whole request, headers and body, must have arrived within this (a trickled body is cut: 408). */
  readonly bodyTimeoutMs: number;
  /** From the headers received to the response sent (then 503, or the connection cut). */
  readonly requestTimeoutMs: number;
  /** An idle kept-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  /** Beyond this, a client address's new connections are closed at once. */
  readonly maxConnectionsPerAddress: number;
}

/** An S3-compatible bucket for media (media/s3-store.ts). */
export interface S3Settings {
  readonly bucket: string;
  /** Prepended to every key (`zapgate/media/`); '' for the bucket's root. */
  readonly prefix: string;
  /** An S3-compatible service's URL; AWS's own endpoint for the region when unset. */
  readonly endpoint: string | undefined;
  /** `https://host/bucket/key` instead of `https://bucket.host/key` (most self-hosted services). */
  readonly forcePathStyle: boolean;
  readonly region: string;
  /** Static credentials; the SDK's default chain (AWS_* variables, an instance role…) when unset. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
  /** Server-side encryption asked of the service for every object (`AES256`, `aws:kms`). */
  readonly sse: string | undefined;
  readonly sseKmsKeyId: string | undefined;
}

/** Where received media is kept: one node's data dir, or a store every node of a cluster shares. */
export type MediaStoreSettings =
  | { readonly kind: 'directory' }
  | { readonly kind: 'postgres' }
  | { readonly kind: 's3'; readonly s3: S3Settings };

/** Received media: kept this long, at most this large, downloaded this many at a time. */
interface ReceivedMediaSettings {
  readonly retentionMs: number;
  readonly maxBytes: number;
  readonly downloadTimeoutMs: number;
  readonly downloadsPerInstance: number;
  readonly downloads: number;
}

/** Limits of the anti-ban strategy (docs/design.md). Durations in protocol ms; a cap of 0 means no cap. */
export interface AntibanSettings {
  /** "Thinking" before each message: a random gap in [minGapMs, maxGapMs]. */
  readonly minGapMs: number;
  readonly maxGapMs: number;
  /** "typing…" lasts the message length at this speed (±25 %), up to maxTypingMs. */
  readonly typingCharsPerSecond: number;
  readonly maxTypingMs: number;
  /** At least this long (up to twice, jittered) between two first messages to strangers. */
  readonly strangerGapMs: number;
  readonly strangersPerHour: number;
  readonly strangersPerDay: number;
  /** The same content to more than this many recipients in an hour waits (a broadcast pattern). */
  readonly identicalPerHour: number;
  /** A newly paired number starts at warmupStart × the stranger caps, reaching them after warmupDays. */
  readonly warmupDays: number;
  readonly warmupStart: number;
  /** Pause after a restriction signal; doubles for each further one within a day, up to maxPauseMs. */
  readonly pauseMs: number;
  readonly maxPauseMs: number;
  /**
   * The governor: when at least this fraction of the last `failureWindow` sends were refused by the
   * network (not on WhatsApp, refused), sending pauses as after a restriction signal. 0 = off.
   */
  readonly maxFailureRatio: number;
  readonly failureWindow: number;
}

/** Variables whose values are secrets (or may embed one): an error names them but never echoes them. */
const SECRET_VARIABLES = new Set(['ZAPGATE_CLIENT_TOKEN', 'ZAPGATE_DATABASE_URL', 'ZAPGATE_CLUSTER_SECRET', 'ZAPGATE_S3_SECRET_ACCESS_KEY']);

function shown(variable: string, value: unknown): string {
  return SECRET_VARIABLES.has(variable) ? '(value hidden)' : JSON.stringify(value);
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment; throws ConfigError naming the variable at fault. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const withDefaults = Value.Default(EnvSchema, raw);
  const firstError = Value.Errors(EnvSchema, withDefaults).First();
  if (firstError) {
    const variable = firstError.path.replace(/^\//, '') || 'environment';
    const schema = firstError.schema as { enum?: string[]; pattern?: string };
    const allowed = schema.enum ? `one of ${schema.enum.join(', ')}` : schema.pattern ? `a value matching ${schema.pattern}` : firstError.message;
    throw new ConfigError(variable, `invalid value ${shown(variable, firstError.value)}; expected ${allowed}`);
  }
  // TypeBox checks no `enum` on a Type.String, so a typo (ZAPGATE_PACING=of) would pass silently.
  for (const [variable, schema] of Object.entries(EnvSchema.properties)) {
    const allowed = (schema as { enum?: string[] }).enum;
    const value = (withDefaults as Record<string, string | undefined>)[variable];
    if (allowed && value !== undefined && !allowed.includes(value)) {
      throw new ConfigError(variable, `invalid value ${JSON.stringify(value)}; expected one of ${allowed.join(', ')}`);
    }
  }
  const e = withDefaults as Env;
  const port = Number(e.ZAPGATE_PORT);
  if (port > 65535) throw new ConfigError('ZAPGATE_PORT', `must be 0-65535, got ${port}`);
  const timeScale = Number(e.ZAPGATE_TIME_SCALE);
  if (!(timeScale > 0)) throw new ConfigError('ZAPGATE_TIME_SCALE', 'must be a positive number');
  if (!(Number(e.ZAPGATE_ANTIBAN_TYPING_CPS) > 0)) throw new ConfigError('ZAPGATE_ANTIBAN_TYPING_CPS', 'must be a positive number');
  const http = httpLimits(e);
  const cluster = clusterSettings(e, port);
  const mediaStore = mediaStoreSettings(e, cluster !== null);
  return Object.freeze({
    host: e.ZAPGATE_HOST,
    port,
    dataDir: e.ZAPGATE_DATA_DIR,
    databaseUrl: e.ZAPGATE_DATABASE_URL,
    bootstrapClientToken: e.ZAPGATE_CLIENT_TOKEN,
    waUrl: e.ZAPGATE_WA_URL,
    waRootKey: e.ZAPGATE_WA_ROOT_KEY,
    waMediaHost: e.ZAPGATE_WA_MEDIA_HOST,
    webhookAllowHttp: e.ZAPGATE_WEBHOOK_ALLOW_HTTP === 'true',
    allowHosts: Object.freeze(
      e.ZAPGATE_ALLOW_HOSTS.split(',').map((s) => s.trim()).filter((s) => s.length > 0),
    ),
    timeScale,
    timeOrigin: e.ZAPGATE_TIME_ORIGIN === undefined ? undefined : Number(e.ZAPGATE_TIME_ORIGIN),
    queueMaxDisconnected: Number(e.ZAPGATE_QUEUE_MAX_DISCONNECTED),
    rateLimitPerSecond: Number(e.ZAPGATE_RATE_LIMIT),
    auditRetentionDays: Number(e.ZAPGATE_AUDIT_RETENTION_DAYS),
    logLevel: e.ZAPGATE_LOG_LEVEL,
    commandTimeoutMs: Number(e.ZAPGATE_COMMAND_TIMEOUT_MS),
    shutdownTimeoutMs: Number(e.ZAPGATE_SHUTDOWN_TIMEOUT_MS),
    bodyLimit: Number(e.ZAPGATE_BODY_LIMIT),
    mediaBodyLimit: Number(e.ZAPGATE_MEDIA_BODY_LIMIT),
    pacing: e.ZAPGATE_PACING === 'on',
    sqliteThread: e.ZAPGATE_SQLITE_THREAD === 'worker' ? 'worker' : 'main',
    publicUrl: e.ZAPGATE_PUBLIC_URL?.replace(/\/+$/, ''),
    receivedMedia: Object.freeze({
      retentionMs: Number(e.ZAPGATE_RECEIVED_MEDIA_RETENTION_DAYS) * 24 * 60 * 60_000,
      maxBytes: Number(e.ZAPGATE_RECEIVED_MEDIA_MAX_BYTES),
      downloadTimeoutMs: Number(e.ZAPGATE_RECEIVED_MEDIA_DOWNLOAD_TIMEOUT_MS),
      downloadsPerInstance: Number(e.ZAPGATE_RECEIVED_MEDIA_DOWNLOADS_PER_INSTANCE),
      downloads: Number(e.ZAPGATE_RECEIVED_MEDIA_DOWNLOADS),
    }),
    mediaStore,
    chatRetention: Object.freeze({
      maxAgeMs: Number(e.ZAPGATE_CHAT_MESSAGES_RETENTION_DAYS) * 24 * 60 * 60_000,
      maxPerChat: Number(e.ZAPGATE_CHAT_MESSAGES_PER_CHAT),
    }),
    antiban: Object.freeze({
      minGapMs: Number(e.ZAPGATE_ANTIBAN_MIN_GAP_MS),
      maxGapMs: Math.max(Number(e.ZAPGATE_ANTIBAN_MIN_GAP_MS), Number(e.ZAPGATE_ANTIBAN_MAX_GAP_MS)),
      typingCharsPerSecond: Number(e.ZAPGATE_ANTIBAN_TYPING_CPS),
      maxTypingMs: Number(e.ZAPGATE_ANTIBAN_MAX_TYPING_MS),
      strangerGapMs: Number(e.ZAPGATE_ANTIBAN_STRANGER_GAP_MS),
      strangersPerHour: Number(e.ZAPGATE_ANTIBAN_STRANGERS_PER_HOUR),
      strangersPerDay: Number(e.ZAPGATE_ANTIBAN_STRANGERS_PER_DAY),
      identicalPerHour: Number(e.ZAPGATE_ANTIBAN_IDENTICAL_PER_HOUR),
      warmupDays: Number(e.ZAPGATE_ANTIBAN_WARMUP_DAYS),
      warmupStart: Number(e.ZAPGATE_ANTIBAN_WARMUP_START),
      pauseMs: Number(e.ZAPGATE_ANTIBAN_PAUSE_MS),
      maxPauseMs: Math.max(Number(e.ZAPGATE_ANTIBAN_PAUSE_MS), Number(e.ZAPGATE_ANTIBAN_MAX_PAUSE_MS)),
      maxFailureRatio: Number(e.ZAPGATE_ANTIBAN_MAX_FAILURE_RATIO),
      failureWindow: Number(e.ZAPGATE_ANTIBAN_FAILURE_WINDOW),
    }),
    media: Object.freeze({
      maxBytes: Number(e.ZAPGATE_MEDIA_MAX_BYTES),
      maxPixels: Number(e.ZAPGATE_MEDIA_MAX_PIXELS),
      imageMaxSide: Math.max(16, Number(e.ZAPGATE_MEDIA_IMAGE_MAX_SIDE)),
      videoMaxSide: Math.max(16, Number(e.ZAPGATE_MEDIA_VIDEO_MAX_SIDE)),
      maxSeconds: Number(e.ZAPGATE_MEDIA_MAX_SECONDS),
      fetchTimeoutMs: Number(e.ZAPGATE_MEDIA_FETCH_TIMEOUT_MS),
      convertTimeoutMs: Number(e.ZAPGATE_MEDIA_CONVERT_TIMEOUT_MS),
      convertMemoryMb: Number(e.ZAPGATE_MEDIA_CONVERT_MEMORY_MB),
      concurrentConversions: Math.max(1, Number(e.ZAPGATE_MEDIA_CONVERSIONS)),
      ffmpegPath: e.ZAPGATE_FFMPEG_PATH,
      ffprobePath: e.ZAPGATE_FFPROBE_PATH,
    }),
    http,
    quotas: Object.freeze({
      maxInstancesPerAccount: Number(e.ZAPGATE_MAX_INSTANCES_PER_ACCOUNT),
      maxQueuedBytesPerAccount: Number(e.ZAPGATE_MAX_QUEUED_BYTES_PER_ACCOUNT),
    }),
    phoneCheckSyncMax: Number(e.ZAPGATE_PHONE_CHECK_SYNC_MAX),
    createGroupWaitMs: Number(e.ZAPGATE_CREATE_GROUP_WAIT_MS),
    eventStream: Object.freeze({
      retentionMs: Number(e.ZAPGATE_EVENT_STREAM_RETENTION_HOURS) * 60 * 60_000,
      maxPerAccount: Number(e.ZAPGATE_EVENT_STREAMS_PER_ACCOUNT),
    }),
    cluster,
    sinks: Object.freeze({
      ...(e.ZAPGATE_SINK_RABBITMQ_URL ? { rabbitmq: { url: e.ZAPGATE_SINK_RABBITMQ_URL, exchange: e.ZAPGATE_SINK_RABBITMQ_EXCHANGE, prefix: e.ZAPGATE_SINK_RABBITMQ_PREFIX } } : {}),
      ...(e.ZAPGATE_SINK_NATS_URL ? { nats: { url: e.ZAPGATE_SINK_NATS_URL, exchange: '', prefix: e.ZAPGATE_SINK_NATS_PREFIX } } : {}),
    }),
  });
}

function clusterSettings(e: Env, port: number): ClusterSettings | null {
  if (!e.ZAPGATE_CLUSTER_SECRET) {
    for (const v of ['ZAPGATE_NODE_ID', 'ZAPGATE_NODE_URL'] as const) {
      if (e[v]) throw new ConfigError(v, 'is a cluster setting: set ZAPGATE_CLUSTER_SECRET (the same on every node) to run in cluster mode');
    }
    return null;
  }
  if (!e.ZAPGATE_DATABASE_URL) throw new ConfigError('ZAPGATE_CLUSTER_SECRET', 'cluster mode needs PostgreSQL: set ZAPGATE_DATABASE_URL (SQLite runs one node)');
  const heartbeatMs = Number(e.ZAPGATE_CLUSTER_HEARTBEAT_MS);
  const leaseMs = Number(e.ZAPGATE_CLUSTER_LEASE_MS);
  // A lease must survive a missed renewal or two, or a busy node would fence itself for nothing.
  if (leaseMs < heartbeatMs * 3) throw new ConfigError('ZAPGATE_CLUSTER_LEASE_MS', `must be at least 3 heartbeats (${heartbeatMs * 3} ms)`);
  const host = hostname();
  return Object.freeze({
    secret: e.ZAPGATE_CLUSTER_SECRET,
    nodeId: e.ZAPGATE_NODE_ID ?? `${host}:${port}`,
    nodeUrl: (e.ZAPGATE_NODE_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    heartbeatMs,
    leaseMs,
  });
}

/**
 * The media store: ZAPGATE_MEDIA_STORE, or by default the bucket when one is set, else PostgreSQL
 * in cluster mode (every node must serve every link, docs/cluster.md), else the data dir.
 */
function mediaStoreSettings(e: Env, cluster: boolean): MediaStoreSettings {
  const kind = (e.ZAPGATE_MEDIA_STORE ?? (e.ZAPGATE_S3_BUCKET ? 's3' : cluster ? 'postgres' : 'directory')) as MediaStoreSettings['kind'];
  if (kind === 'postgres' && !e.ZAPGATE_DATABASE_URL) throw new ConfigError('ZAPGATE_MEDIA_STORE', 'postgres needs ZAPGATE_DATABASE_URL (with SQLite, media stays in the data dir)');
  if (kind !== 's3') return Object.freeze({ kind });
  if (!e.ZAPGATE_S3_BUCKET) throw new ConfigError('ZAPGATE_S3_BUCKET', 'is needed when ZAPGATE_MEDIA_STORE is s3');
  if (!e.ZAPGATE_S3_ACCESS_KEY_ID !== !e.ZAPGATE_S3_SECRET_ACCESS_KEY) {
    throw new ConfigError('ZAPGATE_S3_ACCESS_KEY_ID', 'set it together with ZAPGATE_S3_SECRET_ACCESS_KEY, or neither (the AWS SDK then finds credentials itself)');
  }
  return Object.freeze({
    kind,
    s3: Object.freeze({
      bucket: e.ZAPGATE_S3_BUCKET,
      prefix: e.ZAPGATE_S3_PREFIX,
      endpoint: e.ZAPGATE_S3_ENDPOINT?.replace(/\/+$/, ''),
      forcePathStyle: e.ZAPGATE_S3_FORCE_PATH_STYLE === 'true',
      region: e.ZAPGATE_S3_REGION,
      credentials: e.ZAPGATE_S3_ACCESS_KEY_ID && e.ZAPGATE_S3_SECRET_ACCESS_KEY ? Object.freeze({ accessKeyId: e.ZAPGATE_S3_ACCESS_KEY_ID, secretAccessKey: e.ZAPGATE_S3_SECRET_ACCESS_KEY }) : undefined,
      sse: e.ZAPGATE_S3_SSE,
      sseKmsKeyId: e.ZAPGATE_S3_SSE_KMS_KEY_ID,
    }),
  });
}

function httpLimits(e: Env): HttpLimits {
  const limits = Object.freeze({
    headersTimeoutMs: Number(e.ZAPGATE_HTTP_HEADERS_TIMEOUT_MS),
    bodyTimeoutMs: Number(e.ZAPGATE_HTTP_BODY_TIMEOUT_MS),
    requestTimeoutMs: Number(e.ZAPGATE_HTTP_REQUEST_TIMEOUT_MS),
    keepAliveTimeoutMs: Number(e.ZAPGATE_HTTP_KEEPALIVE_TIMEOUT_MS),
    maxConnections: Number(e.ZAPGATE_HTTP_MAX_CONNECTIONS),
    maxConnectionsPerAddress: Number(e.ZAPGATE_HTTP_MAX_CONNECTIONS_PER_ADDRESS),
  });
  // Node refuses a headers timeout longer than the whole request's.
  if (limits.headersTimeoutMs > limits.bodyTimeoutMs) {
    throw new ConfigError('ZAPGATE_HTTP_HEADERS_TIMEOUT_MS', `must not exceed ZAPGATE_HTTP_BODY_TIMEOUT_MS (${limits.bodyTimeoutMs})`);
  }
  return limits;
}
