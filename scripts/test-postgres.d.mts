// Types of scripts/test-postgres.mjs (plain JS: scripts/test.mjs loads it before tsx is in play).
export interface EmbeddedPostgres {
  /** postgres://postgres@127.0.0.1:PORT/test */
  readonly url: string;
  readonly port: number;
  /** The temp dir holding the cluster and its socket; removed by stop(). */
  readonly dir: string;
  stop(): Promise<void>;
  /** A fast shutdown (every connection cut), then a start on the same port and data. */
  restart(): Promise<void>;
}
export function probeAddress(env?: NodeJS.ProcessEnv): { host: string; port: number };
export function answers(address: { host: string; port: number }, timeoutMs?: number): Promise<boolean>;
export function startEmbeddedPostgres(options?: { log?: (line: string) => void }): Promise<EmbeddedPostgres>;
export function testPostgres(options?: { env?: NodeJS.ProcessEnv; log?: (line: string) => void }): Promise<{ env: Record<string, string>; stop(): Promise<void> }>;
export function reachableBy(path: string, as: { uid: number; gid: number }): boolean;
