// Runs ffmpeg and ffprobe as child processes with a wall-clock limit (killed when it passes), an
// address-space and CPU-time limit (the shell's ulimit, set before exec), one thread each, and a
// cap on what they may print. The binaries come from @ffmpeg-installer/@ffprobe-installer, which
// ship them inside per-platform registry packages, unless the settings name others.
import { spawn } from 'node:child_process';
import { accessSync, chmodSync, constants, copyFileSync, mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import type { MediaLimits } from './limits.js';

const require = createRequire(import.meta.url);

/** A child process runs in real time whatever the protocol clock does: its limit is a guard. */
const REAL_TIME: Pick<Clock, 'setGuard'> = systemClock();

export class ToolError extends Error {
  constructor(
    message: string,
    /** Killed for taking too long (the caller may retry); else it refused the input. */
    readonly timedOut: boolean,
    readonly stderr = '',
  ) {
    super(message);
    this.name = 'ToolError';
  }
}

let installed: { ffmpeg?: string; ffprobe?: string } = {};

function binary(tool: 'ffmpeg' | 'ffprobe', limits: MediaLimits): string {
  const configured = tool === 'ffmpeg' ? limits.ffmpegPath : limits.ffprobePath;
  if (configured) return configured;
  const known = installed[tool];
  if (known) return known;
  const { path } = require(tool === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe') as { path: string };
  const runnable = executable(path, tool);
  installed = { ...installed, [tool]: runnable };
  return runnable;
}

/**
 * The packages ship their binary without the execute bit and set it in a postinstall script,
 * which npm skips under --ignore-scripts or an install-scripts policy: set it here, or run a
 * private executable copy when node_modules is read-only.
 */
function executable(path: string, tool: string): string {
  if (process.platform === 'win32') return path;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    // not executable yet
  }
  try {
    chmodSync(path, 0o755);
    return path;
  } catch {
    const dir = join(tmpdir(), `zapgate-bin-${process.getuid?.() ?? 0}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const copy = join(dir, tool);
    copyFileSync(path, copy);
    chmodSync(copy, 0o755);
    return copy;
  }
}

/** The bundled binary, made executable if the install left it without the bit (tests, benchmarks). */
export function bundledTool(tool: 'ffmpeg' | 'ffprobe'): string {
  return binary(tool, { ffmpegPath: undefined, ffprobePath: undefined } as MediaLimits);
}

interface RunOptions {
  /** Largest stdout kept, bytes (the rest is an error). */
  maxStdout?: number;
  /** Where the time limit is timed (default: the system clock's guards). */
  clock?: Pick<Clock, 'setGuard'>;
}

/** Runs the tool; resolves with its stdout, rejects with a ToolError (timeout, exit code, limits). */
export function runTool(tool: 'ffmpeg' | 'ffprobe', args: readonly string[], limits: MediaLimits, options: RunOptions = {}): Promise<Buffer> {
  const path = binary(tool, limits);
  const maxStdout = options.maxStdout ?? 1024 * 1024;
  const cpuSeconds = Math.max(1, Math.ceil((limits.convertTimeoutMs / 1000) * 2));
  // POSIX shells: ulimit applies to the shell, and exec hands the limits to the tool. One limit
  // per ulimit call (dash takes no more).
  const [cmd, argv] =
    process.platform === 'win32'
      ? [path, [...args]]
      : ['/bin/sh', ['-c', `ulimit -v ${limits.convertMemoryMb * 1024} 2>/dev/null; ulimit -t ${cpuSeconds} 2>/dev/null; exec "$@"`, 'sh', path, ...args]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: ToolError | null = null;
    const cancel = (options.clock ?? REAL_TIME).setGuard(limits.convertTimeoutMs, () => {
      failure = new ToolError(`${tool} took longer than ${limits.convertTimeoutMs} ms`, true);
      child.kill('SIGKILL');
    });
    child.stdout.on('data', (c: Buffer) => {
      outBytes += c.length;
      if (outBytes > maxStdout) {
        failure ??= new ToolError(`${tool} printed more than ${maxStdout} bytes`, false);
        child.kill('SIGKILL');
      } else out.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      // The end of stderr says why it failed; keep a bounded tail.
      err = (err + c.toString('utf8')).slice(-4000);
    });
    child.on('error', (e) => {
      cancel();
      reject(new ToolError(`${tool} could not start: ${e.message}`, false));
    });
    child.on('close', (code, signal) => {
      cancel();
      if (failure) return reject(failure);
      if (code === 0) return resolve(Buffer.concat(out));
      const why = signal ? `killed by ${signal} (memory or CPU limit)` : `exit code ${code}`;
      reject(new ToolError(`${tool} failed: ${why}`, false, err));
    });
  });
}

/** A private temporary folder for one conversion, removed afterwards whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'zapgate-media-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  pix_fmt?: string;
  duration?: string;
}

export interface Probe {
  streams: ProbeStream[];
  format: { format_name?: string; duration?: string };
}

/** ffprobe's view of a file: streams and duration (bounded in time and output). */
export async function probe(file: string, limits: MediaLimits): Promise<Probe> {
  const out = await runTool('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], limits, { maxStdout: 256 * 1024 });
  const parsed = JSON.parse(out.toString('utf8')) as Partial<Probe>;
  return { streams: parsed.streams ?? [], format: parsed.format ?? {} };
}

export function durationOf(p: Probe): number {
  const d = Number(p.format.duration ?? p.streams.find((s) => s.duration)?.duration);
  return Number.isFinite(d) ? d : 0;
}
