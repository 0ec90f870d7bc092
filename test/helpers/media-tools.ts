// Test media made at test time with the ffmpeg the project installs, and ffprobe to judge what
// the contact received. Files are tiny (a 2 s tone, a 1 s test pattern).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { bundledTool } from '../../src/convert/ffmpeg.js';

const run = promisify(execFile);
export const FFMPEG = bundledTool('ffmpeg');
export const FFPROBE = bundledTool('ffprobe');

export interface TestMedia {
  /** 2.0 s 440 Hz tone, MP3. */
  mp3: Buffer;
  /** 1 s 320×240 test pattern with sound, MP4 (H.264/AAC). */
  mp4: Buffer;
  /** 1 s 160×120 test pattern, WebM (VP8): must be re-encoded. */
  webm: Buffer;
  close(): void;
}

export async function makeTestMedia(): Promise<TestMedia> {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-testmedia-'));
  const f = (n: string) => join(dir, n);
  const q = ['-hide_banner', '-v', 'error', '-y'];
  await run(FFMPEG, [...q, '-f', 'lavfi', '-i', 'sine=frequency=440:duration=2', '-c:a', 'libmp3lame', '-b:a', '64k', f('tone.mp3')]);
  await run(FFMPEG, [...q, '-f', 'lavfi', '-i', 'testsrc=duration=1:size=320x240:rate=15', '-f', 'lavfi', '-i', 'sine=duration=1',
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', '-movflags', '+faststart', f('clip.mp4')]);
  await run(FFMPEG, [...q, '-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'libvpx', '-b:v', '100k', f('clip.webm')]);
  return {
    mp3: readFileSync(f('tone.mp3')),
    mp4: readFileSync(f('clip.mp4')),
    webm: readFileSync(f('clip.webm')),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface Probed {
  format: string;
  duration: number;
  streams: { codec_type: string; codec_name: string; width?: number; height?: number; channels?: number }[];
}

/** ffprobe's view of some bytes. */
export async function probeBytes(data: Buffer): Promise<Probed> {
  const dir = mkdtempSync(join(tmpdir(), 'zapgate-probe-'));
  try {
    const file = join(dir, 'media');
    writeFileSync(file, data);
    const { stdout } = await run(FFPROBE, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]);
    const j = JSON.parse(stdout) as { format: { format_name: string; duration?: string }; streams: Probed['streams'] };
    return { format: j.format.format_name, duration: Number(j.format.duration ?? 0), streams: j.streams };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
