// The only reader of process.env: one schema, validated at boot, frozen.
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';


/** Environment variables zapgate reads, with their allowed values and defaults. */
export const EnvSchema = Type.Object({
  ZAPGATE_HOST: Type.String({ default: '0.0.0.0', minLength: 1 }),
  ZAPGATE_PORT: Type.String({ default: '3000', pattern: '^[0-9]{1,5}$' }),
  ZAPGATE_DATA_DIR: Type.String({ default: './data', minLength: 1 }),
  ZAPGATE_DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  ZAPGATE_CLIENT_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  ZAPGATE_WA_URL: Type.Optional(Type.String({ pattern: '^wss?://' })),
  ZAPGATE_WA_ROOT_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]+={0,2}$' })),
  ZAPGATE_WEBHOOK_ALLOW_HTTP: Type.String({ default: 'false', enum: ['true', 'false'] }),
  ZAPGATE_ALLOW_HOSTS: Type.String({ default: '' }),
  ZAPGATE_TIME_SCALE: Type.String({ default: '1', pattern: '^[0-9]*\\.?[0-9]+$' }),
  ZAPGATE_QUEUE_MAX_DISCONNECTED: Type.String({ default: '1000', pattern: '^[0-9]+$' }),
  ZAPGATE_RATE_LIMIT: Type.String({ default: '100', pattern: '^[0-9]+$' }),
  ZAPGATE_LOG_LEVEL: Type.String({
    default: 'info',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  }),
  ZAPGATE_COMMAND_TIMEOUT_MS: Type.String({ default: '30000', pattern: '^[0-9]+$' }),
  ZAPGATE_BODY_LIMIT: Type.String({ default: '1048576', pattern: '^[0-9]+$' }),
  ZAPGATE_MEDIA_BODY_LIMIT: Type.String({ default: '16777216', pattern: '^[0-9]+$' }),
  ZAPGATE_PACING: Type.String({ default: 'on', enum: ['on', 'off'] }),
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
  readonly webhookAllowHttp: boolean;
  readonly allowHosts: readonly string[];
  readonly timeScale: number;
  readonly queueMaxDisconnected: number;
  readonly rateLimitPerSecond: number;
  readonly logLevel: string;
  readonly commandTimeoutMs: number;
  readonly bodyLimit: number;
  readonly mediaBodyLimit: number;
  /** Benchmark-only: `off` removes every pacing gap in the sender. */
  readonly pacing: boolean;
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
    throw new ConfigError(variable, `invalid value ${JSON.stringify(firstError.value)}; expected ${allowed}`);
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
  return Object.freeze({
    host: e.ZAPGATE_HOST,
    port,
    dataDir: e.ZAPGATE_DATA_DIR,
    databaseUrl: e.ZAPGATE_DATABASE_URL,
    bootstrapClientToken: e.ZAPGATE_CLIENT_TOKEN,
    waUrl: e.ZAPGATE_WA_URL,
    waRootKey: e.ZAPGATE_WA_ROOT_KEY,
    webhookAllowHttp: e.ZAPGATE_WEBHOOK_ALLOW_HTTP === 'true',
    allowHosts: Object.freeze(
      e.ZAPGATE_ALLOW_HOSTS.split(',').map((s) => s.trim()).filter((s) => s.length > 0),
    ),
    timeScale,
    queueMaxDisconnected: Number(e.ZAPGATE_QUEUE_MAX_DISCONNECTED),
    rateLimitPerSecond: Number(e.ZAPGATE_RATE_LIMIT),
    logLevel: e.ZAPGATE_LOG_LEVEL,
    commandTimeoutMs: Number(e.ZAPGATE_COMMAND_TIMEOUT_MS),
    bodyLimit: Number(e.ZAPGATE_BODY_LIMIT),
    mediaBodyLimit: Number(e.ZAPGATE_MEDIA_BODY_LIMIT),
    pacing: e.ZAPGATE_PACING === 'on',
  });
}
